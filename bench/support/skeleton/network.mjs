// The skeleton's network: one connection per instance, as on the real network (and simnet). Each
// send is answered at once with its acceptance; the recipient's 'delivered' ack follows a second
// later in a write of its own (simnet's default ack step, SIMNET_ACK_DELAY_MS).
import { createServer } from "node:net";
import { ACK_DELAY_MS, frameWriter, onFrames } from "./frames.mjs";

let seq = 0;
const server = createServer((socket) => {
  socket.setNoDelay(true);
  const write = frameWriter(socket);
  onFrames(socket, (f) => {
    const id = `3EB0${(++seq).toString(16).toUpperCase().padStart(20, "0")}`;
    write({ n: f.n, id, t: Math.floor(Date.now() / 1000) });
    setTimeout(() => write({ ack: id, to: f.to, status: "delivered" }), ACK_DELAY_MS);
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\n"));
