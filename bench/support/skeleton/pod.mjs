// The skeleton's session pod: takes a call from the gateway's channel, sends it on the network,
// records the sent message (one XADD: its message.any event, the least a durable record can be)
// before it answers, and records each ack (one XADD). No lease check, read model or validation.
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { frameWriter, onFrames } from "./frames.mjs";

const require = createRequire(new URL("../../../services/platform/package.json", import.meta.url));
const { Redis } = require("ioredis");
const redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: true });
const prefix = process.env.KEY_PREFIX;

const net = connect(Number(process.env.NETWORK_PORT), "127.0.0.1");
net.setNoDelay(true);
const toNet = frameWriter(net);
const waiting = new Map();
let n = 0;
onFrames(net, (f) => {
  if (f.ack) {
    void redis.xadd(
      `${prefix}events`,
      "MAXLEN",
      "~",
      "100000",
      "*",
      "e",
      JSON.stringify({ event: "message.ack", ...f }),
    );
    return;
  }
  const w = waiting.get(f.n);
  waiting.delete(f.n);
  w(f);
});

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
      await redis.xadd(
        `${prefix}events`,
        "MAXLEN",
        "~",
        "100000",
        "*",
        "e",
        JSON.stringify({ event: "message.any", payload: msg }),
      );
      answer({ c: call.c, chatId: call.chatId, id: msg.id, status: "sent" });
    });
    toNet({ n: mine, to: call.chatId, text: call.text });
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\n"));
