// pnpm bench sessions — session pods at scale, every role in its own process (simnet, gateway,
// session pods; services/main/src/main.ts with ROLES), on the local stack's Redis.
//
// 1. Start: N (1,000) paired sim instances, all STOPPED, are started through the gateway on ONE
//    session pod: time from the first start request until every instance is WORKING (simnet's
//    open connections, confirmed by the `session.status` events and the admin listing),
//    p50/p95 per instance (its start request → its WORKING event), and the pod's memory per
//    connected instance ((VmRSS with N connected − VmRSS of the same fresh pod with 0) / N, each
//    read after a full GC forced through the pod's inspector; V8 heap in use likewise).
// 2. Failover: a second pod joins, the instances rebalance over the two (rendezvous hashing),
//    one send through the API to each of pod-a's instances at once gives the floor (all must
//    answer 201), then pod-a is killed with SIGKILL at T0: what a client feels, for every
//    instance it held, seconds from T0 until a send through the public API
//    (`POST /v1/instances/{id}/messages/text`) answers 201 — its connection open on the new owner
//    and the message on the network — each instance sent to from T0 on, again 100 ms after each
//    other answer, for at most 60 s (target p95 <= 5 s). Not the WORKING events: a pod taking
//    over a WORKING instance keeps it WORKING while it reconnects and writes no event
//    (docs/lifecycle.md "Handover"). Every answer is counted by status and code; the segments
//    (T0 → pod-b's "instance acquired" log → its connection to simnet made → first seen open on
//    /simnet/connections, polled every 100 ms beside the sends → the 201) show where the time
//    goes; the session.status events of the moved instances after T0 are counted (none expected). simnet's conflicts and instanceOverlaps must stay 0; an instance with no 201
//    within the bound fails the run.
//
// Setup (not timed): create N instances, start and pair each (a virtual phone scans its QR),
// wait all WORKING, stop all, wait all STOPPED (instances a stop/reconcile race leaves STARTING
// are stopped again, and reported), restart the pod (fresh process for the memory baseline and
// the timed start).
//
// Environment: BENCH_INSTANCES (default 1000), BENCH_LEASE_TTL_MS (3000), BENCH_START_CONCURRENCY
// (start requests in flight in the timed start, 50), BENCH_SETUP_CONCURRENCY (20), BENCH_SETTLE_MS
// (wait before each RSS reading, 5000), BENCH_POD_LOG_LEVEL (info; pods' output goes to
// .local/bench/sessions-<time>/), BENCH_FAILOVER_BOUND_MS (how long after the kill an instance is
// sent to at most, 60000), BENCH_FAILOVER_RETRY_MS (wait after an answer other than 201, 100),
// BENCH_CPU_PROF=1 (the pod of the timed start runs under
// `node --cpu-prof`; after the start it is stopped gracefully to write the profile, a new pod-a
// takes the instances back, and the hot spots of the timed start are printed at the end; figures
// taken under the profiler are not comparable to normal runs).
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  collectGarbage,
  cpuMeter,
  formatCores,
  freePort,
  intEnv,
  log,
  machineFacts,
  onCleanup,
  percentile,
  pool,
  ROOT,
  requireFrom,
  rssKiB,
  runCleanups,
  scanUntilPaired,
  simnetClient,
  sleep,
  spawnService,
  stackRedisPid,
  startGateway,
  until,
  waitForHttp,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";

export const description =
  "1,000 sim instances on one session pod: time to all WORKING, p50/p95 per instance, KiB per connection; kill -9 failover (kill → a send answers 201 again) p50/p95 (target p95 <= 5 s)";

const FAILOVER_TARGET_S = 5;
/** The fresh pod's age at the memory baseline (see where it is used). */
const BASELINE_AGE_MS = 25_000;
const ENTRY = "services/main/src/main.ts";
const AUTH_STATE_KEY = Buffer.alloc(32, 11).toString("base64");

/** The virtual contact of the failover's sends (non-Brazilian: no ninth-digit number check). */
const CONTACT = "15550000001";

const sec = (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "n/a");

/** Rendezvous ranking exactly as services/platform/src/infra/leases.ts rankPods: the expected owner. */
function expectedOwner(instanceId, podIds) {
  const w = (podId) => createHash("sha1").update(`${podId}\0${instanceId}`).digest().readUInt32BE(0);
  return [...podIds].sort((a, b) => w(b) - w(a) || (a < b ? -1 : 1))[0];
}

