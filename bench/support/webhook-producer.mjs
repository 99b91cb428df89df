// The event producer of bench/webhooks.mjs, in its own process (so that publishing does not share
// a process, nor its event loop, with the bench's measurements): run as
// `node --import tsx bench/support/webhook-producer.mjs` with the platform's environment
// (KEY_PREFIX, REDIS_URL, WEBHOOK_SECRET_KEY — the worker's, so that it can open the secrets).
//
// It uses the platform API exactly as the services do: `platform.instances.create`,
// `platform.webhooks.create(instanceId, {url, events: ["*"]})` and
// `platform.events.publish(instance, "session.status", payload)` — one script call per event: XADD to
// the shard stream (every instance has a webhook for "*"), XADD to the instance's 7-day stream, PEXPIRE.
//
// Control (HTTP on 127.0.0.1:PORT, the bench process only), each answering when done:
//   POST /setup  {n, url}             n instances with one webhook each → {instances, secrets}
//   POST /burst  {count, window}      count events, `window` publishes in flight → {ids, …}
//   POST /steady {rate, seconds}      rate events/s, paced on a 2 ms tick → {ids, …}
// Events go round robin over the instances.
import { createServer } from "node:http";
import { createPlatform, loadConfig } from "../../services/platform/src/index.ts";

const port = Number(process.env.PORT);
const platform = await createPlatform(loadConfig(process.env));
/** Publish sources (what `publish` reads of an instance): real instance ids, a made-up phone. */
let sources = [];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function pool(count, concurrency, fn) {
  let next = 0;
  const lane = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

async function setup({ n, url }) {
  const started = Date.now();
  const created = new Array(n);
  const secrets = {};
  await pool(n, 16, async (i) => {
    const { instance } = await platform.instances.create({ name: `bench-webhooks-${i}`, kind: "standard" });
    const { secret } = await platform.webhooks.create(instance.id, { url, events: ["*"] });
    secrets[instance.id] = secret;
    created[i] = {
      id: instance.id,
      provider: instance.provider,
      // A connected instance's envelope carries `me`: same body size as real session events.
      phone: `5511${String(900000000 + i)}`,
      pushName: `Bench ${i}`,
      settings: instance.settings,
    };
  });
  sources = created;
  return { instances: n, secrets, ms: Date.now() - started };
}

const payload = () => ({
  status: "WORKING",
  previousStatus: "STARTING",
  reason: null,
  timestamp: Math.floor(Date.now() / 1000),
});

/** One publish; its id lands in ids[k], its round trip (ms) in rtt[k]. */
async function publishOne(k, ids, rtt) {
  const t = performance.now();
  const env = await platform.events.publish(sources[k % sources.length], "session.status", payload());
  rtt[k] = performance.now() - t;
  ids[k] = env.id;
}

function summary(ids, rtt, startedAt, endedAt, extra = {}) {
  const sorted = Float64Array.from(rtt).sort();
  return {
    ids,
    published: ids.length,
    startMs: startedAt,
    endMs: endedAt,
    ratePerS: (ids.length * 1000) / Math.max(1, endedAt - startedAt),
    publishRttMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] },
    ...extra,
  };
}

async function burst({ count, window }) {
  const ids = new Array(count);
  const rtt = new Float64Array(count);
  const startedAt = Date.now();
  await pool(count, window, (k) => publishOne(k, ids, rtt));
  return summary(ids, rtt, startedAt, Date.now(), { window });
}

async function steady({ rate, seconds }) {
  const total = Math.round(rate * seconds);
  const ids = new Array(total);
  const rtt = new Float64Array(total);
  const inFlight = [];
  const startedAt = Date.now();
  const t0 = performance.now();
  let sent = 0;
  let maxBehind = 0; // events due but not yet sent at a tick, at most
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000));
    maxBehind = Math.max(maxBehind, due - sent);
    while (sent < due) inFlight.push(publishOne(sent++, ids, rtt));
    if (sent < total) await sleep(2);
  }
  const lastSentAt = Date.now();
  await Promise.all(inFlight);
  return summary(ids, rtt, startedAt, lastSentAt, { rate, seconds, maxBehind });
}

const routes = { "/setup": setup, "/burst": burst, "/steady": steady };

createServer((req, res) => {
  const reply = (status, value) => {
    const body = JSON.stringify(value);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  if (req.url === "/healthz") return reply(200, { ok: true });
  const route = req.method === "POST" ? routes[req.url] : undefined;
  if (!route) return reply(404, { error: "unknown route" });
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    route(JSON.parse(Buffer.concat(chunks).toString() || "{}")).then(
      (out) => reply(200, out),
      (err) => reply(500, { error: String(err?.stack ?? err) }),
    );
  });
})
  .setTimeout(0)
  .listen(port, "127.0.0.1");

const stop = () => {
  void platform.close().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
