// pnpm bench webhooks — the webhook dispatcher end to end, every part in its own process on this
// machine: a producer publishes events (platform.events.publish: one script, XADD to the shard stream
// + XADD to the instance's 7-day stream), the worker (services/main/src/main.ts, ROLES=worker:
// the dispatcher's consumer group over `<prefix>events:<shard>`, first delivery attempt) POSTs
// them to a local receiver (node:http, 204 at once), which records when each arrived.
//
// 1. Max throughput: BENCH_EVENTS (50,000) published as fast as the producer can (BENCH_PUBLISH_WINDOW
//    publishes in flight): events/s delivered (receiver, first to last receipt) and p50/p99 from
//    event creation (`envelope.timestamp`) to receipt.
// 2. Steady BENCH_RATE (1,000) events/s for BENCH_STEADY_S (10) s: p50/p99 creation → receipt.
// 3. Baseline: raw undici POSTs of the same bodies from one process to the same receiver, as many in
//    flight as DISPATCH_CONCURRENCY: requests/s, and the ratio dispatcher/raw.
// Every published event id must reach the receiver at least once (checked; duplicates counted).
//
// Setup (not timed): N (BENCH_INSTANCES, 100) instances, one webhook each → the receiver, events
// ["*"], created by the producer process with the platform API (platform.instances.create,
// platform.webhooks.create); then BENCH_WARMUP_EVENTS (2,000) delivered and discarded (JIT, the
// dispatcher's target cache, the connection pool).
//
// Environment: BENCH_INSTANCES, BENCH_EVENTS, BENCH_PUBLISH_WINDOW (1000), BENCH_RATE,
// BENCH_STEADY_S, BENCH_WARMUP_EVENTS, BENCH_RAW_REQUESTS (30,000), BENCH_DISPATCH_CONCURRENCY
// (the worker's DISPATCH_CONCURRENCY, 256), BENCH_DRAIN_TIMEOUT_S (how long to wait for a phase's
// deliveries, 120), BENCH_VERIFY=1 (the receiver verifies every signature; costs receiver CPU),
// BENCH_CPU_PROF=1 (the worker runs as `node --cpu-prof --import tsx …`; its hot spots during
// the max-throughput phase are printed; figures under the profiler are not comparable).
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { up } from "../scripts/stack-lib.mjs";
import {
  cpuMeter,
  deleteRedisPrefix,
  formatCores,
  freePorts,
  intEnv,
  log,
  machineFacts,
  onCleanup,
  percentile,
  ROOT,
  requireFrom,
  runCleanups,
  sleep,
  spawnService,
  stackRedisPid,
  stackTemporalPid,
  waitForHttp,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";

export const description =
  "webhook dispatcher end to end (producer → Redis Streams → worker → local receiver): max events/s, p50/p99 creation→receipt, steady 1,000/s, vs raw undici POSTs (targets >= 5,000/s, p99 < 100 ms)";

const TARGET_RATE = 5_000;
const TARGET_P99_MS = 100;
const ENTRY = "services/main/src/main.ts";
const SUPPORT = join(ROOT, "bench", "support");
const DISPATCH_GROUP = "dispatch";

const flag = (name) => ["1", "true", "yes"].includes(process.env[name] ?? "");
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const fmt = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";

async function call(url, method = "GET", body) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 2000)}`);
  return JSON.parse(text);
}

/** Ready when the dispatcher's consumer has joined the group of every shard stream. */
async function waitForDispatcher(redis, streams, worker, consumers = 1, timeoutMs = 180_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (worker.exit) {
      throw new Error(`worker exited (code ${worker.exit.code}, signal ${worker.exit.signal}):\n${worker.tail()}`);
    }
    try {
      const joined = await Promise.all(streams.map((s) => redis.call("XINFO", "CONSUMERS", s, DISPATCH_GROUP)));
      if (joined.every((c) => c.length >= consumers)) return;
    } catch {
      // no group yet
    }
    await sleep(200);
  }
  throw new Error(`the dispatcher did not join its consumer group within ${timeoutMs / 1000}s:\n${worker.tail()}`);
}

/**
 * Waits until every id of `ids` reached the receiver (or no progress for `stallMs`, or the
 * deadline). Answers the receiver's records and when completion was seen (CLOCK_MONOTONIC µs).
 */
async function awaitDeliveries(receiverUrl, ids, { deadlineMs, stallMs = 20_000, services = [] }) {
  const deadline = Date.now() + deadlineMs;
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const { count } = await call(`${receiverUrl}/__stats`);
    if (count >= ids.length) {
      const doneUs = nowUs();
      const dump = await call(`${receiverUrl}/__dump`);
      const want = new Set(ids);
      for (const id of dump.ids) want.delete(id);
      if (want.size === 0) return { dump, doneUs, complete: true };
    }
    if (count !== last) {
      last = count;
      lastChange = Date.now();
    }
    const dead = services.find((s) => s.exit);
    if (dead) throw new Error(`${dead.name} exited (code ${dead.exit.code}) during the run:\n${dead.tail()}`);
    if (Date.now() > deadline || Date.now() - lastChange > stallMs) {
      log(`gave up waiting: ${count} of ${ids.length} received (${Date.now() > deadline ? "deadline" : "stalled"})`);
      return { dump: await call(`${receiverUrl}/__dump`), doneUs: nowUs(), complete: false };
    }
    await sleep(50);
  }
}

/** First receipt of every expected id: delivered/s, latency creation → receipt, per-second counts. */
function analyse(dump, ids, { producerEndMs } = {}) {
  const want = new Set(ids);
  const seen = new Set();
  const lat = [];
  const recv = [];
  let duplicates = 0;
  let foreign = 0;
  for (let i = 0; i < dump.ids.length; i++) {
    const id = dump.ids[i];
    if (!want.has(id)) {
      foreign++;
      continue;
    }
    if (seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    lat.push(dump.received[i] - dump.created[i]);
    recv.push(dump.received[i]);
  }
  const latSorted = Float64Array.from(lat).sort();
  const recvSorted = Float64Array.from(recv).sort();
  const n = recvSorted.length;
  const firstAt = recvSorted[0];
  const lastAt = recvSorted[n - 1];
  const perSecond = [];
  const latBySecond = [];
  for (let i = 0; i < n; i++) {
    const s = Math.floor((recv[i] - firstAt) / 1000);
    perSecond[s] = (perSecond[s] ?? 0) + 1;
    latBySecond[s] ??= [];
    latBySecond[s].push(lat[i]);
  }
  // Deliveries after the producer was done: the dispatcher draining the backlog, with the producer idle.
  let drain;
  if (producerEndMs !== undefined && lastAt - producerEndMs > 500) {
    const after = recvSorted.filter((t) => t > producerEndMs).length;
    drain = { count: after, rate: (after * 1000) / (lastAt - producerEndMs) };
  }
  return {
    expected: ids.length,
    delivered: n,
    missing: ids.length - n,
    duplicates,
    foreign,
    rate: n > 1 ? ((n - 1) * 1000) / (lastAt - firstAt) : Number.NaN,
    spanS: (lastAt - firstAt) / 1000,
    firstAt,
    lastAt,
    p50: percentile(latSorted, 50),
    p99: percentile(latSorted, 99),
    max: latSorted[n - 1],
    perSecond: Array.from(perSecond, (v) => v ?? 0),
    p99BySecond: Array.from(latBySecond, (v) => (v ? percentile(Float64Array.from(v).sort(), 99) : Number.NaN)),
    drain,
  };
}

/** Entries read by the dispatcher and not acknowledged, over every shard. */
async function pendingEntries(redis, streams) {
  let total = 0;
  for (const s of streams) {
    const [count] = await redis.xpending(s, DISPATCH_GROUP);
    total += Number(count);
  }
  return total;
}

/** Status of every delivery record under the prefix (only when something went missing). */
async function deliveryStatuses(redis, prefix) {
  const out = {};
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}dlv:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length === 0) continue;
    for (const raw of await redis.mget(...keys)) {
      const d = raw ? JSON.parse(raw) : undefined;
      const key = d ? `${d.status}${d.error ? ` (${d.error})` : ""}` : "gone";
      out[key] = (out[key] ?? 0) + 1;
    }
  } while (cursor !== "0");
  return out;
}

export default async function webhooksBench() {
  const n = intEnv("BENCH_INSTANCES", 100);
  const burstEvents = intEnv("BENCH_EVENTS", 50_000);
  const publishWindow = intEnv("BENCH_PUBLISH_WINDOW", 1_000);
  const rate = intEnv("BENCH_RATE", 1_000);
  const steadyS = intEnv("BENCH_STEADY_S", 10);
  const warmupEvents = intEnv("BENCH_WARMUP_EVENTS", 2_000, { min: 0 });
  const rawRequests = intEnv("BENCH_RAW_REQUESTS", 30_000);
  const concurrency = intEnv("BENCH_DISPATCH_CONCURRENCY", 256);
  const drainTimeoutMs = intEnv("BENCH_DRAIN_TIMEOUT_S", 120) * 1000;
  const verifying = flag("BENCH_VERIFY");
  const profile = flag("BENCH_CPU_PROF");
  const startedAt = Date.now();
  const out = console.log;

  const m = machineFacts();
  out("bench webhooks: event dispatcher end to end (producer → Redis Streams → worker → HTTP receiver)");
  out(`machine: nproc ${m.nproc}, ${m.cpu}, ${m.memGiB} GiB, ${m.os}`);
  out(`node ${m.node}; load average before the run: ${m.loadavg}`);
  out(
    `worker: services/main/src/main.ts ROLES=worker, DISPATCH_CONCURRENCY=${concurrency}, NODE_ENV=production, LOG_LEVEL=warn`,
  );
  out(
    `receiver: own process, node:http on 127.0.0.1, 204 at once; signature verification ${
      verifying ? "ON (BENCH_VERIFY=1: every request verified, costs receiver CPU)" : "OFF (BENCH_VERIFY=1 turns it on)"
    }`,
  );
  out(
    `producer: own process, platform.events.publish (one script: XADD shard stream + XADD 7-day stream + PEXPIRE), ` +
      `round robin over ${n} instances with one webhook each (events ["*"])`,
  );
  out("bench process: control and analysis only; every process on this machine, Redis Stack and Temporal local");
  if (profile) out("worker under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs");

  const stack = await up({ quiet: true });
  const { Redis } = requireFrom("services/platform")("ioredis");
  const redis = new Redis(stack.redisUrl, { connectionName: "bench-webhooks", maxRetriesPerRequest: 2 });
  onCleanup(() => redis.disconnect());
  const prefix = `benchwh${randomBytes(4).toString("hex")}:`;
  const streams = Array.from({ length: 4 }, (_, i) => `${prefix}events:${i}`); // EVENT_SHARDS default
  const [receiverPort, producerPort] = await freePorts(2);
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  const producerUrl = `http://127.0.0.1:${producerPort}`;
  const env = {
    ...process.env,
    NODE_ENV: "production",
    ADMIN_TOKEN: `bench-admin-${randomBytes(12).toString("hex")}`,
    INTERNAL_SECRET: `bench-internal-${randomBytes(16).toString("hex")}`,
    WORKER_PORT: "0", // several workers on one machine
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE: "true",
    KEY_PREFIX: prefix,
    REDIS_URL: stack.redisUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: `bench-webhooks-${randomBytes(4).toString("hex")}`,
    LOG_LEVEL: "warn",
    EVENT_SHARDS: "4",
    DISPATCH_CONCURRENCY: String(concurrency),
  };
  // Registered before the processes: runs after they have stopped (cleanups run last-in first-out).
  onCleanup(async () => {
    const r = await deleteRedisPrefix(stack.redisUrl, prefix);
    log(`redis: deleted ${r.keys} keys and ${r.indexes} search indexes under "${prefix}"`);
  });

  const results = {};
  let profileDir;
  let code = 0;
  try {
    // --- processes -------------------------------------------------------------------------
    log("starting the receiver, the producer and the worker");
    const receiver = spawnService({
      name: "receiver",
      command: process.execPath,
      args: [...(verifying ? ["--import", "tsx"] : []), join(SUPPORT, "webhook-receiver.mjs")],
      env: { ...process.env, PORT: String(receiverPort), ...(verifying ? { RECEIVER_VERIFY: "1" } : {}) },
    });
    const producer = spawnService({
      name: "producer",
      command: process.execPath,
      args: ["--import", "tsx", join(SUPPORT, "webhook-producer.mjs")],
      env: { ...env, PORT: String(producerPort) },
    });
    if (profile) {
      profileDir = join(
        ROOT,
        ".local",
        "bench",
        "profiles",
        `webhooks-${new Date().toISOString().replace(/[:.]/g, "-")}`,
      );
      mkdirSync(profileDir, { recursive: true });
    }
    const workerStartedAt = Date.now();
    const worker = spawnService({
      name: "worker",
      command: process.execPath,
      args: [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), "--import", "tsx", ENTRY],
      env: { ...env, ROLES: "worker" },
    });
    // More dispatcher processes (BENCH_WORKERS, default 1): the consumer group spreads entries
    // over them, as over the chart's worker replicas.
    const extraWorkers = Array.from({ length: Math.max(0, intEnv("BENCH_WORKERS", 1) - 1) }, (_, i) =>
      spawnService({
        name: `worker-${i + 2}`,
        command: process.execPath,
        args: ["--import", "tsx", ENTRY],
        env: { ...env, ROLES: "worker" },
      }),
    );
    await waitForHttp(`${receiverUrl}/__healthz`, { service: receiver });
    await waitForHttp(`${producerUrl}/healthz`, { service: producer });

    // --- setup (while the worker starts: it bundles the Temporal workflows first) --------------
    const setup = await call(`${producerUrl}/setup`, "POST", { n, url: `${receiverUrl}/hook` });
    log(`created ${n} instances with one webhook each in ${(setup.ms / 1000).toFixed(1)}s`);
    if (verifying) await call(`${receiverUrl}/__secrets`, "POST", setup.secrets);
    await waitForDispatcher(redis, streams, worker);
    for (const w of extraWorkers) await waitForDispatcher(redis, streams, w, 1 + extraWorkers.length);
    log(`worker ready ${((Date.now() - workerStartedAt) / 1000).toFixed(1)}s after its start`);
    const services = [worker, ...extraWorkers, receiver, producer];
    const meterOf = () =>
      cpuMeter({ services, pids: { redis: stackRedisPid(), temporal: stackTemporalPid() }, self: "bench" });
    const allIds = [];
    const phases = [];

    // --- warm-up ---------------------------------------------------------------------------
    if (warmupEvents > 0) {
      log(`warm-up: ${warmupEvents} events`);
      const w = await call(`${producerUrl}/burst`, "POST", { count: warmupEvents, window: 100 });
      const got = await awaitDeliveries(receiverUrl, w.ids, { deadlineMs: 60_000, services });
      const a = analyse(got.dump, w.ids);
      phases.push({ title: "warm-up", a });
      allIds.push(...w.ids);
      log(`warm-up: ${a.delivered}/${a.expected} delivered, ${fmt(a.rate)} events/s`);
      await call(`${receiverUrl}/__reset`, "POST");
    }

    // --- 1. max throughput -----------------------------------------------------------------
    log(`max throughput: publishing ${burstEvents} events, ${publishWindow} in flight`);
    let meter = meterOf();
    const burstStartUs = nowUs();
    const pub = await call(`${producerUrl}/burst`, "POST", { count: burstEvents, window: publishWindow });
    log(`published ${burstEvents} in ${((pub.endMs - pub.startMs) / 1000).toFixed(1)}s; waiting for deliveries`);
    let got = await awaitDeliveries(receiverUrl, pub.ids, { deadlineMs: drainTimeoutMs, services });
    results.burst = {
      a: analyse(got.dump, pub.ids, { producerEndMs: pub.endMs }),
      pub,
      cores: meter.stop(),
      window: { startUs: burstStartUs, endUs: got.doneUs },
      receiverStats: { invalid: got.dump.invalid, badSignature: got.dump.badSignature },
    };
    phases.push({ title: "max throughput", a: results.burst.a });
    allIds.push(...pub.ids);
    log(`max throughput: ${fmt(results.burst.a.rate)} events/s delivered`);
    await call(`${receiverUrl}/__reset`, "POST");

    // --- 2. steady rate --------------------------------------------------------------------
    log(`steady: ${rate} events/s for ${steadyS}s`);
    meter = meterOf();
    const steady = await call(`${producerUrl}/steady`, "POST", { rate, seconds: steadyS });
    got = await awaitDeliveries(receiverUrl, steady.ids, { deadlineMs: drainTimeoutMs, services });
    results.steady = {
      a: analyse(got.dump, steady.ids),
      pub: steady,
      cores: meter.stop(),
      receiverStats: { invalid: got.dump.invalid, badSignature: got.dump.badSignature },
    };
    phases.push({ title: "steady", a: results.steady.a });
    allIds.push(...steady.ids);
    log(`steady: p99 ${fmt(results.steady.a.p99, 1)} ms`);

    // Every stream entry acknowledged? (the worker still runs)
    results.pending = await pendingEntries(redis, streams);

    // The worker is done: stop it now (gracefully: its CPU profile is written at exit).
    const workerLogged = worker.lines;
    await Promise.all(extraWorkers.map((w) => w.stop()));
    results.workerExit = await worker.stop();
    if (workerLogged > 0 || results.workerExit?.code !== 0) {
      results.workerTail = worker.tail();
      log(`worker wrote ${worker.lines} line(s) (warn or above, stderr); last ones:\n${results.workerTail}`);
    }
    results.workerLoggedDuringRun = workerLogged;
    await producer.stop();
    await call(`${receiverUrl}/__reset`, "POST");

    // --- 3. raw undici baseline -------------------------------------------------------------
    const rawWarmup = Math.min(2_000, rawRequests);
    log(`raw undici baseline: ${rawWarmup} warm-up + ${rawRequests} POSTs, ${concurrency} in flight`);
    let rawMeter;
    let rawCores;
    const raw = spawnService({
      name: "raw-post",
      command: process.execPath,
      args: ["--import", "tsx", join(SUPPORT, "webhook-raw-post.mjs")],
      env: {
        ...process.env,
        TARGET_URL: `${receiverUrl}/hook`,
        COUNT: String(rawRequests),
        WARMUP: String(rawWarmup),
        CONCURRENCY: String(concurrency),
        INSTANCES: JSON.stringify(Object.keys(setup.secrets)),
        ...(verifying ? { SECRETS: JSON.stringify(setup.secrets) } : {}),
      },
      onLine: (line) => {
        if (line === "@measuring") {
          rawMeter = cpuMeter({ services: [receiver, raw], pids: { redis: stackRedisPid() }, self: "bench" });
        }
        if (line === "@done" && rawMeter) rawCores = rawMeter.stop();
      },
    });
    await raw.exited;
    const rawLine = raw
      .tail()
      .split("\n")
      .reverse()
      .find((l) => l.startsWith("{"));
    if (raw.exit.code !== 0 || !rawLine) throw new Error(`raw-post failed (code ${raw.exit.code}):\n${raw.tail()}`);
    const rawResult = JSON.parse(rawLine);
    const rawStats = await call(`${receiverUrl}/__stats`);
    results.raw = { ...rawResult, received: rawStats.count, cores: rawCores };

    // --- checks ----------------------------------------------------------------------------
    results.phases = phases;
    results.totalPublished = allIds.length;
    results.totalMissing = phases.reduce((s, p) => s + p.a.missing, 0);
    results.totalDuplicates = phases.reduce((s, p) => s + p.a.duplicates, 0);
    if (results.totalMissing > 0) results.deliveryStatuses = await deliveryStatuses(redis, prefix);
  } finally {
    await runCleanups(); // stops whatever still runs, deletes the bench's Redis keys
  }

  // --- report ----------------------------------------------------------------------------------
  const { burst, steady, raw } = results;
  out("");
  out(
    `max throughput: ${fmt(burst.a.expected)} events published in ${fmt((burst.pub.endMs - burst.pub.startMs) / 1000, 1)}s ` +
      `(${fmt(burst.pub.ratePerS)}/s, ${burst.pub.window} in flight; publish round trip p50 ${fmt(burst.pub.publishRttMs.p50, 1)} ms, ` +
      `p99 ${fmt(burst.pub.publishRttMs.p99, 1)} ms)`,
  );
  out(
    `  delivered ${fmt(burst.a.delivered)} in ${fmt(burst.a.spanS, 1)}s (first → last receipt): ${fmt(burst.a.rate)} events/s` +
      (burst.a.drain
        ? `; after the producer finished: ${fmt(burst.a.drain.count)} more at ${fmt(burst.a.drain.rate)} events/s`
        : ""),
  );
  out(`  delivered per second: ${burst.a.perSecond.join(" ")}`);
  out(
    `  latency creation → receipt: p50 ${fmt(burst.a.p50, 1)} ms, p99 ${fmt(burst.a.p99, 1)} ms, max ${fmt(burst.a.max, 1)} ms ` +
      `(mostly time queued behind the backlog)`,
  );
  out(`  cpu cores: ${formatCores(burst.cores)}`);
  out(
    `steady: ${fmt(steady.a.expected)} events at ${fmt(steady.pub.ratePerS)}/s over ${steady.pub.seconds}s ` +
      `(producer at most ${steady.pub.maxBehind} event(s) behind schedule; publish round trip p99 ${fmt(steady.pub.publishRttMs.p99, 1)} ms)`,
  );
  out(
    `  latency creation → receipt: p50 ${fmt(steady.a.p50, 1)} ms, p99 ${fmt(steady.a.p99, 1)} ms, max ${fmt(steady.a.max, 1)} ms`,
  );
  out(`  p99 per second of receipt: ${steady.a.p99BySecond.map((v) => fmt(v)).join(" ")} ms`);
  out(`  cpu cores: ${formatCores(steady.cores)}`);
  out(
    `raw undici baseline: ${fmt(raw.count)} POSTs (after ${fmt(raw.warmup)} warm-up), ${raw.concurrency} in flight, one process: ` +
      `${fmt(raw.rps)} req/s; receiver got ${fmt(raw.received)} of ${fmt(raw.count + raw.warmup)}, non-2xx ${raw.failures}` +
      (verifying ? " (bodies signed per request, as the receiver verifies)" : ""),
  );
  if (raw.cores) out(`  cpu cores: ${formatCores(raw.cores)}`);
  for (const [title, cores] of [
    ["max throughput", burst.cores],
    ["steady", steady.cores],
    ["raw", raw.cores],
  ]) {
    if ((cores?.["everything else"] ?? 0) > 0.25) {
      out(
        `  WARNING (${title}): other work on this machine used ${cores["everything else"].toFixed(2)} cores: figures are skewed`,
      );
    }
  }
  out("latency: envelope.timestamp (integer ms at publish, producer clock) to receipt (receiver clock, same machine)");
  out("");
  const ratio = burst.a.rate / raw.rps;
  const rows = [
    ["phase", "events", "delivered/s", "p50 ms", "p99 ms", "max ms"],
    [
      "max throughput",
      fmt(burst.a.expected),
      fmt(burst.a.rate),
      fmt(burst.a.p50, 1),
      fmt(burst.a.p99, 1),
      fmt(burst.a.max, 1),
    ],
    [
      `steady ${fmt(rate)}/s`,
      fmt(steady.a.expected),
      fmt(steady.a.rate),
      fmt(steady.a.p50, 1),
      fmt(steady.a.p99, 1),
      fmt(steady.a.max, 1),
    ],
    ["raw undici POST", fmt(raw.count), fmt(raw.rps), "", "", ""],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) out(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
  out("");
  out(`ratio dispatcher/raw: ${ratio.toFixed(2)} (max-throughput events/s ÷ raw req/s)`);

  const lost = results.totalMissing;
  out(
    `non-delivered: ${lost} of ${fmt(results.totalPublished)} published event ids (warm-up, max throughput, steady)` +
      `; duplicates ${results.totalDuplicates}; stream entries left unacknowledged: ${results.pending}` +
      (lost === 0 ? " — every event arrived at least once" : "  FAILED: must be 0"),
  );
  if (results.deliveryStatuses) out(`  delivery records by status: ${JSON.stringify(results.deliveryStatuses)}`);
  for (const p of results.phases) {
    if (p.a.missing > 0) {
      out(`  ${p.title}: ${p.a.missing} of ${p.a.expected} not received by the end of the wait (see the log above)`);
    }
  }
  const bad = (burst.receiverStats.invalid ?? 0) + (steady.receiverStats.invalid ?? 0);
  const badSig = (burst.receiverStats.badSignature ?? 0) + (steady.receiverStats.badSignature ?? 0);
  if (bad > 0 || badSig > 0) out(`receiver: ${bad} unreadable bodies, ${badSig} bad signatures  FAILED`);
  if (lost > 0 || bad > 0 || badSig > 0 || raw.failures > 0) code = 1;

  const we = results.workerExit;
  if (we?.code !== 0) {
    out(
      `worker: exited with code ${we?.code} signal ${we?.signal} on SIGTERM (graceful stop expected: 0); ` +
        `${results.workerLoggedDuringRun} line(s) at warn or above before the stop`,
    );
    const firstErr = results.workerTail?.split("\n").find((l) => /\w+Error: /.test(l));
    if (firstErr) out(`  ${firstErr.trim()}`);
  } else if (results.workerLoggedDuringRun > 0) {
    out(`worker: ${results.workerLoggedDuringRun} line(s) logged at warn or above during the run (see above)`);
  }

  out("");
  out("targets:");
  out(
    `  >= ${fmt(TARGET_RATE)} events/s sustained: ${fmt(burst.a.rate)} events/s` +
      (burst.a.rate >= TARGET_RATE ? "  ok" : "  BELOW TARGET"),
  );
  out(
    `  p99 < ${TARGET_P99_MS} ms at ${fmt(rate)}/s: ${fmt(steady.a.p99, 1)} ms` +
      (steady.a.p99 < TARGET_P99_MS ? "  ok" : "  BELOW TARGET"),
  );
  out(`total runtime ${((Date.now() - startedAt) / 1000).toFixed(0)}s`);

  if (profileDir) {
    const [file] = newestProfiles(profileDir);
    if (file) {
      out(
        `\nworker CPU profile: ${file}\n` +
          `max-throughput phase: CLOCK_MONOTONIC ${burst.window.startUs}–${burst.window.endUs} µs`,
      );
      out(hotSpots(file, { top: 30, window: burst.window }));
    } else {
      out(`\nno CPU profile was written to ${profileDir}`);
    }
  }
  return code;
}
