// The flaky webhook receiver of the chaos bench: answers most deliveries 200, some 500, and lets
// some hang past the 10 s delivery timeout (spec 6.4), so that the retry path runs under the kills.
// It records every envelope that it answered 2xx (the only ones that count as delivered).
import { createServer } from "node:http";

export async function startReceiver({ failRate = 0.1, hangRate = 0.03, hangMs = 12_000, random = Math.random }) {
  /** event id → {event, instanceId, payload, deliveries} of the envelopes answered 2xx. */
  const delivered = new Map();
  const stats = { requests: 0, ok: 0, failed: 0, hung: 0, duplicates: 0 };
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      stats.requests++;
      const roll = random();
      if (roll < hangRate) {
        stats.hung++;
        setTimeout(() => res.writeHead(200).end(), hangMs).unref(); // too late: the sender gave up
        return;
      }
      if (roll < hangRate + failRate) {
        stats.failed++;
        res.writeHead(500).end();
        return;
      }
      let env;
      try {
        env = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      stats.ok++;
      const seen = delivered.get(env.id);
      if (seen) {
        seen.deliveries++;
        stats.duplicates++;
      } else {
        delivered.set(env.id, { event: env.event, instanceId: env.instanceId, payload: env.payload, deliveries: 1 });
      }
      res.writeHead(200).end();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    delivered,
    stats,
    /** Stops failing and hanging (the settling phase at the end lets retries succeed). */
    heal() {
      failRate = 0;
      hangRate = 0;
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(r);
      }),
  };
}
