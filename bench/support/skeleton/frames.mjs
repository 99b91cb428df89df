// Newline-delimited JSON over one TCP connection, the frames of a loop turn in one write: the
// cheapest framing the real channel (services/session/src/channel.ts) and simnet's socket could use.
/** The network's 'delivered' ack follows each send by this much (simnet's default ack step). */
export const ACK_DELAY_MS = 1_000;

export function frameWriter(socket) {
  let pending = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const out = pending.join("");
    pending = [];
    socket.write(out);
  };
  return (obj) => {
    pending.push(`${JSON.stringify(obj)}\n`);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

export function onFrames(socket, fn) {
  let rest = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      fn(JSON.parse(text.slice(start, nl)));
      start = nl + 1;
    }
    rest = text.slice(start);
  });
}
