// node bench/support/wake-cost.mjs [redis port, default 6390]
// What a small socket write costs this process on this machine, by whether the peer (the local
// Redis Stack) is asleep or busy, beside an empty loop turn that wakes from idle: the figures
// behind "where a send's cost is" in docs/benchmarks.md (eighth round). CPU per step from
// process.cpuUsage (user and system apart); 100-byte ECHO commands. The round trip includes
// reading the reply, which wakes this process once more.
import net from "node:net";

const port = Number(process.argv[2] ?? 6390);
const N = 20_000;
const ECHO = `*2\r\n$4\r\nECHO\r\n$100\r\n${"a".repeat(100)}\r\n`;

function report(what, usage, n) {
  const user = (usage.user / n).toFixed(1);
  const sys = (usage.system / n).toFixed(1);
  console.log(`${what.padEnd(58)} user ${user.padStart(5)} µs  system ${sys.padStart(5)} µs`);
}

/** One step per timer turn: the process sleeps between steps (a timer of 0 ms waits ~1 ms). */
function paced(n, step) {
  return new Promise((resolve) => {
    let i = 0;
    const tick = () => {
      step(i);
      if (++i < n) setTimeout(tick, 0);
      else resolve();
    };
    tick();
  });
}

const socket = net.connect(port, "127.0.0.1");
socket.setNoDelay(true);
await new Promise((resolve, reject) => {
  socket.once("connect", resolve);
  socket.once("error", reject);
});
socket.on("data", () => {});

let t = process.cpuUsage();
await paced(N / 4, () => {});
report("empty loop turn, woken from idle by its timer", process.cpuUsage(t), N / 4);

t = process.cpuUsage();
await paced(N / 4, () => socket.write(ECHO));
report("a round trip per turn (the write wakes Redis, its reply us)", process.cpuUsage(t), N / 4);

t = process.cpuUsage();
for (let i = 0; i < N; i++) socket.write(ECHO);
report("back-to-back writes (Redis kept busy: no wake-ups)", process.cpuUsage(t), N);

socket.destroy();
