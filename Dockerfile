# The one image of every role (ROLES selects what a container runs). Not built on our machines:
# no Docker engine runs here; CI where one exists builds it with `docker build .`.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN npm install -g pnpm@10.34.8
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY services/contracts/package.json services/contracts/
COPY services/platform/package.json services/platform/
COPY services/gateway/package.json services/gateway/
COPY services/main/package.json services/main/
COPY test/package.json test/
RUN pnpm install --frozen-lockfile

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 INTERNAL_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app /app
COPY services services
USER 1000
EXPOSE 8080 8081
ENTRYPOINT ["node_modules/.bin/tsx", "services/main/src/main.ts"]
