# The one image of every role (ROLES selects what a container runs). Not built on our machines:
# no Docker engine runs here; CI where one exists builds it with `docker build .`.
# `node scripts/docker-lint.mjs` (part of `make test`) checks what this file must keep true:
# every workspace package and every pnpm patch is in the image before the install, the
# workflows' sources are there for the worker to bundle, ffmpeg is installed, the entrypoint
# exists, pnpm is the version of package.json's packageManager and Node the major version that
# scripts/setup.sh installs for the tests (24 LTS).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
RUN npm install -g pnpm@10.34.8
# `pnpm fetch` needs only the lockfile (and the workspace file with its patch list): the
# dependency layer is rebuilt when they change, not at every source change.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY patches patches
RUN pnpm fetch --frozen-lockfile
COPY services services
COPY workflows workflows
COPY test/package.json test/
RUN pnpm install --frozen-lockfile --offline

FROM node:24-bookworm-slim
# ffmpeg converts voice notes and videos (`convert: true` on /messages/voice and /messages/video).
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 INTERNAL_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app /app
USER 1000
EXPOSE 8080 8081
ENTRYPOINT ["node_modules/.bin/tsx", "services/main/src/main.ts"]
