// pnpm bench streams — the live event streams (docs/streams.md) with 1,000 clients on one gateway
// while events flow, every part in its own process on this machine: a producer publishes events
// (bench/support/webhook-producer.mjs: platform.events.publish, the instance's 7-day stream among
// its writes), gateway A (services/main/src/main.ts, ROLES=gateway) serves the clients, gateway B
// (same key prefix) is the replica they move to, and the clients live in this process.
//
// 1. Memory: gateway A's RSS after a full GC (through its inspector) before and after
//    BENCH_STREAM_CLIENTS (1,000) clients connect — SSE, and a BENCH_STREAM_WS_PERCENT (20) share
//    over WebSocket (with tickets) — spread over BENCH_STREAM_INSTANCES (50) instances: per connection.
// 2. Steady flow: BENCH_STREAM_RATE (200) events/s for BENCH_STREAM_SECONDS (20) s, round robin over
//    the instances (each event reaches clients/instances clients): delivery p50/p99/max from publish
//    (`envelope.timestamp`, set before the publish's round trip) to receipt, and gateway A's CPU per
//    delivered event.
// 3. Forced reconnect: the same flow for BENCH_STREAM_RECONNECT_S (10) s; halfway gateway A is
//    SIGKILLed, every client reconnects to gateway B with the last id it received (SSE:
//    Last-Event-ID, WebSocket: ?cursor=). Checked: each client received every event of its
//    instance from its first one to the last published, exactly once and in order.
// 4. Baseline, same run: a bare fan-out server (this file as BENCH_STREAMS_ROLE=baseline: one
//    XREAD BLOCK over the same streams, their entries decoded (services/platform/src/events/
//    history-codec.ts), node:http SSE, no auth, filters, resume or bounds) with
//    the same clients (all SSE) and the same flow: per-connection memory, p99, CPU per event.
//
// Environment: BENCH_STREAM_CLIENTS, BENCH_STREAM_INSTANCES, BENCH_STREAM_WS_PERCENT,
// BENCH_STREAM_RATE, BENCH_STREAM_SECONDS, BENCH_STREAM_RECONNECT_S, BENCH_CPU_PROF=1 (gateway A
// under `node --cpu-prof`, stopped with SIGTERM instead of SIGKILL so that its profile is written;
// its hot spots during the steady phase are printed; figures under the profiler are not comparable).

import { mkdirSync } from "node:fs";
import { get as httpGet, createServer as httpServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readHistoryEntry } from "../services/platform/src/events/history-codec.ts";
import {
  collectGarbage,
  cpuMeter,
  formatCores,
  freePorts,
  intEnv,
  log,
  onCleanup,
  percentile,
  printMachineFacts,
  ROOT,
  requireFrom,
  rssKiB,
  runCleanups,
  sleep,
  spawnService,
  stackRedisPid,
  startGateway,
  waitForHttp,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";

export const description =
  "live event streams: 1,000 SSE/WebSocket clients on one gateway while events flow — delivery p99 publish→client, memory per connection, CPU per delivered event, nothing lost across a forced reconnect (gateway killed, clients move to a replica), vs a bare XREAD→SSE fan-out";

const fmt = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";

async function call(url, method = "GET", body, headers = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------------------------
// Clients: SSE over node:http (a connection each), WebSocket through Node's own client.

/** Every client's receipts: the latency samples of the phase being measured (an array), and a count. */
const receipts = { measuring: null, delivered: 0 };

function record(client, data) {
  const at = Date.now();
  const env = JSON.parse(data);
  client.ids.push(env.id);
  client.lastId = env.id;
  receipts.delivered++;
  receipts.measuring?.push(at - env.timestamp);
}

function openSse(client, url, headers) {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`SSE ${url}: ${res.statusCode}`));
      }
      let pending = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        pending += chunk;
        for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const at = block.indexOf("data: ");
          if (at >= 0 && !block.includes("event: overflow")) record(client, block.slice(at + 6));
          else if (block.includes("event: overflow")) client.overflows++;
        }
      });
      res.on("close", () => client.onClosed());
      resolve();
    });
    req.on("error", (err) => (client.connected ? client.onClosed() : reject(err)));
    client.close = () => req.destroy();
  });
}

function openWs(client, url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let opened = false;
    ws.onmessage = (m) => record(client, String(m.data));
    ws.onopen = () => {
      opened = true;
      resolve();
    };
    ws.onclose = (e) => {
      if (e.code === 4008) client.overflows++;
      if (opened) client.onClosed();
      else reject(new Error(`WebSocket ${url}: closed ${e.code}`));
    };
    client.close = () => ws.close();
  });
}

