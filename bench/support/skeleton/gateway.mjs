// The skeleton's gateway: the bench's POST route on Fastify, one Redis call per request for auth
// and the shared rate limit (an HINCRBY, auto-pipelined: the least a shared bucket can cost), then
// the call to the pod over one multiplexed connection, and the pod's answer as the 201.
import { createRequire } from "node:module";
import { connect } from "node:net";
import { frameWriter, onFrames } from "./frames.mjs";

const require = createRequire(new URL("../../../services/gateway/package.json", import.meta.url));
const Fastify = require("fastify");
const { Redis } = createRequire(new URL("../../../services/platform/package.json", import.meta.url))("ioredis");
const redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: true });
const prefix = process.env.KEY_PREFIX;

const pod = connect(Number(process.env.POD_PORT), "127.0.0.1");
pod.setNoDelay(true);
const toPod = frameWriter(pod);
const waiting = new Map();
let c = 0;
onFrames(pod, (a) => {
  const w = waiting.get(a.c);
  waiting.delete(a.c);
  w(a);
});

const app = Fastify({ logger: false });
app.post("/v1/instances/:instanceId/messages/text", async (req, reply) => {
  await redis.hincrby(`${prefix}bucket:${req.params.instanceId}`, "n", 1);
  const chatId = `${String(req.body?.chatId ?? "")}@c.us`;
  const mine = ++c;
  const answer = await new Promise((resolve) => {
    waiting.set(mine, resolve);
    toPod({ c: mine, i: Number(req.params.instanceId.slice(1)), chatId, text: req.body?.text });
  });
  return reply.code(201).send({ chatId: answer.chatId, id: answer.id, status: answer.status });
});
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.stdout.write("listening\n");
