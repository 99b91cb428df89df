// pnpm bench send — the send routes end to end, every role in its own process on the local stack:
// gateway (public REST) → session pod (internal tRPC) → simnet (provider `sim`), and the worker
// role running the Temporal send queue.
//
// 1. Immediate sends: `POST /v1/instances/{id}/messages/text` {chatId, text} (no X-Queue header,
//    as clients send it) from autocannon, spread over N paired instances (each its own token,
//    each connection cycling its own slice) so that the 20/s per-instance rate limit never
//    refuses, all to one virtual contact with a non-Brazilian number (1555…: no ninth-digit
//    number check; a Brazilian number costs one check per number per gateway process per hour,
//    then it is cached). Beside it, in the same run and with the same autocannon settings, a
//    bare Fastify server answering the same request shape (bench/support/send-bare-fastify.mjs)
//    and the architecture's skeleton (bench/skeleton.mjs: the send path's unavoidable hops and
//    nothing else). The three alternate over BENCH_ROUNDS rounds (3: bare, skeleton, send, bare,
//    …; the machine's speed drifts within a minute); each ratio is the median of the rounds'.
//    The figures of merit (issue 19 §4; docs/benchmarks.md "Sending"): send/skeleton, and the CPU
//    per send of all processes against the skeleton's per answer in the same round (µs, in all and
//    per process: steadier than req/s across rounds and machines). send/bare is printed for the
//    record only: its former target (>= 0.15) is retired, the ratio being as much the machine's as
//    the code's. No wall-clock figure decides the exit code: it is 1 only when answers failed
//    (non-2xx, errors, timeouts) or queued items were not accepted or not sent.
// 2. Enqueue rate: 10,000 queued text sends (`X-Queue: true`) to ONE instance whose queue is
//    paused (nothing leaves it meanwhile), at a fixed concurrency (50): time until all are
//    accepted (202) (target <= 10 s). A second gateway process on the same Redis keys, started
//    with RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST raised, takes these (10,000 to one instance
//    would otherwise take 500 s at 20/s). Then `DELETE /queue` (timed too).
// 3. Scheduling error of queued sends: 200 items over 20 instances, queue delayMin = delayMax =
//    1 s, `delayTyping: 0`: for each sent item |actual − planned|, planned = the item's
//    `plannedAt` (Redis hash q:<instance>:item:<qid>, written by the worker when it plans the
//    item), actual = simnet's `at` of that message (`GET /simnet/phones/{phone}/sent`): p50/p99
//    (target p99 <= 500 ms).
//
// Setup (not timed): the processes, N instances created through the admin API with billingStatus
// "active" (an account's first instance is on its free trial otherwise: 300 messages a day),
// started and paired (a virtual phone scans each QR), all WORKING.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (50), BENCH_WARMUP (s, 3),
// BENCH_ROUNDS (3), BENCH_INSTANCES (default 1000), BENCH_ENQUEUE (10000, at most 10,000: the
// queue's cap),
// BENCH_ENQUEUE_CONCURRENCY (50), BENCH_SCHED_ITEMS (200), BENCH_SCHED_INSTANCES (20),
// BENCH_SCHED_DELAY_S (1), BENCH_BR=1 (one more immediate run to a Brazilian contact asked for
// with the ninth digit, registered without it), BENCH_INPROC=1 (gateway and session role in one
// process: the gateway calls the pod's manager directly instead of over tRPC),
// BENCH_LOG_LEVEL (warn; every process's output goes to .local/bench/send-<time>/),
// BENCH_IMMEDIATE_ONLY=1 (only part 1: for working on the send path; no verdict on the other two),
// BENCH_NODE_ARGS (node flags for every process, the bare baseline too), BENCH_CPU_PROF=1 (gateway, session pod, simnet and worker under `node --cpu-prof`: the hot spots of the
// gateway, the pod and simnet during the measured immediate run, and of the worker during the scheduling
// test, are printed at the end; figures taken under the profiler are not comparable to normal runs).
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import {
  cpuMeter,
  cpuPerAnswer,
  diffCommandStats,
  formatCores,
  freePort,
  intEnv,
  log,
  median,
  onCleanup,
  percentile,
  pool,
  printMachineFacts,
  RATE_LIMIT,
  ROOT,
  redisCommandStats,
  requireFrom,
  runCleanups,
  scanUntilPaired,
  simnetClient,
  sleep,
  spawnService,
  spreadOverConnections,
  stackRedisPid,
  stackTemporalPid,
  startBareFastify,
  startGateway,
  summaryTable,
  until,
  waitForHttp,
  warmAndMeasure,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";
import { SKELETON_ACK_SETTLE_MS, skeletonPath, startSkeleton } from "./support/skeleton/start.mjs";

export const description =
  "send routes end to end (gateway → session pod → simnet, Temporal queue): immediate sends/s + p50/p99, send/skeleton and CPU per send vs the skeleton (figures of merit), 10,000 enqueued (target <= 10 s), queue schedule error p99 (target <= 500 ms)";

const TARGET_ENQUEUE_S = 10;
const TARGET_SCHED_P99_MS = 500;
/** Instances are sized so that each sees at most this share of what its bucket can sustain. */
const RATE_HEADROOM = 0.5;
const ENTRY = "services/main/src/main.ts";
const CONTACT = "15550000001";
/** Brazilian contact (BENCH_BR=1): registered without the ninth digit, asked for with it. */
const CONTACT_BR_REGISTERED = "551187650001";
const CONTACT_BR_ASKED = "5511987650001";
const TEXT = "Olá! Esta é uma mensagem de teste do benchmark de envio.";

const fmt = (v, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");
const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "n/a");

/**
 * Exactly `amount` requests, `connections` at a time: wall time from the start to the last
 * answer (taken at that answer: autocannon itself only notices the end at its next 1 s tick),
 * and every answer's own latency (2xx only).
 */
function fixedAmount({ title, url, connections, amount, requests }) {
  return new Promise((resolve, reject) => {
    const samples = [];
    const t0 = process.hrtime.bigint();
    let last = t0;
    const instance = autocannon({ title, url, connections, amount, requests, timeout: 30 }, (err, result) => {
      if (err) return reject(err);
      const wallS = Number(last - t0) / 1e9;
      const sorted = Float64Array.from(samples).sort();
      resolve({
        title,
        wallS,
        total: result.requests.total,
        ok: result["2xx"],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodeStats: result.statusCodeStats,
        rps: result["2xx"] / wallS,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
      });
    });
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      last = process.hrtime.bigint();
      if (statusCode >= 200 && statusCode <= 299) samples.push(responseTime);
    });
  });
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted.length ? sorted[0] : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : Number.NaN,
  };
};

