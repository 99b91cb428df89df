// The baseline of `pnpm bench send`: a bare Fastify server (the gateway's own fastify, no logger,
// no hooks) that answers the send route's request shape — POST
// /v1/instances/:instanceId/messages/text with a JSON body — with 201 and a response of the send
// route's shape, so that both targets get byte-for-byte the same load from autocannon and parse
// the same body. PORT from the environment.
import { createRequire } from "node:module";

const require = createRequire(new URL("../../services/gateway/package.json", import.meta.url));
const Fastify = require("fastify");

const app = Fastify({ logger: false });
let seq = 0;
app.post("/v1/instances/:instanceId/messages/text", async (req, reply) => {
  const chatId = String(req.body?.chatId ?? "");
  const id = `3EB0${(++seq).toString(16).toUpperCase().padStart(20, "0")}`;
  return reply.code(201).send({ chatId, id: `true_${chatId}_${id}`, status: "sent" });
});
app.get("/healthz", async () => ({ status: "ok" }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`bare fastify ${require("fastify/package.json").version} listening on ${process.env.PORT}\n`);
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => {
    void app.close().finally(() => process.exit(0));
  });
}