/** A stream client of one instance: `connect(base)` (re)opens it, after its last id if it has one. */
function streamClient(instance, kind, auth) {
  const client = {
    instance,
    kind,
    ids: [],
    lastId: null,
    overflows: 0,
    connected: false,
    reconnects: 0,
    close: () => {},
    onClosed: () => {
      client.connected = false;
    },
    async connect(base) {
      const cursor = client.lastId;
      if (kind === "ws") {
        const ticket = encodeURIComponent(await auth.ticket(base, instance));
        const q = `?ticket=${ticket}${cursor ? `&cursor=${cursor}` : ""}`;
        await openWs(client, `${base.replace(/^http/, "ws")}/v1/instances/${instance.id}/ws${q}`);
      } else if (kind === "baseline") {
        await openSse(client, `${base}/stream/${instance.id}`, {});
      } else {
        const headers = { "x-instance-token": instance.token, ...(cursor ? { "last-event-id": cursor } : {}) };
        await openSse(client, `${base}/v1/instances/${instance.id}/events/stream`, headers);
      }
      client.connected = true;
    },
  };
  return client;
}

async function connectAll(clients, base, concurrency = 50) {
  let next = 0;
  const lane = async () => {
    while (next < clients.length) await clients[next++].connect(base);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

// ---------------------------------------------------------------------------------------------
// Measurements

/** RSS after a full GC, in KiB: the gateway's through its inspector, the baseline's through its /gc. */
async function settledRss(target) {
  if (target.inspectorPort) {
    await collectGarbage(target.inspectorPort);
    return rssKiB(target.pid);
  }
  return (await call(`${target.url}/gc`)).rssKiB;
}

/**
 * A steady phase: publishes `rate`/s for `seconds` and waits until every client has its events.
 * Every receipt meanwhile is this phase's (the previous phase was waited for the same way).
 */
async function steadyPhase({ producerUrl, rate, seconds, meter, clients }) {
  const latencies = [];
  const deliveredBefore = receipts.delivered;
  const cpu = meter();
  const t0 = performance.now();
  receipts.measuring = latencies;
  const result = await call(`${producerUrl}/steady`, "POST", { rate, seconds });
  // Each event reaches every client of its instance (as many per instance: clients ÷ instances).
  const expected = result.ids.length * (clients.length / new Set(clients.map((c) => c.instance.id)).size);
  const deadline = Date.now() + 30_000;
  while (receipts.delivered - deliveredBefore < expected && Date.now() < deadline) await sleep(50);
  const cores = cpu.stop();
  const wallS = (performance.now() - t0) / 1000;
  receipts.measuring = null;
  const early = latencies;
  const sorted = Float64Array.from(early).sort();
  return {
    published: result.ids.length,
    ratePerS: result.ratePerS,
    delivered: receipts.delivered - deliveredBefore,
    expected,
    wallS,
    cores,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
  };
}

// ---------------------------------------------------------------------------------------------
// The baseline fan-out server (BENCH_STREAMS_ROLE=baseline): what any implementation must do.

async function baselineServer() {
  const { Redis } = requireFrom("services/platform")("ioredis");
  const redis = new Redis(process.env.REDIS_URL);
  const prefix = process.env.KEY_PREFIX;
  const clients = new Map(); // key → Set<res>
  const positions = new Map();
  httpServer((req, res) => {
    if (req.url === "/healthz") return res.end("ok");
    if (req.url === "/gc") {
      globalThis.gc?.();
      res.setHeader("content-type", "application/json");
      return res.end(JSON.stringify({ rssKiB: Math.round(process.memoryUsage().rss / 1024) }));
    }
    const key = `${prefix}recent:${req.url.slice("/stream/".length)}`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
    res.write("retry: 1000\n\n");
    let set = clients.get(key);
    if (!set) {
      set = new Set();
      clients.set(key, set);
      // From the stream's end now (as the gateway's feeds): "$" in a loop of reads would skip entries.
      positions.set(key, null);
      void redis.xrevrange(key, "+", "-", "COUNT", 1).then(([row]) => positions.set(key, row ? row[0] : "0-0"));
    }
    set.add(res);
    res.on("close", () => set.delete(res));
  }).listen(Number(process.env.PORT), "127.0.0.1");
  for (;;) {
    const keys = [...clients.keys()].filter((k) => positions.get(k) !== null);
    if (keys.length === 0) {
      await sleep(100);
      continue;
    }
    const got = await redis.xread(
      "COUNT",
      500,
      "BLOCK",
      1000,
      "STREAMS",
      ...keys,
      ...keys.map((k) => positions.get(k)),
    );
    for (const [key, entries] of got ?? []) {
      positions.set(key, entries[entries.length - 1][0]);
      // The history's entries as it keeps them (history-codec.ts): decoding is part of the work.
      const frames = entries
        .map(([, f]) => readHistoryEntry(f))
        .map((e) => `id: ${e.id}\nevent: ${e.kind}\ndata: ${e.envelope}\n\n`)
        .join("");
      const chunk = Buffer.from(frames);
      for (const res of clients.get(key) ?? []) res.write(chunk);
    }
  }
}

if (process.env.BENCH_STREAMS_ROLE === "baseline" && process.argv[1] === fileURLToPath(import.meta.url)) {
  await baselineServer();
}

// ---------------------------------------------------------------------------------------------

export default async function streamsBench() {
  const clientCount = intEnv("BENCH_STREAM_CLIENTS", 1000);
  const instanceCount = intEnv("BENCH_STREAM_INSTANCES", 50);
  const wsPercent = intEnv("BENCH_STREAM_WS_PERCENT", 20, { min: 0 });
  const rate = intEnv("BENCH_STREAM_RATE", 200);
  const seconds = intEnv("BENCH_STREAM_SECONDS", 20);
  const reconnectS = intEnv("BENCH_STREAM_RECONNECT_S", 10);
  const profile = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
  const profileDir = join(
    ROOT,
    ".local",
    "bench",
    "profiles",
    `streams-${new Date().toISOString().replace(/[:.]/g, "-")}`,
  );
  const startedAt = Date.now();

  console.log(
    `bench streams: ${clientCount} stream clients (${wsPercent}% WebSocket) over ${instanceCount} instances, ${rate} events/s`,
  );
  printMachineFacts();
  console.log(
    "clients: in the bench process (node:http SSE, Node's WebSocket); producer, gateways, baseline: own processes",
  );

  const out = {};
  try {
    // --- processes -------------------------------------------------------------------------
    const [inspectorPort, producerPort, baselinePort] = await freePorts(3);
    log("starting gateway A (with its inspector, for GC before memory readings) and gateway B");
    if (profile) mkdirSync(profileDir, { recursive: true });
    const a = await startGateway({
      nodeArgs: [
        `--inspect=127.0.0.1:${inspectorPort}`,
        ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
      ],
    });
    const shared = {
      KEY_PREFIX: a.prefix,
      ADMIN_TOKEN: a.adminToken,
      INTERNAL_SECRET: a.env.INTERNAL_SECRET,
      WEBHOOK_SECRET_KEY: a.env.WEBHOOK_SECRET_KEY,
    };
    const b = await startGateway({ nodeArgs: [], env: shared });
    const producer = spawnService({
      name: "producer",
      command: process.execPath,
      args: ["--import", "tsx", join(ROOT, "bench", "support", "webhook-producer.mjs")],
      env: { ...a.env, PORT: String(producerPort), WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    const producerUrl = `http://127.0.0.1:${producerPort}`;
    await waitForHttp(`${producerUrl}/healthz`, { service: producer });

    // --- instances and clients ----------------------------------------------------------------
    // The producer creates the instances it publishes for (each with a webhook it never delivers:
    // no worker runs); their tokens come from rotating them through the admin API.
    const setup = await call(`${producerUrl}/setup`, "POST", { n: instanceCount, url: "http://127.0.0.1:9/unused" });
    const instances = [];
    for (const id of Object.keys(setup.secrets)) {
      const { token } = await (await a.admin("POST", `/v1/admin/instances/${id}/token`)).json();
      // Made by the platform API, not provisioned yet: streams (as GET /events) need it.
      const res = await a.admin("PUT", `/v1/admin/instances/${id}/provisioning`, { provisioned: true });
      if (!res.ok) throw new Error(`provisioning ${id}: ${res.status} ${await res.text()}`);
      instances.push({ id, token });
    }
    const auth = {
      async ticket(base, instance) {
        const res = await call(`${base}/v1/instances/${instance.id}/stream-ticket`, "POST", undefined, {
          "x-instance-token": instance.token,
        });
        return res.ticket;
      },
    };
    const wsEvery = wsPercent > 0 ? Math.round(100 / wsPercent) : Number.POSITIVE_INFINITY;
    const clients = Array.from({ length: clientCount }, (_, i) =>
      streamClient(instances[i % instanceCount], i % wsEvery === wsEvery - 1 ? "ws" : "sse", auth),
    );
    const target = { inspectorPort, pid: a.service.pid };
    const meterOf = (services) => () =>
      cpuMeter({ services, pids: { redis: stackRedisPid() }, self: "bench (clients)" });

    // --- 1. memory per connection --------------------------------------------------------------
    const rssIdle = await settledRss(target);
    log(`connecting ${clientCount} clients to gateway A`);
    const t0 = Date.now();
    await connectAll(clients, a.url);
    out.connectMs = Date.now() - t0;
    await sleep(500);
    const rssConnected = await settledRss(target);
    out.memory = { rssIdle, rssConnected, perConnKiB: (rssConnected - rssIdle) / clientCount };

    // --- 2. steady flow --------------------------------------------------------------------------
    log("warm-up: 3 s of events");
    await steadyPhase({ producerUrl, rate, seconds: 3, meter: meterOf([a.service]), clients });
    log(`steady: ${rate} events/s for ${seconds}s`);
    const steadyFrom = Number(process.hrtime.bigint() / 1000n);
    out.steady = await steadyPhase({ producerUrl, rate, seconds, meter: meterOf([a.service, producer]), clients });
    out.window = { startUs: steadyFrom, endUs: Number(process.hrtime.bigint() / 1000n) };
    out.memory.rssAfterFlow = await settledRss(target);
    const silent = clients.filter((c) => c.lastId === null).length;
    if (silent > 0) throw new Error(`${silent} clients received nothing: the reconnect check needs an id each`);

    // --- 3. forced reconnect -------------------------------------------------------------------
    log(`forced reconnect: ${rate} events/s for ${reconnectS}s, gateway A SIGKILLed halfway`);
    for (const c of clients) {
      c.onClosed = () => {
        c.connected = false;
        c.closedAt ??= Date.now();
      };
    }
    const firstIds = new Map(clients.map((c) => [c, c.ids[0]]));
    const flow = call(`${producerUrl}/steady`, "POST", { rate, seconds: reconnectS });
    await sleep((reconnectS * 1000) / 2);
    const killedAt = Date.now();
    process.kill(a.service.pid, profile ? "SIGTERM" : "SIGKILL");
    await Promise.race([a.service.exited, sleep(5_000)]);
    const noticeStart = Date.now();
    while (clients.some((c) => c.connected) && Date.now() - noticeStart < 10_000) await sleep(20);
    // Each client that noticed reconnects to the replica with the last id it received.
    const reconnectStarted = Date.now();
    const pendingClients = () => clients.filter((c) => !c.connected);
    while (pendingClients().length > 0 && Date.now() - reconnectStarted < 30_000) {
      const batch = pendingClients();
      await connectAll(
        batch.map((c) => ({
          connect: async (base) => {
            c.reconnects++;
            await c.connect(base).catch(() => {});
          },
        })),
        b.url,
      );
      if (pendingClients().length > 0) await sleep(100);
    }
    out.reconnect = { ms: Date.now() - killedAt, stillDown: pendingClients().length };
    const flowResult = await flow;
    // Done when every client holds its instance's last event.
    const redis = new (requireFrom("services/platform")("ioredis").Redis)(a.redisUrl);
    onCleanup(() => redis.disconnect());
    const histories = new Map();
    for (const inst of instances) {
      const rows = await redis.xrange(`${a.prefix}recent:${inst.id}`, "-", "+");
      histories.set(
        inst.id,
        rows.map(([, f]) => readHistoryEntry(f).id),
      );
    }
    const caughtUp = () => clients.every((c) => c.lastId === histories.get(c.instance.id).at(-1));
    const waitStart = Date.now();
    while (!caughtUp() && Date.now() - waitStart < 30_000) await sleep(100);
    let missing = 0;
    let duplicates = 0;
    let disordered = 0;
    for (const c of clients) {
      const history = histories.get(c.instance.id);
      const expected = history.slice(history.indexOf(firstIds.get(c)));
      const got = c.ids;
      duplicates += got.length - new Set(got).size;
      const seen = new Set(got);
      missing += expected.filter((id) => !seen.has(id)).length;
      if (got.length === expected.length && got.some((id, i) => id !== expected[i])) disordered++;
    }
    out.check = {
      missing,
      duplicates,
      disordered,
      published: flowResult.ids.length,
      overflows: clients.reduce((s, c) => s + c.overflows, 0),
    };
    for (const c of clients) c.close();
    await b.stop();

    // --- 4. baseline -----------------------------------------------------------------------------
    log("baseline: a bare XREAD → SSE fan-out, the same clients and flow");
    const baseline = spawnService({
      name: "baseline",
      command: process.execPath,
      args: ["--expose-gc", fileURLToPath(import.meta.url)],
      env: {
        ...process.env,
        BENCH_STREAMS_ROLE: "baseline",
        PORT: String(baselinePort),
        REDIS_URL: a.redisUrl,
        KEY_PREFIX: a.prefix,
      },
    });
    const baseUrl = `http://127.0.0.1:${baselinePort}`;
    await waitForHttp(`${baseUrl}/healthz`, { service: baseline });
    const baseClients = Array.from({ length: clientCount }, (_, i) =>
      streamClient(instances[i % instanceCount], "baseline", auth),
    );
    const baseTarget = { url: baseUrl };
    const baseIdle = await settledRss(baseTarget);
    await connectAll(baseClients, baseUrl);
    await sleep(500);
    const baseConnected = await settledRss(baseTarget);
    await steadyPhase({ producerUrl, rate, seconds: 3, meter: meterOf([baseline]), clients: baseClients });
    out.baseline = await steadyPhase({
      producerUrl,
      rate,
      seconds,
      meter: meterOf([baseline, producer]),
      clients: baseClients,
    });
    out.baseline.memory = {
      rssIdle: baseIdle,
      rssConnected: baseConnected,
      perConnKiB: (baseConnected - baseIdle) / clientCount,
    };
    for (const c of baseClients) c.close();
  } finally {
    await runCleanups();
  }

  // --- report ----------------------------------------------------------------------------------
  const { memory, steady, reconnect, check, baseline } = out;
  const usPerEvent = (run, name) => ((run.cores[name] ?? Number.NaN) * run.wallS * 1e6) / run.delivered;
  console.log("");
  console.log(`connect: ${fmt(clientCount)} clients in ${fmt(out.connectMs)} ms (50 at a time)`);
  console.log(
    `memory (RSS after a full GC): gateway ${fmt(memory.rssIdle / 1024, 1)} MiB idle → ${fmt(memory.rssConnected / 1024, 1)} MiB with the clients ` +
      `(${fmt(memory.perConnKiB, 1)} KiB per connection); ${fmt(memory.rssAfterFlow / 1024, 1)} MiB after the flow`,
  );
  if (profile) console.log("gateway A under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs");
  console.log(
    `            baseline ${fmt(baseline.memory.rssIdle / 1024, 1)} MiB → ${fmt(baseline.memory.rssConnected / 1024, 1)} MiB ` +
      `(${fmt(baseline.memory.perConnKiB, 1)} KiB per connection)`,
  );
  const rows = [
    ["target", "events", "deliveries", "p50 ms", "p99 ms", "max ms", "µs CPU/delivery"],
    ...[
      ["gateway", steady, "gateway"],
      ["bare fan-out", baseline, "baseline"],
    ].map(([title, r, name]) => [
      title,
      fmt(r.published),
      `${fmt(r.delivered)}/${fmt(r.expected)}`,
      fmt(r.p50, 1),
      fmt(r.p99, 1),
      fmt(r.max, 1),
      fmt(usPerEvent(r, name), 1),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log("");
  for (const r of rows)
    console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
  console.log("");
  console.log(`steady cpu cores: ${formatCores(steady.cores)}`);
  console.log(`baseline cpu cores: ${formatCores(baseline.cores)}`);
  console.log(
    "latency: envelope.timestamp (ms, producer clock, before the publish round trip) to receipt (bench clock, same machine)",
  );
  console.log(
    `forced reconnect: gateway A ${profile ? "SIGTERMed" : "SIGKILLed"} mid-flow; every client back on gateway B ${fmt(reconnect.ms)} ms after the kill` +
      (reconnect.stillDown ? ` — ${reconnect.stillDown} NOT reconnected` : ""),
  );
  const ok = check.missing === 0 && check.duplicates === 0 && check.disordered === 0 && reconnect.stillDown === 0;
  console.log(
    `  per client, its instance's events from its first to the last published: missing ${check.missing}, ` +
      `duplicates ${check.duplicates}, out of order ${check.disordered}; overflow closes ${check.overflows}` +
      (ok ? " — nothing lost" : "  FAILED"),
  );
  console.log(`total runtime ${((Date.now() - startedAt) / 1000).toFixed(0)}s`);
  if (profile) {
    const [file] = newestProfiles(profileDir);
    console.log(
      file
        ? `\ngateway A CPU profile: ${file}\n${hotSpots(file, { top: 30, window: out.window })}`
        : "no profile written",
    );
  }
  return ok ? 0 : 1;
}
