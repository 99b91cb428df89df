// The skeleton's session pod: one network connection per instance (INSTANCES of them, as a pod
// holds one per connected number). It takes a call from the gateway's channel, sends it on its
// instance's connection, records the sent message (one XADD: its message.any event, the least a
// durable record can be) before it answers, and records each ack (one XADD). No lease check,
// read model, kept message or validation.
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { frameWriter, onFrames } from "./frames.mjs";

const require = createRequire(new URL("../../../services/platform/package.json", import.meta.url));
const { Redis } = require("ioredis");
const redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: true });
const prefix = process.env.KEY_PREFIX;
const instances = Number(process.env.INSTANCES);

const waiting = new Map();
const record = (event) => redis.xadd(`${prefix}events`, "MAXLEN", "~", "100000", "*", "e", JSON.stringify(event));
const links = await Promise.all(
  Array.from({ length: instances }, async () => {
    const socket = connect(Number(process.env.NETWORK_PORT), "127.0.0.1");
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once("connect", resolve));
    onFrames(socket, (f) => {
      if (f.ack) return void record({ event: "message.ack", payload: f });
      const w = waiting.get(f.n);
      waiting.delete(f.n);
      w(f);
    });
    return frameWriter(socket);
  }),
);

let n = 0;
const server = createServer((socket) => {
  socket.setNoDelay(true);
  const answer = frameWriter(socket);
  onFrames(socket, (call) => {
    const mine = ++n;
    waiting.set(mine, async (sent) => {
      const msg = {
        id: `true_${call.chatId}_${sent.id}`,
        chatId: call.chatId,
        body: call.text,
        fromMe: true,
        timestamp: sent.t,
      };
      await record({ event: "message.any", payload: msg });
      answer({ c: call.c, chatId: call.chatId, id: msg.id, status: "sent" });
    });
    links[call.i % instances]({ n: mine, to: call.chatId, text: call.text });
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\n"));
