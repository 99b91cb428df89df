// The skeleton's network: answers each send at once with its acceptance and, in the same write,
// the recipient's 'delivered' ack (the real network sends that later, in a write of its own).
import { createServer } from "node:net";
import { frameWriter, onFrames } from "./frames.mjs";

let seq = 0;
const server = createServer((socket) => {
  socket.setNoDelay(true);
  const write = frameWriter(socket);
  onFrames(socket, (f) => {
    const id = `3EB0${(++seq).toString(16).toUpperCase().padStart(20, "0")}`;
    write({ n: f.n, id, t: Math.floor(Date.now() / 1000) });
    write({ ack: id, to: f.to, status: "delivered" });
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\n"));