/** Answers by status and error code: {"201": n, "503 network_unavailable": n, "0 no answer": n, …}. */
const countAnswers = (answers) => {
  const out = {};
  for (const a of answers) {
    const k = a.status === 201 || !a.code ? String(a.status) : `${a.status} ${a.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
};

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
    min: sorted.length ? sorted[0] : Number.NaN,
  };
};

export default async function sessionsBench() {
  const n = intEnv("BENCH_INSTANCES", 1000);
  const leaseTtlMs = intEnv("BENCH_LEASE_TTL_MS", 3000, { min: 500 });
  const startConcurrency = intEnv("BENCH_START_CONCURRENCY", 50);
  const setupConcurrency = intEnv("BENCH_SETUP_CONCURRENCY", 20);
  const settleMs = intEnv("BENCH_SETTLE_MS", 5000, { min: 0 });
  const failoverBoundMs = intEnv("BENCH_FAILOVER_BOUND_MS", 60_000);
  const retryMs = intEnv("BENCH_FAILOVER_RETRY_MS", 100, { min: 0 });
  const podLogLevel = process.env.BENCH_POD_LOG_LEVEL || "info";
  const profile = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
  const logDir = join(ROOT, ".local", "bench", `sessions-${new Date().toISOString().replace(/[:.]/g, "-")}`);

  const out = console.log;
  const m = machineFacts();
  out(`bench sessions: ${n} sim instances, session pods as separate processes`);
  out(`machine: nproc ${m.nproc}, ${m.cpu}, ${m.memGiB} GiB, ${m.os}`);
  out(`node ${m.node}; load average before the run: ${m.loadavg}`);
  out(
    `processes: simnet, gateway, session pods (node --import tsx ${ENTRY}, ROLES=…), Redis Stack, and the ` +
      `bench driver, all on this machine`,
  );
  out(
    `settings: LEASE_TTL_MS=${leaseTtlMs} (pods renew and reconcile every ${Math.floor(leaseTtlMs / 3)} ms; a dead ` +
      `pod's leases expire within ${leaseTtlMs} ms), OWNER_WAIT_MS default, EVENT_SHARDS 4, ` +
      `start concurrency ${startConcurrency}, setup concurrency ${setupConcurrency}, settle ${settleMs} ms before RSS readings`,
  );
  out(
    `failover: sends through the API to each moved instance from the kill on, again ${retryMs} ms after each ` +
      `answer other than 201, for at most ${failoverBoundMs / 1000} s`,
  );
  out(`pods: LOG_LEVEL=${podLogLevel}, output in ${logDir}`);
  if (profile)
    out("pod-a of the timed start: under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs");
  out("");

  const results = {};
  let code = 0;
  try {
    // --- processes ------------------------------------------------------------------------
    const simnetPort = await freePort();
    const simnetUrl = `http://127.0.0.1:${simnetPort}`;
    const simnetWs = `ws://127.0.0.1:${simnetPort}`;
    log("starting the stack (if needed) and the gateway");
    const gw = await startGateway({
      env: { ENABLE_SIM_PROVIDER: "true", SIMNET_URL: simnetWs },
      logFile: join(logDir, "gateway.log"),
    });
    const base = {
      ...gw.env,
      AUTH_STATE_KEY,
      LEASE_TTL_MS: String(leaseTtlMs),
      SIMNET_URL: simnetWs,
    };
    const simnet = spawnService({
      name: "simnet",
      command: process.execPath,
      args: ["--import", "tsx", ENTRY],
      env: {
        ...base,
        ROLES: "simnet",
        SIMNET_PORT: String(simnetPort),
        // No QR expires during setup (pairing 1,000 takes a while on 2 cores).
        SIMNET_QR_INTERVAL_MS: "60000",
        SIMNET_QR_LIMIT: "10",
        LOG_LEVEL: "warn",
      },
      logFile: join(logDir, "simnet.log"),
    });
    await waitForHttp(`${simnetUrl}/healthz`, { service: simnet });

    let podSeq = 0;
    /** Each pod's "instance acquired" log lines (LOG_LEVEL info) and its warnings and errors. */
    const podRecords = [];
    const startPod = async (podId, { nodeArgs = [], inspect = false } = {}) => {
      const port = await freePort();
      const inspectorPort = inspect ? await freePort() : undefined;
      if (inspect) nodeArgs = [...nodeArgs, `--inspect=127.0.0.1:${inspectorPort}`];
      const record = { name: `${podId}-${podSeq + 1}`, acquired: [], warnings: 0, lastWarning: null };
      podRecords.push(record);
      const svc = spawnService({
        name: podId,
        command: process.execPath, // node itself (no tsx wrapper): its pid is the pod's, for VmRSS and kill -9
        args: [...nodeArgs, "--import", "tsx", ENTRY],
        env: { ...base, ROLES: "session", POD_ID: podId, SESSION_PORT: String(port), LOG_LEVEL: podLogLevel },
        logFile: join(logDir, `${podId}-${++podSeq}.log`),
        onLine(line) {
          if (line.includes('"instance acquired"')) {
            try {
              const j = JSON.parse(line);
              record.acquired.push({ id: j.instanceId, time: j.time });
            } catch {}
          } else if (/"level":[456]0\b/.test(line)) {
            record.warnings++;
            record.lastWarning = line;
          }
        },
      });
      svc.record = record;
      svc.inspectorPort = inspectorPort;
      svc.startedAt = Date.now();
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, { service: svc });
      return svc;
    };

    const sim = simnetClient(simnetUrl, gw.adminToken);
    const connections = async () => {
      const r = await sim("GET", "/simnet/connections");
      if (r.status !== 200) throw new Error(`GET /simnet/connections: ${r.status}`);
      return r.body.connections;
    };
    const openConns = async () => (await connections()).filter((c) => c.state === "open");
    const simStats = async () => (await sim("GET", "/simnet/stats")).body;
    /** One text send through the public API: {status, code, startedAt, at} (status 0: no answer). */
    const sendOnce = async (inst, text, timeoutMs) => {
      const startedAt = Date.now();
      try {
        const res = await fetch(`${gw.url}/v1/instances/${inst.id}/messages/text`, {
          method: "POST",
          headers: { "x-instance-token": inst.token, "content-type": "application/json" },
          body: JSON.stringify({ chatId: `${CONTACT}@c.us`, text }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = await res.json().catch(() => null);
        return { status: res.status, code: body?.error?.code, startedAt, at: Date.now() };
      } catch (err) {
        const code = err?.name === "TimeoutError" ? "timeout" : "no answer";
        return { status: 0, code, startedAt, at: Date.now() };
      }
    };

    const lifecycle = async (inst, op) => {
      const res = await fetch(`${gw.url}/v1/instances/${inst.id}/${op}`, {
        method: "POST",
        headers: { "x-instance-token": inst.token },
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`POST /v1/instances/${inst.id}/${op}: ${res.status} ${text}`);
    };
    /** Every instance's connectionStatus through the admin listing (pages of 500). */
    const statuses = async () => {
      const byId = new Map();
      let cursor = null;
      do {
        const res = await gw.admin("GET", `/v1/admin/instances?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
        if (res.status !== 200) throw new Error(`GET /v1/admin/instances: ${res.status} ${await res.text()}`);
        const page = await res.json();
        for (const i of page.data) byId.set(i.id, i.connectionStatus);
        cursor = page.nextCursor;
      } while (cursor);
      return byId;
    };
    const countStatus = (byId, status) => [...byId.values()].filter((s) => s === status).length;
    /** What is off, for timeouts: statuses by count, simnet connections by pod and state, a few examples. */
    const explainState = async () => {
      const byId = await statuses();
      const count = (xs) => {
        const m = new Map();
        for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
        return m;
      };
      const conns = await connections();
      return (
        `statuses ${JSON.stringify(Object.fromEntries(count([...byId.values()])))}; ` +
        `simnet connections ${JSON.stringify(Object.fromEntries(count(conns.map((c) => `${c.pod}/${c.state}`))))}; ` +
        `e.g. ${JSON.stringify(conns.slice(0, 3))}, not STOPPED/WORKING: ${JSON.stringify(
          [...byId].filter(([, st]) => st !== "STOPPED" && st !== "WORKING").slice(0, 5),
        )}`
      );
    };

    // session.status events, read straight from the Redis Streams (one per shard).
    const { Redis } = requireFrom("services/platform")("ioredis");
    const redis = new Redis(gw.redisUrl, { connectionName: "bench-sessions" });
    onCleanup(() => redis.disconnect());
    const shardKeys = Array.from({ length: 4 }, (_, s) => `${gw.prefix}events:${s}`);
    /** The last entry id of each shard: read from there on with `eventsSince`. */
    const markEvents = async () =>
      Promise.all(shardKeys.map(async (k) => (await redis.xrevrange(k, "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0"));
    const eventsSince = async (marks) => {
      const events = [];
      await Promise.all(
        shardKeys.map(async (key, s) => {
          let from = `(${marks[s]}`;
          for (;;) {
            const batch = await redis.xrange(key, from, "+", "COUNT", 5000);
            for (const [id, fields] of batch) {
              const env = JSON.parse(fields[fields.indexOf("envelope") + 1]);
              if (env.event !== "session.status") continue;
              events.push({
                id,
                instanceId: env.instanceId,
                ts: env.timestamp,
                status: env.payload.status,
                previous: env.payload.previousStatus,
              });
            }
            if (batch.length < 5000) break;
            from = `(${batch[batch.length - 1][0]}`;
          }
        }),
      );
      return events.sort((a, b) => a.ts - b.ts);
    };
    /** For each id, the first event with `status` at or after `sinceOf(id)` (ms). */
    const firstOf = (events, status, ids, sinceOf) => {
      const want = new Set(ids);
      const first = new Map();
      for (const e of events) {
        if (e.status !== status || !want.has(e.instanceId) || first.has(e.instanceId)) continue;
        if (e.ts >= sinceOf(e.instanceId)) first.set(e.instanceId, e.ts);
      }
      return first;
    };

    let podA = await startPod("pod-a", { inspect: true });
    /** VmRSS and V8 heap in use after a settle period and a forced full GC (through the inspector). */
    const memory = async (pod, { minAgeMs = 0 } = {}) => {
      await sleep(Math.max(settleMs, minAgeMs - (Date.now() - pod.startedAt)));
      const heap = await collectGarbage(pod.inspectorPort);
      await sleep(1000);
      return { rssKiB: rssKiB(pod.pid), heapKiB: heap.usedKiB };
    };

    // --- setup (not timed) ------------------------------------------------------------------
    const contact = await sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "Bench Contact" });
    if (contact.status !== 201 && contact.status !== 200) throw new Error(`POST /simnet/phones: ${contact.status}`);
    let t = Date.now();
    log(`setup: creating ${n} sim instances`);
    const instances = await gw.createInstances(n, { provider: "sim", name: "sess" });
    instances.forEach((inst, i) => {
      inst.phone = `55219${String(7000000 + i).padStart(8, "0")}`;
    });
    log(`setup: created in ${sec(Date.now() - t)} s; starting and pairing each (concurrency ${setupConcurrency})`);
    t = Date.now();
    let paired = 0;
    await pool(instances, setupConcurrency, async (inst) => {
      await lifecycle(inst, "start");
      await scanUntilPaired(sim, inst, { timeoutMs: 120_000, intervalMs: 100 });
      if (++paired % 250 === 0) log(`setup: ${paired} paired`);
    });
    await until(async () => (await openConns()).length === n, `${n} open connections after pairing`, {
      timeoutMs: 120_000,
      intervalMs: 500,
      explain: explainState,
    });
    await until(async () => countStatus(await statuses(), "WORKING") === n, "all WORKING after pairing", {
      timeoutMs: 60_000,
      intervalMs: 500,
      explain: explainState,
    });
    log(`setup: ${n} paired and WORKING in ${sec(Date.now() - t)} s; stopping all`);
    t = Date.now();
    await pool(instances, setupConcurrency, (inst) => lifecycle(inst, "stop"));
    const allStopped = async () => (await connections()).length === 0 && countStatus(await statuses(), "STOPPED") === n;
    try {
      await until(allStopped, "all STOPPED, no connection left", { timeoutMs: 3 * leaseTtlMs, intervalMs: 500 });
    } catch {
      // A stop that races the pod's reconcile tick can leave an instance STARTING (re-acquired
      // while being released, then dropped on a stale lease): stop those again and say so.
      const stuck = [...(await statuses())].filter(([, st]) => st !== "STOPPED");
      results.stuckAfterStop = stuck;
      log(
        `setup: ${stuck.length} instance(s) not STOPPED ${3 * leaseTtlMs} ms after their stop ` +
          `(${JSON.stringify(stuck.slice(0, 3))}); stopping them again`,
      );
      const byId = new Map(instances.map((i) => [i.id, i]));
      await pool(stuck, setupConcurrency, ([id]) => lifecycle(byId.get(id), "stop"));
      await until(allStopped, "all STOPPED, no connection left", {
        timeoutMs: 60_000,
        intervalMs: 500,
        explain: explainState,
      });
    }
    log(`setup: all STOPPED in ${sec(Date.now() - t)} s`);
    results.memAfterStop = await memory(podA);

    // A fresh pod for the memory baseline and the timed start (pairings stay in Redis).
    log("setup: restarting pod-a (graceful) for a fresh process");
    await podA.stop();
    const profileDir = profile ? join(logDir, "profile") : undefined;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    podA = await startPod("pod-a", {
      nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      inspect: true,
    });
    // A fresh pod's RSS drops by ~20 MiB some 15-20 s after start (idle, full GCs forced or not:
    // memory outside the main V8 heap, e.g. the tsx loader's worker): the baseline waits that out.
    results.mem0 = await memory(podA, { minAgeMs: BASELINE_AGE_MS });

    // --- 1. timed start on one pod ----------------------------------------------------------
    log(`start: ${n} start requests, ${startConcurrency} in flight; polling /simnet/connections`);
    const marks1 = await markEvents();
    const sentAt = new Map();
    const meter = cpuMeter({ services: [simnet, gw.service, podA], pids: { redis: stackRedisPid() } });
    const t1 = Date.now();
    const window = { startUs: Number(process.hrtime.bigint() / 1000n) };
    let allOpenMs = Number.NaN;
    let requestsDoneMs = Number.NaN;
    let polls = 0;
    const poller = until(
      async () => {
        polls++;
        return (await openConns()).length === n;
      },
      `${n} open connections`,
      { timeoutMs: 180_000, intervalMs: 100, explain: explainState },
    ).then(() => {
      allOpenMs = Date.now() - t1;
      window.endUs = Number(process.hrtime.bigint() / 1000n);
    });
    await pool(instances, startConcurrency, async (inst) => {
      sentAt.set(inst.id, Date.now());
      await lifecycle(inst, "start");
    });
    requestsDoneMs = Date.now() - t1;
    await poller;
    results.startCores = meter.stop();
    // Confirmation: every instance's WORKING event (after its start request) and the listing.
    const ids = instances.map((i) => i.id);
    let working1;
    await until(
      async () => {
        working1 = firstOf(await eventsSince(marks1), "WORKING", ids, (id) => sentAt.get(id));
        return working1.size === n;
      },
      "a WORKING event for every instance",
      { timeoutMs: 30_000, explain: explainState },
    );
    await until(async () => countStatus(await statuses(), "WORKING") === n, "all WORKING in the admin listing", {
      timeoutMs: 30_000,
      explain: explainState,
    });
    const perInstance1 = ids.map((id) => working1.get(id) - sentAt.get(id));
    results.start = {
      allOpenMs,
      requestsDoneMs,
      polls,
      lastWorkingEventMs: Math.max(...working1.values()) - t1,
      perInstance: stats(perInstance1),
      onPod: (await openConns()).filter((c) => c.pod === "pod-a").length,
    };
    log(`start: all ${n} open after ${sec(allOpenMs)} s`);
    results.mem1 = await memory(podA);
    if (profileDir) {
      log("profile: stopping pod-a gracefully (writes its profile); a new pod-a takes the instances back");
      await podA.stop();
      results.profile = { file: newestProfiles(profileDir)[0], window };
      podA = await startPod("pod-a");
      await until(async () => (await openConns()).length === n, "all open on the new pod-a", {
        timeoutMs: 60_000,
        explain: explainState,
      });
    }

    // --- 2. failover --------------------------------------------------------------------------
    log("failover: starting pod-b, waiting for the rebalance");
    const podB = await startPod("pod-b");
    const tB = Date.now();
    const expected = new Map(ids.map((id) => [id, expectedOwner(id, ["pod-a", "pod-b"])]));
    const balanced = async () => {
      const open = await openConns();
      return open.length === n && open.every((c) => expected.get(c.instanceId) === c.pod);
    };
    await until(balanced, "every instance open on its rendezvous pod", {
      timeoutMs: 90_000,
      explain: explainState,
    });
    results.rebalanceMs = Date.now() - tB;
    await until(async () => countStatus(await statuses(), "WORKING") === n, "all WORKING after the rebalance", {
      timeoutMs: 30_000,
      explain: explainState,
    });
    await sleep(Math.min(settleMs, 2 * leaseTtlMs)); // a few quiet ticks before the kill
    if (!(await balanced())) throw new Error("the two pods did not hold a stable split before the kill");
    const before = await openConns();
    const onA = before.filter((c) => c.pod === "pod-a").map((c) => c.instanceId);
    const onASet = new Set(onA);
    const onB = before.length - onA.length;
    const byId = new Map(instances.map((i) => [i.id, i]));
    // What a client feels before any failover: one send to each of pod-a's instances, all at once
    // (the same burst as right after the kill): the floor under the failover figure.
    log(`failover: baseline, one send to each of pod-a's ${onA.length} instances at once`);
    const baseline = await Promise.all(onA.map((id) => sendOnce(byId.get(id), "baseline", 30_000)));
    const baselineCodes = countAnswers(baseline);
    if (baseline.some((r) => r.status !== 201)) {
      throw new Error(`baseline sends before the kill did not all answer 201: ${JSON.stringify(baselineCodes)}`);
    }
    await sleep(2_000); // their delivered acks (1 s later) settle before the kill
    const statsBeforeKill = await simStats();
    const marks2 = await markEvents();
    const meter2 = cpuMeter({ services: [simnet, gw.service, podB], pids: { redis: stackRedisPid() } });

    // From the kill on, each of pod-a's instances is sent to through the API until a send answers
    // 201 (its connection open on the new owner, the send on the network), again `retryMs` after
    // each other answer, until T0 + failoverBoundMs: per instance, T0 → that 201 answer.
    log(`failover: kill -9 pod-a (pid ${podA.pid}, ${onA.length} instances; pod-b holds ${onB})`);
    const t0 = Date.now();
    process.kill(-podA.pid, "SIGKILL");
    const deadline = t0 + failoverBoundMs;
    const untilSent = async (inst) => {
      const tries = [];
      for (;;) {
        const r = await sendOnce(inst, `failover #${tries.length + 1}`, Math.max(1_000, deadline - Date.now()));
        tries.push(r);
        if (r.status === 201 || Date.now() >= deadline) return { id: inst.id, last: r, tries };
        await sleep(retryMs);
      }
    };
    // Beside the sends, when each one's connection is first seen open on pod-b (simnet's
    // /simnet/connections every 100 ms): the failover without the sends' own queueing.
    const openB = new Map();
    let sending = true;
    const watcher = (async () => {
      while (sending && openB.size < onA.length) {
        const conns = await openConns().catch(() => []);
        const seen = Date.now(); // the answer's time: open at the latest then
        for (const c of conns) {
          if (c.pod === "pod-b" && onASet.has(c.instanceId) && !openB.has(c.instanceId)) openB.set(c.instanceId, seen);
        }
        await sleep(100);
      }
    })();
    const sent = await Promise.all(onA.map((id) => untilSent(byId.get(id))));
    sending = false;
    await watcher;
    await podA.exited;
    results.failoverCores = meter2.stop();
    const ok = sent.filter((s) => s.last.status === 201);
    if (ok.length !== onA.length) {
      log(
        `failover: ${onA.length - ok.length} of pod-a's ${onA.length} instances had no send answered 201 within ` +
          `${failoverBoundMs / 1000} s of the kill`,
      );
      code = 1;
    }
    const fo = ok.map((s) => s.last.at - t0);
    const acquiredB = new Map();
    for (const a of podB.record.acquired) if (a.time >= t0 && !acquiredB.has(a.id)) acquiredB.set(a.id, a.time);
    const foAcquired = onA.filter((id) => acquiredB.has(id)).map((id) => acquiredB.get(id) - t0);
    await until(
      async () => {
        const open = await openConns();
        return open.length === n && open.every((c) => c.pod === "pod-b");
      },
      "all open on pod-b",
      { timeoutMs: 30_000, explain: explainState },
    ).catch((err) => {
      log(err.message);
      code = 1;
    });
    // When pod-b's connection of each moved instance was made (simnet's `since`: the WebSocket,
    // before its hello and open).
    const connB = new Map();
    for (const c of await openConns()) {
      if (c.pod === "pod-b" && onASet.has(c.instanceId)) connB.set(c.instanceId, Date.parse(c.since));
    }
    const foConnected = onA
      .filter((id) => acquiredB.has(id) && connB.has(id))
      .map((id) => connB.get(id) - acquiredB.get(id));
    const foOpen = onA.filter((id) => openB.has(id)).map((id) => openB.get(id) - t0);
    const foOpenToSend = ok.filter((s) => openB.has(s.id)).map((s) => s.last.at - openB.get(s.id));
    // A takeover resumes WORKING without events (docs/lifecycle.md "Handover"): a STARTING here
    // means the resume window ran out before the connection opened.
    const statusEvents = {};
    for (const e of await eventsSince(marks2)) {
      if (onASet.has(e.instanceId)) statusEvents[e.status] = (statusEvents[e.status] ?? 0) + 1;
    }
    await until(async () => countStatus(await statuses(), "WORKING") === n, "all WORKING after the failover", {
      timeoutMs: 30_000,
      explain: explainState,
    }).catch((err) => {
      log(err.message);
      code = 1;
    });
    const after = await simStats();
    results.failover = {
      onA: onA.length,
      onB,
      moved: ok.length,
      total: stats(fo),
      t0,
      baseline: stats(baseline.map((r) => r.at - r.startedAt)),
      baselineCodes,
      answers: countAnswers(sent.flatMap((s) => s.tries)),
      attempts: stats(sent.map((s) => s.tries.length)),
      acquired: stats(foAcquired),
      connected: stats(foConnected),
      open: stats(foOpen),
      openToSend: stats(foOpenToSend),
      lastAttempt: stats(ok.map((s) => s.last.at - s.last.startedAt)),
      statusEvents,
      statsBeforeKill,
      after,
    };
    results.logs = { podA: podA.logFile, podB: podB.logFile };
    results.pods = podRecords;
  } finally {
    await runCleanups();
  }

  // --- report ---------------------------------------------------------------------------------
  const warnOtherWork = (cores) => {
    const other = cores?.["everything else"] ?? 0;
    if (other > 0.25) out(`   WARNING: other work on this machine used ${other.toFixed(2)} cores: figures are skewed`);
  };
  const s = results.start;
  out("");
  out(`1. start ${n} paired instances (all STOPPED) on one session pod`);
  out(
    `   time to all WORKING: ${sec(Math.max(s.allOpenMs, s.lastWorkingEventMs))} s from the first start request ` +
      `(simnet: all ${n} connections open at ${sec(s.allOpenMs)} s, /simnet/connections polled every 100 ms; ` +
      `last session.status WORKING event at ${sec(s.lastWorkingEventMs)} s)`,
  );
  out(`   the ${n} start requests (${startConcurrency} in flight) took ${sec(s.requestsDoneMs)} s`);
  out(
    `   per instance, start request → its WORKING event: p50 ${sec(s.perInstance.p50)} s, p95 ${sec(s.perInstance.p95)} s, ` +
      `max ${sec(s.perInstance.max)} s`,
  );
  out(`   confirmed: ${n} WORKING events and ${n} WORKING in GET /v1/admin/instances; ${s.onPod} open on pod-a`);
  out(`   cpu cores used during the start: ${formatCores(results.startCores)}`);
  warnOtherWork(results.startCores);
  const { mem0, mem1, memAfterStop } = results;
  const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
  out(
    `   memory per connected instance: ${((mem1.rssKiB - mem0.rssKiB) / n).toFixed(1)} KiB of VmRSS ` +
      `(pod-a ${mib(mem0.rssKiB)} with 0 connected, fresh process → ${mib(mem1.rssKiB)} with ${n}), ` +
      `${((mem1.heapKiB - mem0.heapKiB) / n).toFixed(1)} KiB of V8 heap in use ` +
      `(${mib(mem0.heapKiB)} → ${mib(mem1.heapKiB)})`,
  );
  out(
    `     each reading: ${settleMs} ms settle (the baseline: pod ${BASELINE_AGE_MS / 1000} s old), a full GC forced ` +
      `through the inspector, 1 s, then VmRSS from /proc/<pid>/status; ` +
      `the setup pod after pairing ${n} and stopping all: ${mib(memAfterStop.rssKiB)} RSS, ` +
      `${mib(memAfterStop.heapKiB)} heap with 0 connected`,
  );
  if (results.stuckAfterStop?.length) {
    out(
      `   NOTE (setup): ${results.stuckAfterStop.length} instance(s) were left ` +
        `${[...new Set(results.stuckAfterStop.map(([, st]) => st))].join("/")} after their stop (stop racing the ` +
        `pod's reconcile tick: re-acquired while being released, then dropped on a stale lease); stopped again`,
    );
  }
  const f = results.failover;
  out("");
  out(
    `2. failover: pod-b joined (rebalance by rendezvous hashing, handover to pods up ${2 * leaseTtlMs} ms: ` +
      `all ${n} on their pod ${sec(results.rebalanceMs)} s after pod-b was healthy), then kill -9 pod-a at T0`,
  );
  out(`   lease TTL: ${leaseTtlMs} ms (renewal and reconcile every ${Math.floor(leaseTtlMs / 3)} ms)`);
  out(
    `   pod-a held ${f.onA}, pod-b ${f.onB}; moved (a send through the API answered 201 after T0): ${f.moved} of ${f.onA}`,
  );
  out(
    `   T0 → a send answered 201 (connection open on pod-b, the message on the network): p50 ${sec(f.total.p50)} s, ` +
      `p95 ${sec(f.total.p95)} s, max ${sec(f.total.max)} s (min ${sec(f.total.min)} s)`,
  );
  const seg = (x) => (x.n ? `p50 ${sec(x.p50)} s, p95 ${sec(x.p95)} s, max ${sec(x.max)} s` : "n/a");
  out(
    `     before the kill, one send to each of the ${f.onA} at once answered in ${seg(f.baseline)} ` +
      `(${JSON.stringify(f.baselineCodes)}): the floor of a burst like the one after T0`,
  );
  out(
    `     sends from T0 on: ${JSON.stringify(f.answers)} (every try; another try ${retryMs} ms after each answer ` +
      `other than 201); tries per instance p50 ${f.attempts.p50}, max ${f.attempts.max}; the successful try itself ` +
      `took ${seg(f.lastAttempt)}`,
  );
  out(`     T0 = ${f.t0} (epoch ms, the clock of the pods' log "time"); per instance, in order:`);
  out(
    `     T0 → pod-b logs "instance acquired" (pod-a's heartbeat and lease expired, pod-b's next tick): ` +
      (f.acquired.n ? seg(f.acquired) : "n/a (pods below LOG_LEVEL=info)"),
  );
  out(`     acquired → pod-b's connection to simnet made (simnet's \`since\`): ${seg(f.connected)}`);
  out(
    `     T0 → the connection first seen open on pod-b (/simnet/connections every 100 ms, beside the sends): ` +
      `${seg(f.open)} (${f.open.n} of ${f.onA} seen)`,
  );
  out(
    `     seen open → the 201 answer (the send in a burst of ${f.onA}; the client's retry interval): ${seg(f.openToSend)}`,
  );
  out(
    `     session.status events of the moved instances after T0: ${JSON.stringify(f.statusEvents)} ` +
      `(a takeover resumes WORKING without events; a STARTING means the resume window ran out)`,
  );
  out(`   cpu cores used during the failover: ${formatCores(results.failoverCores)}`);
  warnOtherWork(results.failoverCores);
  out(
    `   simnet /simnet/stats after the failover: conflicts ${f.after.conflicts}, instanceOverlaps ` +
      `${f.after.instanceOverlaps} (before the kill: ${f.statsBeforeKill.conflicts}, ${f.statsBeforeKill.instanceOverlaps})`,
  );
  out(`   pod logs: ${results.logs.podA}, ${results.logs.podB}`);
  const noisy = results.pods.filter((p) => p.warnings > 0);
  out(
    noisy.length === 0
      ? "   pod warnings and errors: none"
      : `   pod warnings and errors: ${noisy.map((p) => `${p.name} ${p.warnings}`).join(", ")}; last: ${noisy.at(-1).lastWarning}`,
  );
  out("");
  if (f.after.conflicts !== 0 || f.after.instanceOverlaps !== 0) {
    out(
      `FAIL: simnet saw ${f.after.conflicts} conflicts and ${f.after.instanceOverlaps} instance overlaps (must be 0)`,
    );
    code = 1;
  }
  if (f.moved !== f.onA) {
    out(
      `FAIL: ${f.onA - f.moved} of pod-a's ${f.onA} instances took no send within ${failoverBoundMs / 1000} s of the kill`,
    );
    code = 1;
  }
  // Over the moved instances; one that never took a send is the FAIL above, not a figure here.
  const p95 = f.total.p95 / 1000;
  out(
    `failover (kill -9 → a send answered 201), ${f.moved} of ${f.onA} moved: p50 ${sec(f.total.p50)} s, ` +
      `p95 ${Number.isFinite(p95) ? p95.toFixed(2) : "n/a"} s (target p95 <= ${FAILOVER_TARGET_S} s)` +
      (p95 <= FAILOVER_TARGET_S ? "" : "  ABOVE TARGET"),
  );
  if (results.profile) {
    const { file, window } = results.profile;
    out(file ? `\npod-a CPU profile (timed start): ${file}` : "\nno CPU profile was written");
    if (file) out(hotSpots(file, { top: 25, window }));
  }
  return code;
}
