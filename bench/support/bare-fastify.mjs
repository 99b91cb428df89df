// The baseline: a bare Fastify hello-world (the gateway's own fastify), no logger, no hooks.
// It answers the gateway bench's request shape too (GET /v1/instances/:instanceId), so that both
// targets get byte-for-byte the same load from autocannon. PORT from the environment.
import { createRequire } from "node:module";

const require = createRequire(new URL("../../services/gateway/package.json", import.meta.url));
const Fastify = require("fastify");

const app = Fastify({ logger: false });
const hello = async () => ({ hello: "world" });
app.get("/", hello);
app.get("/v1/instances/:instanceId", hello);
app.get("/healthz", async () => ({ status: "ok" }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`bare fastify ${require("fastify/package.json").version} listening on ${process.env.PORT}\n`);
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => {
    void app.close().finally(() => process.exit(0));
  });
}