const codesOf = (r) =>
  Object.entries(r.statusCodeStats ?? {})
    .map(([status, s]) => `${status}: ${s.count}`)
    .join(", ");

export default async function sendBench() {
  const duration = intEnv("BENCH_DURATION", 10);
  const connections = intEnv("BENCH_CONNECTIONS", 50);
  const warmup = intEnv("BENCH_WARMUP", 3, { min: 0 });
  // 1,000 instances keep each under half of the 20/s rate limit up to ~11,500 sends/s: 200 (the
  // default until session 10) were refused with 429s on a machine that sends ~5,000/s.
  const n = Math.max(connections, intEnv("BENCH_INSTANCES", 1000));
  const enqueueN = intEnv("BENCH_ENQUEUE", 10_000);
  const enqueueConcurrency = intEnv("BENCH_ENQUEUE_CONCURRENCY", 50);
  const schedItems = intEnv("BENCH_SCHED_ITEMS", 200);
  const schedInstances = Math.min(n - 2, intEnv("BENCH_SCHED_INSTANCES", 20));
  const schedDelayS = intEnv("BENCH_SCHED_DELAY_S", 1, { min: 0 });
  const withBr = ["1", "true", "yes"].includes(process.env.BENCH_BR ?? "");
  const inproc = ["1", "true", "yes"].includes(process.env.BENCH_INPROC ?? "");
  const rounds = intEnv("BENCH_ROUNDS", 3);
  const logLevel = process.env.BENCH_LOG_LEVEL || "warn";
  const profile = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
  const immediateOnly = ["1", "true", "yes"].includes(process.env.BENCH_IMMEDIATE_ONLY ?? "");
  if (enqueueN > 10_000) throw new Error("BENCH_ENQUEUE: at most 10,000 (QUEUE_MAX_PENDING)");
  const logDir = join(ROOT, ".local", "bench", `send-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  const settings = { connections, duration, pipelining: 1 };
  const profDir = (name) => {
    const dir = join(logDir, "profiles", name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  // BENCH_NODE_ARGS: node flags for every process of the run, the bare baseline's included (V8
  // flags that NODE_OPTIONS refuses, e.g. --single-threaded-gc).
  const nodeFlags = (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const profArgs = (name) => [...nodeFlags, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profDir(name)}`] : [])];

  const out = console.log;
  out("bench send: POST /v1/instances/{id}/messages/text end to end, and the send queue");
  printMachineFacts();
  out(
    `processes: simnet, ${inproc ? "gateway + session role in ONE process (BENCH_INPROC=1)" : "gateway, session pod"}, ` +
      `worker (dispatcher + Temporal worker of the send queue), each node --import tsx ${ENTRY} with ROLES=…; ` +
      `Redis Stack and the Temporal dev server of pnpm stack; all on this machine`,
  );
  out(`all processes at LOG_LEVEL=${logLevel}, NODE_ENV=production; output in ${logDir}`);
  out(
    `autocannon: ${connections} connections, pipelining 1, warm-up ${warmup}s then ${duration}s measured, per target`,
  );
  if (profile) {
    out(
      "gateway, pod, simnet and worker under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs",
    );
  }
  out("");

  const results = {};
  let code = 0;
  try {
    // --- processes ------------------------------------------------------------------------
    const simnetPort = await freePort();
    const simnetUrl = `http://127.0.0.1:${simnetPort}`;
    const simnetWs = `ws://127.0.0.1:${simnetPort}`;
    const taskQueue = `bench-send-${randomBytes(4).toString("hex")}`;
    const shared = {
      ENABLE_SIM_PROVIDER: "true",
      SIMNET_URL: simnetWs,
      AUTH_STATE_KEY: randomBytes(32).toString("base64"),
      TEMPORAL_TASK_QUEUE: taskQueue,
      LOG_LEVEL: logLevel,
    };
    log(`starting the stack (if needed) and the gateway${inproc ? " (with the session role)" : ""}`);
    const podPort = await freePort();
    const gw = await startGateway({
      env: {
        ...shared,
        ...(inproc ? { ROLES: "gateway,session", POD_ID: "pod-gw", SESSION_PORT: String(podPort) } : {}),
      },
      logFile: join(logDir, "gateway.log"),
      nodeArgs: profArgs("gateway"), // node itself (also without profiling), like the other roles
    });
    const node = (name, env, nodeArgs = []) =>
      spawnService({
        name,
        command: process.execPath,
        args: [...nodeArgs, "--import", "tsx", ENTRY],
        env: { ...gw.env, ...env },
        logFile: join(logDir, `${name}.log`),
      });
    const simnet = node("simnet", { ROLES: "simnet", SIMNET_PORT: String(simnetPort) }, profArgs("simnet"));
    const workerPort = await freePort();
    const worker = node("worker", { ROLES: "worker", WORKER_PORT: String(workerPort) }, profArgs("worker"));
    const { Connection, Client } = requireFrom("services/worker")("@temporalio/client");
    const temporalConnection = await Connection.connect({ address: gw.env.TEMPORAL_ADDRESS, connectTimeout: 5_000 });
    const temporal = new Client({ connection: temporalConnection });
    // Runs before the worker stops (last in, first out): no queue workflow of this run is left
    // running on the shared dev server (e.g. after a failed run).
    onCleanup(async () => {
      const client = temporal;
      try {
        let terminated = 0;
        const query = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`;
        for await (const wf of client.workflow.list({ query })) {
          await client.workflow
            .getHandle(wf.workflowId, wf.runId)
            .terminate("bench send: cleanup")
            .then(() => terminated++)
            .catch(() => {}); // a child ends with its parent
        }
        if (terminated) log(`temporal: terminated ${terminated} workflow(s) of task queue ${taskQueue} still running`);
      } finally {
        await temporalConnection.close();
      }
    });
    const pod = inproc
      ? undefined
      : node("pod", { ROLES: "session", POD_ID: "pod-a", SESSION_PORT: String(podPort) }, profArgs("pod"));
    await waitForHttp(`${simnetUrl}/healthz`, { service: simnet });
    if (pod) await waitForHttp(`http://127.0.0.1:${podPort}/healthz`, { service: pod });
    log("waiting for the worker (it bundles the workflows first)");
    await waitForHttp(`http://127.0.0.1:${workerPort}/healthz`, { service: worker, timeoutMs: 180_000 });
    const services = [gw.service, ...(pod ? [pod] : []), simnet, worker];
    const pids = { redis: stackRedisPid(), temporal: stackTemporalPid() };

    const sim = simnetClient(simnetUrl, gw.adminToken);
    const api = async (base, inst, method, path, { json, headers = {} } = {}) => {
      const res = await fetch(`${base}/v1/instances/${inst.id}${path}`, {
        method,
        headers: {
          "x-instance-token": inst.token,
          ...(json !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body: json !== undefined ? JSON.stringify(json) : undefined,
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    const { Redis } = requireFrom("services/platform")("ioredis");
    const redis = new Redis(gw.redisUrl, { connectionName: "bench-send" });
    onCleanup(() => redis.disconnect());

    // --- setup (not timed) ------------------------------------------------------------------
    for (const phone of [CONTACT, ...(withBr ? [CONTACT_BR_REGISTERED] : [])]) {
      const r = await sim("POST", "/simnet/phones", { phone, pushName: "Bench Contact" });
      if (r.status !== 201 && r.status !== 200) throw new Error(`POST /simnet/phones: ${r.status}`);
    }
    let t = Date.now();
    log(`setup: creating ${n} sim instances (billingStatus active)`);
    const instances = new Array(n);
    await pool(instances, 16, async (_, i) => {
      const res = await gw.admin("POST", "/v1/admin/instances", {
        name: `send-${i}`,
        kind: "standard",
        provider: "sim",
        billingStatus: "active",
      });
      if (res.status !== 201) throw new Error(`POST /v1/admin/instances: ${res.status} ${await res.text()}`);
      const body = await res.json();
      instances[i] = { id: body.instance.id, token: body.token, phone: `1555${String(2_000_000 + i)}` };
    });
    log(`setup: created in ${((Date.now() - t) / 1000).toFixed(1)} s; starting and pairing each`);
    t = Date.now();
    await pool(instances, 20, async (inst) => {
      const r = await api(gw.url, inst, "POST", "/start");
      if (r.status !== 200) throw new Error(`start ${inst.id}: ${r.status} ${JSON.stringify(r.body)}`);
      await scanUntilPaired(sim, inst, { timeoutMs: 60_000, intervalMs: 50 });
    });
    const statuses = async () => {
      const byStatus = {};
      let cursor = null;
      do {
        const res = await gw.admin("GET", `/v1/admin/instances?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
        if (res.status !== 200) throw new Error(`GET /v1/admin/instances: ${res.status}`);
        const page = await res.json();
        for (const i of page.data) byStatus[i.connectionStatus] = (byStatus[i.connectionStatus] ?? 0) + 1;
        cursor = page.nextCursor;
      } while (cursor);
      return byStatus;
    };
    await until(async () => (await statuses()).WORKING === n, `${n} instances WORKING`, {
      timeoutMs: 60_000,
      explain: async () => JSON.stringify(await statuses()),
    });
    log(`setup: ${n} paired and WORKING in ${((Date.now() - t) / 1000).toFixed(1)} s`);

    const sendBody = (chatId) => JSON.stringify({ chatId, text: TEXT });
    const postHeaders = (token) => ({ "content-type": "application/json", "x-instance-token": token });

    // --- 1. immediate sends vs bare Fastify --------------------------------------------------
    const { service: bareSvc, url: bareUrl } = await startBareFastify("send-bare-fastify.mjs", nodeFlags);
    const fakeTargets = Array.from({ length: n }, (_, i) => ({
      method: "POST",
      path: `/v1/instances/i${String(i).padStart(24, "0")}/messages/text`,
      headers: postHeaders(`gwt_${"x".repeat(40)}${i}`),
      body: sendBody(`${CONTACT}@c.us`),
    }));
    const measureBare = (title, warm) =>
      warmAndMeasure(
        { title, url: bareUrl, ...settings, ...spreadOverConnections(fakeTargets, connections) },
        { warmup: warm, cpu: { services: [bareSvc] } },
      );

    const statsBefore = (await sim("GET", "/simnet/stats")).body;
    const targetsTo = (chatId) =>
      instances.map((inst) => ({
        method: "POST",
        path: `/v1/instances/${inst.id}/messages/text`,
        headers: postHeaders(inst.token),
        body: sendBody(chatId),
      }));
    const measureSend = (title, warm) =>
      warmAndMeasure(
        { title, url: gw.url, ...settings, ...spreadOverConnections(targetsTo(`${CONTACT}@c.us`), connections) },
        {
          warmup: warm,
          cpu: { services, pids },
          // Redis's own time per command over the measured run (its CPU is a share of every send).
          around: async (run) => {
            const before = await redisCommandStats(redis);
            const result = await run();
            result.redisCommands = diffCommandStats(before, await redisCommandStats(redis));
            return result;
          },
        },
      );
    // The architecture's skeleton (bench/skeleton.mjs: the same hops, no business logic) on as
    // many instances: the ceiling of the ratio on this machine, and send/skeleton a figure of the
    // code that moves less with the machine than send/bare.
    const skeleton = await startSkeleton({
      redis,
      redisUrl: gw.redisUrl,
      prefix: `${gw.env.KEY_PREFIX}skel:`,
      instances: n,
      nodeFlags,
    });
    const skeletonTargets = Array.from({ length: n }, (_, i) => ({
      method: "POST",
      path: skeletonPath(i),
      headers: postHeaders(`gwt_${"x".repeat(40)}${i}`),
      body: sendBody(`${CONTACT}@c.us`),
    }));
    const measureSkeleton = (title, warm) =>
      warmAndMeasure(
        { title, url: skeleton.url, ...settings, ...spreadOverConnections(skeletonTargets, connections) },
        { warmup: warm, cpu: { services: skeleton.services, pids: { redis: pids.redis } } },
      );
    // Alternating rounds (bare, skeleton, send, bare, …): the machine's speed drifts within a
    // minute, so each round's ratios compare runs taken back to back; the figures are their medians.
    results.rounds = [];
    for (let r = 1; r <= rounds; r++) {
      const tag = r === 1 ? "" : ` #${r}`;
      if (r > 1) await sleep(2_000); // the previous round's acks settle
      const bare = await measureBare(`bare fastify${tag}`, r === 1 ? warmup : 0);
      const skel = await measureSkeleton(`skeleton${tag}`, r === 1 ? warmup : 0);
      await sleep(SKELETON_ACK_SETTLE_MS); // its last second's acks, not the send run, pay for them
      const send = await measureSend(`send (${CONTACT.slice(0, 4)}…)${tag}`, r === 1 ? warmup : 0);
      results.rounds.push({ bare, skel, send });
    }
    await bareSvc.stop();
    for (const svc of skeleton.services) await svc.stop();
    const statsAfter = (await sim("GET", "/simnet/stats")).body;
    results.bare = results.rounds[0].bare;
    results.send = results.rounds[0].send;
    results.profileWindow = results.send.window;
    results.simnetMessages = statsAfter.messagesSent - statsBefore.messagesSent;
    results.sendWindowS = warmup + duration;
    if (withBr) {
      await sleep(2_000); // the acks of the run before settle
      results.sendBr = await warmAndMeasure(
        {
          title: `send (55… 9th digit)`,
          url: gw.url,
          ...settings,
          ...spreadOverConnections(targetsTo(`${CONTACT_BR_ASKED}@c.us`), connections),
        },
        { warmup, cpu: { services, pids } },
      );
    }
    if (!immediateOnly) {
      // Let the acks (sent → delivered, 1 s apart) and the worker's dispatcher (every event of the
      // load goes through its consumer group) settle, so that the worker's event loop is free.
      const settleMeter = cpuMeter({ services, pids });
      await sleep(2_500);
      const shards = Number(gw.env.EVENT_SHARDS ?? 4);
      const backlog = async () => {
        let total = 0;
        for (let s = 0; s < shards; s++) {
          const groups = await redis.call("XINFO", "GROUPS", `${gw.prefix}events:${s}`).catch(() => []);
          for (const g of groups) {
            const field = (name) => (g.includes(name) ? g[g.indexOf(name) + 1] : 0);
            total += Number(field("lag") ?? 0) + Number(field("pending") ?? 0);
          }
        }
        return total;
      };
      results.backlogBefore = await backlog();
      results.settleMs =
        2_500 +
        (await until(async () => (await backlog()) === 0, "the dispatcher's backlog", {
          timeoutMs: 60_000,
          intervalMs: 200,
        }));
      results.settleCores = settleMeter.stop();

      // --- 3. scheduling error of queued sends (on the normal gateway) -------------------------
      const sched = instances.slice(0, schedInstances);
      log(
        `schedule: ${schedItems} queued items over ${sched.length} instances, delayMin = delayMax = ${schedDelayS} s, ` +
          `delayTyping 0`,
      );
      const lastSeq = new Map();
      await pool(sched, 10, async (inst) => {
        const r = await api(gw.url, inst, "PATCH", "/queue/settings", {
          json: { delayMin: schedDelayS, delayMax: schedDelayS },
        });
        if (r.status !== 200) throw new Error(`PATCH queue/settings: ${r.status} ${JSON.stringify(r.body)}`);
        const sent = await sim("GET", `/simnet/phones/${inst.phone}/sent?limit=1`);
        lastSeq.set(inst.id, sent.body.messages[0]?.seq ?? 0);
      });
      const items = [];
      const schedMeter = cpuMeter({ services, pids });
      const schedWindow = { startUs: Number(process.hrtime.bigint() / 1000n) };
      const tEnq = Date.now();
      await pool(
        Array.from({ length: schedItems }, (_, j) => j),
        sched.length,
        async (j) => {
          const inst = sched[j % sched.length];
          const r = await api(gw.url, inst, "POST", "/messages/text", {
            json: { chatId: `${CONTACT}@c.us`, text: `${TEXT} #${j}`, delayTyping: 0 },
            headers: { "x-queue": "true" },
          });
          if (r.status !== 202) throw new Error(`queued send: ${r.status} ${JSON.stringify(r.body)}`);
          items.push({ inst, qid: r.body.id });
        },
      );
      const enqueuedMs = Date.now() - tEnq;
      const itemKey = (it) => `${gw.prefix}q:${it.inst.id}:item:${it.qid}`;
      const readItems = async () => {
        const pipe = redis.pipeline();
        for (const it of items) pipe.hmget(itemKey(it), "status", "plannedAt", "messageId", "finishedAt", "createdAt");
        return (await pipe.exec()).map(([, v]) => v);
      };
      let rows;
      const FINAL = new Set(["sent", "failed", "expired", "cancelled"]);
      const expectedS = Math.ceil(schedItems / sched.length) * schedDelayS;
      let schedTimeout = null;
      await until(
        async () => {
          rows = await readItems();
          return rows.every((r) => FINAL.has(r[0]));
        },
        `all ${schedItems} queued items final`,
        {
          timeoutMs: Math.max(60, 4 * expectedS) * 1000,
          intervalMs: 250,
          explain: async () => {
            const count = {};
            const perInstance = new Map();
            (rows ?? []).forEach((r, i) => {
              count[r[0]] = (count[r[0]] ?? 0) + 1;
              const id = items[i].inst.id;
              if (r[0] === "sent") perInstance.set(id, (perInstance.get(id) ?? 0) + 1);
              else perInstance.set(id, perInstance.get(id) ?? 0);
            });
            return `${JSON.stringify(count)}; sent per instance ${JSON.stringify([...perInstance.values()])}`;
          },
        },
      ).catch((err) => {
        // Not fatal: what was sent is measured, the rest is reported (and fails the target).
        schedTimeout = err.message;
        log(err.message);
      });
      const drainedMs = Date.now() - tEnq;
      const schedCores = schedMeter.stop();
      schedWindow.endUs = Number(process.hrtime.bigint() / 1000n);
      results.schedWindow = schedWindow;
      const atOf = new Map();
      for (const inst of sched) {
        const sent = await sim("GET", `/simnet/phones/${inst.phone}/sent?since=${lastSeq.get(inst.id)}`);
        for (const m of sent.body.messages) atOf.set(m.id, m.at);
      }
      const errors = [];
      const signed = [];
      const byStatus = {};
      let unmatched = 0;
      items.forEach((it, i) => {
        const [status, plannedAt, messageId] = rows[i];
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        if (status !== "sent") return;
        const networkId = messageId?.split("_").at(-1);
        const at = atOf.get(networkId);
        if (at === undefined || !plannedAt) {
          unmatched++;
          return;
        }
        signed.push(at - Number(plannedAt));
        errors.push(Math.abs(at - Number(plannedAt)));
        it.at = at;
        it.plannedAt = Number(plannedAt);
      });
      // Where the error comes from: each sent item's child workflow history (Temporal server times).
      const segments = { planToTimer: [], timerLate: [], timerToSend: [], sendToNetwork: [], plannedVsPlanDone: [] };
      const ms = (e) => Number(e.eventTime.seconds) * 1000 + Math.floor(e.eventTime.nanos / 1e6);
      await pool(
        items.filter((it) => it.at !== undefined),
        8,
        async (it) => {
          const history = await temporal.workflow.getHandle(`queue-item-${it.qid}`).fetchHistory();
          const ev = history.events ?? [];
          const name = (e) => e.activityTaskScheduledEventAttributes?.activityType?.name;
          const planSched = ev.find((e) => name(e) === "planQueueItem");
          const planDone =
            planSched &&
            ev.find(
              (e) =>
                e.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() === planSched.eventId?.toString(),
            );
          const timerStarted = ev.find((e) => e.timerStartedEventAttributes);
          const timerFired = ev.find((e) => e.timerFiredEventAttributes);
          const sendSched = ev.find((e) => name(e) === "sendQueueItem");
          if (!planDone || !timerStarted || !timerFired || !sendSched) return;
          const delayMs = schedDelayS * 1000;
          segments.plannedVsPlanDone.push(it.plannedAt - delayMs - ms(planDone));
          segments.planToTimer.push(ms(timerStarted) - ms(planDone));
          segments.timerLate.push(ms(timerFired) - ms(timerStarted) - delayMs);
          segments.timerToSend.push(ms(sendSched) - ms(timerFired));
          segments.sendToNetwork.push(it.at - ms(sendSched));
        },
      ).catch((err) => log(`schedule: reading the workflow histories failed: ${err.message}`));
      results.sched = {
        instances: sched.length,
        items: items.length,
        enqueuedMs,
        drainedMs,
        timeout: schedTimeout,
        cores: schedCores,
        expectedS,
        byStatus,
        unmatched,
        abs: stats(errors),
        signed: stats(signed),
        segments: Object.fromEntries(Object.entries(segments).map(([k, v]) => [k, stats(v)])),
      };

      // --- 2. enqueue rate (second gateway process, raised rate limit) -------------------------
      const [port2, internal2] = [await freePort(), await freePort()];
      const gw2Url = `http://127.0.0.1:${port2}`;
      const raised = 1_000_000;
      log(`enqueue: a second gateway process with RATE_LIMIT_PER_SECOND=RATE_LIMIT_BURST=${raised}`);
      const gw2 = spawnService({
        name: "gateway-2",
        command: process.execPath,
        args: ["--import", "tsx", ENTRY],
        env: {
          ...gw.env,
          ROLES: "gateway",
          PORT: String(port2),
          INTERNAL_PORT: String(internal2),
          PUBLIC_BASE_URL: gw2Url,
          RATE_LIMIT_PER_SECOND: String(raised),
          RATE_LIMIT_BURST: String(raised),
        },
        logFile: join(logDir, "gateway-2.log"),
      });
      await waitForHttp(`${gw2Url}/healthz`, { service: gw2 });
      const enqInst = instances[schedInstances];
      const warmInst = instances[schedInstances + 1];
      for (const inst of [enqInst, warmInst]) {
        const r = await api(gw2Url, inst, "POST", "/queue/pause");
        if (r.status !== 200 || !r.body.paused) throw new Error(`queue/pause: ${r.status} ${JSON.stringify(r.body)}`);
      }
      const queueRequest = (inst) => ({
        method: "POST",
        path: `/v1/instances/${inst.id}/messages/text`,
        headers: { ...postHeaders(inst.token), "x-queue": "true" },
        body: sendBody(`${CONTACT}@c.us`),
      });
      const enqueueTo = (title, inst, amount) =>
        fixedAmount({ title, url: gw2Url, connections: enqueueConcurrency, amount, requests: [queueRequest(inst)] });
      const warmN = Math.min(1_000, enqueueN);
      log(`enqueue: warm-up, ${warmN} to another instance (then cancelled)`);
      const warm = await enqueueTo("enqueue warm-up", warmInst, warmN);
      if (warm.ok !== warmN) throw new Error(`enqueue warm-up: ${warm.ok} of ${warmN} accepted (${codesOf(warm)})`);
      await api(gw2Url, warmInst, "DELETE", "/queue");
      log(`enqueue: ${enqueueN} queued sends to one paused instance, ${enqueueConcurrency} in flight`);
      const enqMeter = cpuMeter({ services: [gw2, ...services.filter((s) => s !== gw.service)], pids });
      const enq = await enqueueTo("enqueue", enqInst, enqueueN);
      enq.cores = enqMeter.stop();
      const settingsAfter = await api(gw2Url, enqInst, "GET", "/queue/settings");
      enq.pending = settingsAfter.body?.pending;
      const tDel = process.hrtime.bigint();
      const del = await api(gw2Url, enqInst, "DELETE", "/queue");
      enq.deleteMs = Number(process.hrtime.bigint() - tDel) / 1e6;
      enq.cancelled = del.body?.cancelled;
      enq.deleteStatus = del.status;
      results.enqueue = enq;
      results.gw2 = gw2;
    }

    for (const s of [gw.service, ...(results.gw2 ? [results.gw2] : []), ...(pod ? [pod] : []), simnet, worker]) {
      const warnings = s
        .tail()
        .split("\n")
        .filter((l) => /"level":[456]0\b/.test(l));
      if (warnings.length) results.warnings = [...(results.warnings ?? []), `${s.name}: ${warnings.at(-1)}`];
    }
  } finally {
    await runCleanups();
  }

  // --- report -----------------------------------------------------------------------------------
  const { send, sendBr, sched, enqueue } = results;
  const sustainable = RATE_LIMIT.perSecond + RATE_LIMIT.burst / results.sendWindowS;
  out("");
  out(`1. immediate sends: POST /v1/instances/{id}/messages/text {chatId, text}, no X-Queue header`);
  out(
    `   spread over ${n} paired instances (each connection cycling its own ${Math.floor(n / connections)}), all to ` +
      `one virtual contact ${CONTACT} (non-Brazilian: no ninth-digit number check)`,
  );
  out(
    `   per instance ${fmt(send.rps / n, 1)} sends/s measured; the rate limit (${RATE_LIMIT.perSecond}/s, burst ` +
      `${RATE_LIMIT.burst}) lets ${fmt(sustainable, 1)}/s pass over the ${results.sendWindowS}s warm-up + run ` +
      `(the pool keeps each instance under ${RATE_HEADROOM * 100} % of it up to ${fmt(sustainable * RATE_HEADROOM * n)} sends/s)`,
  );
  const roundRuns = results.rounds.flatMap((x) => [x.send, x.skel, x.bare]);
  out(
    `   simnet counted ${int(results.simnetMessages)} messages sent during warm-up + the ${results.rounds.length} ` +
      `measured rounds (2xx answers of the measured rounds alone: ${int(results.rounds.reduce((a, x) => a + x.send.ok, 0))})`,
  );
  for (const r of [...roundRuns, sendBr]) {
    if (!r?.cores) continue;
    out(`   cpu cores used, ${r.title} run: ${formatCores(r.cores)}`);
    if ((r.cores["everything else"] ?? 0) > 0.25) {
      out(
        `     WARNING: other work on this machine used ${r.cores["everything else"].toFixed(2)} cores: figures are skewed`,
      );
    }
  }
  for (const r of [...roundRuns, sendBr]) {
    const c = cpuPerAnswer(r);
    if (c) out(`   cpu per 2xx answer, ${r.title}: ${fmt(c.totalUs)} µs (${c.parts.join(", ")})`);
  }
  out("   latency: 2xx responses only, from each response's own timing");
  out("");
  out(summaryTable([...roundRuns, ...(sendBr ? [sendBr] : [])]).replace(/^/gm, "   "));
  out("");
  for (const r of [...roundRuns, sendBr]) {
    if (r && (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)) {
      const why = r.statusCodeStats["429"] ? "the rate limit interfered (raise BENCH_INSTANCES)" : "errors interfered";
      out(
        `   INVALID ${r.title}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts (${codesOf(r)}): ${why}`,
      );
      code = 1;
    }
  }
  const ratios = results.rounds.map((x) => x.send.rps / x.bare.rps);
  const ratio = median(ratios);
  // The round nearest the median (the median itself with an odd count).
  const medianRound = results.rounds.reduce((best, x, i) =>
    Math.abs(ratios[i] - ratio) < Math.abs(best.send.rps / best.bare.rps - ratio) ? x : best,
  );
  out(`   ratio per round: ${ratios.map((x) => x.toFixed(3)).join(", ")}`);
  out(
    `   ratio send/bare: ${ratio.toFixed(3)} (median of ${ratios.length} alternating rounds; for the record, no ` +
      `target: the retired >= 0.15 was as much the machine's figure as the code's)`,
  );
  const ceilings = results.rounds.map((x) => x.skel.rps / x.bare.rps);
  const ofSkeleton = results.rounds.map((x) => x.send.rps / x.skel.rps);
  out(
    `   ratio skeleton/bare (the architecture's ceiling here): ${ceilings.map((x) => x.toFixed(3)).join(", ")}, ` +
      `median ${median(ceilings).toFixed(3)}`,
  );
  out(
    `   ratio send/skeleton: ${ofSkeleton.map((x) => x.toFixed(3)).join(", ")}, median ${median(ofSkeleton).toFixed(3)}`,
  );
  // CPU per answer of the send's processes against the skeleton's in the same round: the
  // machine's load inflates both alike, so their quotient moves less than either.
  const cpuRounds = results.rounds
    .map((x) => ({ send: cpuPerAnswer(x.send)?.totalUs, skel: cpuPerAnswer(x.skel)?.totalUs }))
    .filter((x) => Number.isFinite(x.send) && Number.isFinite(x.skel));
  const merit = {
    ofSkeleton: median(ofSkeleton),
    cpuSend: cpuRounds.length ? median(cpuRounds.map((x) => x.send)) : Number.NaN,
    cpuSkel: cpuRounds.length ? median(cpuRounds.map((x) => x.skel)) : Number.NaN,
    cpuOverSkel: cpuRounds.length ? median(cpuRounds.map((x) => x.send / x.skel)) : Number.NaN,
    cpuOverSkelRounds: cpuRounds.map((x) => x.send / x.skel),
  };
  out(
    `   cpu per send over the skeleton's per answer, same round: ` +
      `${merit.cpuOverSkelRounds.map((x) => `${x.toFixed(2)}×`).join(", ")}, median ${fmt(merit.cpuOverSkel, 2)}×`,
  );
  const rc = medianRound.send.redisCommands;
  if (rc) {
    const sends = medianRound.send.ok || 1;
    // A script's time includes the commands it runs, which Redis also counts on their own.
    out(`   redis commands per send, median round (calls × µs each; evalsha includes the commands its scripts run):`);
    out(
      `     ${rc
        .slice(0, 14)
        .map((c) => `${c.name} ${fmt(c.calls / sends, 2)}× ${fmt(c.usec / c.calls, 1)}`)
        .join(", ")}`,
    );
  }

  if (!immediateOnly) {
    out("");
    out(
      `2. enqueue: ${int(enqueueN)} POST …/messages/text with X-Queue: true to ONE instance, its queue paused, ` +
        `${enqueueConcurrency} in flight`,
    );
    out(
      `   on a second gateway process with RATE_LIMIT_PER_SECOND = RATE_LIMIT_BURST = 1,000,000 (at the default ` +
        `${RATE_LIMIT.perSecond}/s one instance could enqueue ${int(enqueueN)} in ${int(enqueueN / RATE_LIMIT.perSecond)} s); ` +
        `warm-up: 1,000 to another instance first`,
    );
    out(
      `   all accepted in ${fmt(enqueue.wallS, 2)} s: ${int(enqueue.rps)} enqueues/s, p50 ${fmt(enqueue.p50, 2)} ms, ` +
        `p99 ${fmt(enqueue.p99, 2)} ms; 202: ${int(enqueue.ok)}, other: ${enqueue.non2xx} (${codesOf(enqueue)}), ` +
        `errors ${enqueue.errors}`,
    );
    out(`   queue afterwards: pending ${int(enqueue.pending)}`);
    out(
      `   DELETE /queue: ${enqueue.deleteStatus}, cancelled ${int(enqueue.cancelled)} in ${fmt(enqueue.deleteMs / 1000, 2)} s ` +
        `(one queue.failed event each)`,
    );
    out(`   cpu cores used during the enqueue: ${formatCores(enqueue.cores)}`);
    if ((enqueue.cores["everything else"] ?? 0) > 0.25) {
      out(
        `     WARNING: other work on this machine used ${enqueue.cores["everything else"].toFixed(2)} cores: figures are skewed`,
      );
    }
    if (enqueue.ok !== enqueueN || enqueue.pending !== enqueueN) code = 1;

    out("");
    out(
      `3. scheduling (${fmt(results.settleMs / 1000, 1)} s after the immediate run: its acks sent and the worker's ` +
        `dispatcher done with its events; ${int(results.backlogBefore)} were still unread or unacknowledged 2.5 s after it)`,
    );
    out(
      `   the Temporal dev server (shared: other workflows on it count too) used ${fmt(results.settleCores.temporal, 2)} ` +
        `cores meanwhile, before any queue work of this run`,
    );
    out(
      `   ${sched.items} queued items (${int(sched.items / sched.instances)} per instance) over ` +
        `${sched.instances} instances, delayMin = delayMax = ${schedDelayS} s, delayTyping 0`,
    );
    out(
      `   enqueued in ${fmt(sched.enqueuedMs / 1000, 2)} s; all final ${fmt(sched.drainedMs / 1000, 2)} s after the first ` +
        `enqueue (the delays alone: ${sched.expectedS} s per instance); statuses ${JSON.stringify(sched.byStatus)}` +
        (sched.timeout ? ` — GAVE UP WAITING: ${sched.timeout}` : "") +
        (sched.unmatched ? `; ${sched.unmatched} sent without a simnet message or plannedAt` : ""),
    );
    out(
      `   |simnet send time − plannedAt|: p50 ${fmt(sched.abs.p50)} ms, p99 ${fmt(sched.abs.p99)} ms, max ${fmt(sched.abs.max)} ms ` +
        `(n ${sched.abs.n})`,
    );
    out(
      `   signed (positive: late): min ${fmt(sched.signed.min)} ms, mean ${fmt(sched.signed.mean, 1)} ms, ` +
        `max ${fmt(sched.signed.max)} ms`,
    );
    const seg = sched.segments;
    if (seg.planToTimer.n) {
      const f = (x) => `p50 ${fmt(x.p50)} / p99 ${fmt(x.p99)} ms`;
      out(
        `   where it goes, per item from its child workflow's history (Temporal server clock; n ${seg.planToTimer.n}):`,
      );
      out(
        `     plannedAt − delay vs planQueueItem completed: ${f(seg.plannedVsPlanDone)} (the plan is taken inside the activity)`,
      );
      out(`     planQueueItem completed → timer started (a workflow task): ${f(seg.planToTimer)}`);
      out(`     timer fired − started − delay: ${f(seg.timerLate)}`);
      out(`     timer fired → sendQueueItem scheduled (a workflow task): ${f(seg.timerToSend)}`);
      out(`     sendQueueItem scheduled → simnet has the message: ${f(seg.sendToNetwork)}`);
    }
    out(`   cpu cores used from the first enqueue until all were final: ${formatCores(sched.cores)}`);
    if ((sched.cores["everything else"] ?? 0) > 0.25) {
      out(
        `     WARNING: other work on this machine used ${sched.cores["everything else"].toFixed(2)} cores: figures are skewed`,
      );
    }
    if (sched.byStatus.sent !== sched.items || sched.unmatched) code = 1;
  }
  if (results.warnings?.length) {
    out("");
    out(`warnings or errors in the processes' output (last of each):`);
    for (const w of results.warnings) out(`   ${w.slice(0, 600)}`);
  }

  if (profile) {
    const runs = [
      ...["gateway", ...(inproc ? [] : ["pod"]), "simnet"].map((name) => [
        name,
        "measured immediate run",
        results.profileWindow,
      ]),
      ...(immediateOnly ? [] : [["worker", "scheduling test", results.schedWindow]]),
    ];
    for (const [name, what, window] of runs) {
      const [file] = newestProfiles(join(logDir, "profiles", name));
      out("");
      out(file ? `${name} CPU profile (${what}): ${file}` : `no CPU profile of the ${name}`);
      if (file) out(hotSpots(file, { top: 25, window }));
    }
  }

  out("");
  // Figures of merit first (no verdict: what the send path costs beyond the architecture's
  // minimum); then the targets that still stand.
  const rows = [
    ["immediate sends / skeleton (median of rounds)", "", fmt(merit.ofSkeleton, 3), null],
    [
      "cpu per send, all processes (median of rounds)",
      "",
      `${fmt(merit.cpuSend)} µs (skeleton ${fmt(merit.cpuSkel)} µs: ${fmt(merit.cpuOverSkel, 2)}×)`,
      null,
    ],
    ...(immediateOnly
      ? []
      : [
          [
            `${int(enqueueN)} enqueued (time)`,
            `<= ${TARGET_ENQUEUE_S} s`,
            `${fmt(enqueue.wallS, 2)} s`,
            enqueue.ok === enqueueN && enqueue.wallS <= TARGET_ENQUEUE_S,
          ],
          [
            "queue schedule error p99",
            `<= ${TARGET_SCHED_P99_MS} ms`,
            `${fmt(sched.abs.p99)} ms`,
            sched.abs.n === sched.items && sched.abs.p99 <= TARGET_SCHED_P99_MS,
          ],
        ]),
  ];
  const head = ["measure", "target", "measured", ""];
  const cells = rows.map(([a, b, c, met]) => [
    a,
    b || "-",
    c,
    met === null ? "figure of merit" : met ? "target met" : "TARGET MISSED",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join("  ");
  out(line(head).trimEnd());
  for (const r of cells) out(line(r).trimEnd());
  out(
    `(immediate, median round: ${fmt(medianRound.send.rps)} sends/s, p50 ${fmt(medianRound.send.p50, 2)} ms, ` +
      `p99 ${fmt(medianRound.send.p99, 2)} ms; bare ${fmt(medianRound.bare.rps)} req/s)`,
  );
  return code;
}
