#!/usr/bin/env node
// The local cluster's entry: a round-robin reverse proxy in front of the gateway replicas, in the
// place of the chart's Service (and an Ingress). ENTRY_PORT, ENTRY_TARGETS=http://127.0.0.1:p1,…
// Like a Service's endpoints, a replica that refuses connections (stopped, restarting) is skipped
// for a second and the request goes to the next one: nothing was sent yet, so it is safe to retry.
// WebSocket upgrades are piped through to the replica chosen for them.
import { Agent, createServer, request } from "node:http";
import { connect } from "node:net";

const port = Number(process.env.ENTRY_PORT ?? 0);
const targets = (process.env.ENTRY_TARGETS ?? "")
  .split(",")
  .filter(Boolean)
  .map((u) => new URL(u));
if (targets.length === 0) throw new Error("ENTRY_TARGETS is empty");
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const downUntil = new Map();
let next = 0;

/** Targets in round-robin order, the ones seen down in the last second last. */
function order() {
  const start = next++ % targets.length;
  const all = targets.map((_, i) => targets[(start + i) % targets.length]);
  const now = Date.now();
  return [...all.filter((t) => !(downUntil.get(t.host) > now)), ...all.filter((t) => downUntil.get(t.host) > now)];
}
const refused = (err) => ["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH"].includes(err.code);

const server = createServer((req, res) => {
  const candidates = order();
  const attempt = (i) => {
    const t = candidates[i];
    let piped = false;
    const up = request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.once("error", (err) => {
      // Only a connection that never opened is retried (the request body was not consumed).
      if (!piped && refused(err) && i + 1 < candidates.length) {
        downUntil.set(t.host, Date.now() + 1000);
        attempt(i + 1);
      } else if (!res.headersSent) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "bad_gateway", message: err.message } }));
      } else res.destroy(err);
    });
    const pipe = () => {
      piped = true;
      req.pipe(up);
    };
    up.once("socket", (s) => (s.connecting ? s.once("connect", pipe) : pipe()));
  };
  attempt(0);
});

server.on("upgrade", (req, socket, head) => {
  const t = order()[0];
  const up = connect(Number(t.port), t.hostname, () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length) up.write(head);
    up.pipe(socket).pipe(up);
  });
  up.on("error", () => socket.destroy());
  socket.on("error", () => up.destroy());
});

server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`entry listening on http://127.0.0.1:${server.address().port} → ${targets.join(", ")}\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));
