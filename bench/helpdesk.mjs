// pnpm bench helpdesk — the help-desk connector end to end (docs/helpdesk.md, issue 24): simnet's
// phones write to paired sim instances, each with a `helpdesk` app; the worker relays every
// message into the Chatwoot mock. Every part in its own process on this machine: simnet
// (ROLES=simnet), the gateway and a session pod (ROLES=gateway,session), the worker (ROLES=worker:
// the help-desk intake and its Temporal workflows and activities), the Chatwoot mock
// (ROLES=chatwootmock, CHATWOOTMOCK_MESSAGES_PER_MINUTE=0: no flood limit), on the local stack's
// Redis Stack and Temporal dev server. This process drives the phones and reads the results.
//
// Set-up (not timed): BENCH_INSTANCES (4) sim instances, created, started and paired; for each one
// an account with an API inbox of its own in the mock (`POST /_control/setup`: one `helpdesk` app
// per inbox, as docs/helpdesk.md sets it up; a shared inbox would also make two numbers' chats with
// one customer share a Chatwoot contact), the app pointing at it, and the inbox's webhook pointing
// at the app's `webhookUrl` path on the gateway (every relayed message comes back to the hook,
// which must ignore it, as with a real Chatwoot). BENCH_CONTACTS (50) phones per instance, each its
// own chat (conversations run in parallel; one chat's messages are relayed one at a time). Then a
// warm-up: one message from every phone (the connector finds no contact: search + contact +
// conversation made), relayed and reported apart.
//
// 1. Steady: BENCH_RATE (100) messages/s for BENCH_STEADY_S (10) s, round robin over the phones:
//    messages relayed per second and the latency phone → Chatwoot p50/p99.
// 2. Max: BENCH_MAX_MESSAGES (2,000) sent as fast as simnet takes them (BENCH_CONCURRENCY lines, each
//    phone on one line so that its messages go in order): relayed/s until the last one arrived.
// 3. Outage: the mock answers 503 to its API for BENCH_OUTAGE_S (30) s (`POST /_control/outage`)
//    while the phones go on at BENCH_OUTAGE_RATE (20) messages/s; then: nothing lost, and the time
//    from the outage's end to the last message of the backlog written.
// 4. Baseline in the same run: the same messages POSTed straight to the mock's API by this process
//    (`POST …/conversations/:id/messages`, incoming, with a `source_id`), into a second account
//    per instance whose contacts and conversations were made once beforehand, its inbox's webhook
//    to the same gateway hook (the mock does the same work per message): the steady rate
//    and the max run with the same lines (BENCH_CONCURRENCY, default 100 = the Temporal worker's
//    activity slots, the relay's own limit on chats written at once): messages/s and p50/p99.
//
// Latency: from this process's clock as it POSTs `/simnet/phones/{phone}/send` to the message's
// `createdAt` in the mock (the mock's clock, millisecond resolution, same machine) — it covers
// simnet, the session pod, the event stream, the intake, Temporal, the activity and the mock. The
// worker's own histogram (helpdesk_relay_latency_seconds: from the event's publication to the
// write) is printed beside it, by bucket. Direct baseline: each POST's round trip.
//
// Checks (exit code 1 when any fails): every message sent (by `source_id` `WAID:<network id>`)
// present in the mock exactly once, in its instance's account, and each chat's messages in the
// mock in the order its phone sent them. The mock's `/_control/state` is read at the end of each
// phase and once at the end (its cost is printed); while a phase drains the bench watches the
// worker's relayed counter (`helpdesk_relay_latency_seconds_count` on its /metrics) instead, and
// the state once a second only when something is missing.
//
// Environment: BENCH_INSTANCES, BENCH_CONTACTS, BENCH_RATE, BENCH_STEADY_S, BENCH_MAX_MESSAGES,
// BENCH_CONCURRENCY, BENCH_OUTAGE_S (0: no outage phase), BENCH_OUTAGE_RATE, BENCH_DRAIN_TIMEOUT_S
// (120: how long a phase may take to arrive after the last send, beyond the outage),
// BENCH_CPU_PROF=1 (the worker under `node --cpu-prof`: its hot spots during the max phase are
// printed; figures under the profiler are not comparable), BENCH_WORKER_OPTIONS (JSON merged into
// the worker's `Worker.create` options, an experiment: bench/support/worker-options.mjs),
// BENCH_LOG_LEVEL (warn). Every process's output is kept in .local/bench/helpdesk-<time>/.
//
// Also printed per phase: where each message's time went, from the help-desk workflows' Temporal
// histories (bench/support/helpdesk-timeline.mjs: published → signalled by the intake → its
// activity scheduled, split into waiting for the chat's previous item and the workflow task's own
// queue and run → started → written), the cores each process used and the CPU per relayed message.
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
  scanUntilPaired,
  simnetClient,
  sleep,
  spawnService,
  stackRedisPid,
  stackTemporalPid,
  until,
  waitForHttp,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";
import { itemTimelines } from "./support/helpdesk-timeline.mjs";

export const description =
  "help-desk connector end to end (simnet phones → gateway/session → worker → Chatwoot mock): relayed/s and p50/p99 phone → Chatwoot at 100/s, max relayed/s, a 30 s Chatwoot outage (nothing lost or doubled, order kept, drain time), vs the same messages POSTed straight to the mock";

const ENTRY = "services/main/src/main.ts";
const { Pool } = requireFrom("services/platform")("undici");

const flag = (name) => ["1", "true", "yes"].includes(process.env[name] ?? "");
const hr = () => Number(process.hrtime.bigint()) / 1e6;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const fmt = (v, d = 0) =>
  Number.isFinite(v) ? v.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "n/a";
const sorted = (xs) => Float64Array.from(xs).sort();

async function call(url, method = "GET", json, headers = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(json === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : {};
}

/** Reads a worker's /metrics: the help-desk histogram's buckets and count. */
async function relayMetrics(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const buckets = [];
  for (const m of text.matchAll(/^helpdesk_relay_latency_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)) {
    buckets.push({ le: m[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[1]), n: Number(m[2]) });
  }
  const count = Number(/^helpdesk_relay_latency_seconds_count (\d+)/m.exec(text)?.[1] ?? 0);
  return { buckets, count };
}

/** Between two relayMetrics reads: relayed items and the bucket bounds of their p50 and p99. */
function histogramDelta(before, after) {
  const n = after.count - before.count;
  const le = (q) => {
    for (let i = 0; i < after.buckets.length; i++) {
      if (after.buckets[i].n - (before.buckets[i]?.n ?? 0) >= q * n) return after.buckets[i].le;
    }
    return Number.NaN;
  };
  return { n, p50: le(0.5), p99: le(0.99) };
}
const leText = (le) =>
  le === Number.POSITIVE_INFINITY ? "> 300 s" : `≤ ${le * 1000 >= 1000 ? `${le} s` : `${le * 1000} ms`}`;

/**
 * Runs `send(i, k)` for messages i = 0… of `total`, message i from phone k = i mod phones, at
 * `rate` per second for as long as it takes (open loop: each message at its time whatever the
 * answers), except that one phone's messages go one after the other (its previous answered first),
 * so that each chat has one order. Answers how far behind schedule the sender fell at most.
 */
async function atRate(total, rate, phones, send) {
  const chains = new Array(phones).fill(Promise.resolve());
  const t0 = hr();
  let maxBehind = 0;
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - hr();
    if (wait > 1) await sleep(wait);
    else maxBehind = Math.max(maxBehind, -wait);
    const k = i % phones;
    chains[k] = chains[k].then(() => send(i, k));
  }
  await Promise.all(chains);
  return { seconds: (hr() - t0) / 1000, maxBehindMs: maxBehind };
}

/**
 * Runs `send(i, k)` for `total` messages as fast as answered, on `lines` lines: line j owns the
 * phones k with k mod lines = j and sends their messages (i mod phones = k) in order, one at a time.
 */
async function asFastAs(total, lines, phones, send) {
  const n = Math.min(lines, phones);
  const t0 = hr();
  await Promise.all(
    Array.from({ length: n }, async (_, j) => {
      for (let i = 0; i < total; i++) {
        const k = i % phones;
        if (k % n === j) await send(i, k);
      }
    }),
  );
  return { seconds: (hr() - t0) / 1000 };
}

export default async function helpdeskBench() {
  const nInstances = intEnv("BENCH_INSTANCES", 4);
  const perInstance = intEnv("BENCH_CONTACTS", 50);
  const rate = intEnv("BENCH_RATE", 100);
  const steadyS = intEnv("BENCH_STEADY_S", 10);
  const maxMessages = intEnv("BENCH_MAX_MESSAGES", 2_000);
  const lines = intEnv("BENCH_CONCURRENCY", 100);
  const outageS = intEnv("BENCH_OUTAGE_S", 30, { min: 0 });
  const outageRate = intEnv("BENCH_OUTAGE_RATE", 20);
  const drainTimeoutMs = intEnv("BENCH_DRAIN_TIMEOUT_S", 120) * 1000;
  const logLevel = process.env.BENCH_LOG_LEVEL || "warn";
  const profile = flag("BENCH_CPU_PROF");
  // Experiments: Temporal worker options merged into the worker role's (bench/support/worker-options.mjs).
  const workerOptions = process.env.BENCH_WORKER_OPTIONS || "";
  if (workerOptions) JSON.parse(workerOptions); // fails early when it is not JSON
  const phonesTotal = nInstances * perInstance;
  const startedAt = Date.now();
  const out = console.log;
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const logDir = join(ROOT, ".local", "bench", `helpdesk-${stamp}`);
  const profDir = join(logDir, "profile-worker");

  out(
    "bench helpdesk: simnet phones → gateway + session pod → event streams → worker (help-desk intake, Temporal) → Chatwoot mock",
  );
  const m = machineFacts();
  out(`machine: nproc ${m.nproc}, ${m.cpu}, ${m.memGiB} GiB, ${m.os}`);
  out(`node ${m.node}; load average before the run: ${m.loadavg}`);
  out(
    "load generator: this process (simnet phones' sends and the direct baseline's POSTs, undici), on the same machine",
  );
  out(
    `processes: simnet, gateway+session (ROLES=gateway,session), worker, chatwootmock (no flood limit), each node --import tsx ${ENTRY}; ` +
      `Redis Stack and the Temporal dev server of pnpm stack; NODE_ENV=production, LOG_LEVEL=${logLevel}; output in ${logDir}`,
  );
  out(
    `${nInstances} sim instances × ${perInstance} phones (${phonesTotal} chats), one Chatwoot account + API inbox per instance, ` +
      `inbox webhook → the app's hook on the gateway`,
  );
  if (profile) out("worker under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs");
  if (workerOptions)
    out(`worker: Temporal worker options changed for this run (BENCH_WORKER_OPTIONS): ${workerOptions}`);

  const stack = await up({ quiet: true });
  const [port, internalPort, sessionPort, workerPort, simnetPort, mockPort] = await freePorts(6);
  const prefix = `benchhd${randomBytes(4).toString("hex")}:`;
  const adminToken = `bench-admin-${randomBytes(12).toString("hex")}`;
  const taskQueue = `bench-helpdesk-${randomBytes(4).toString("hex")}`;
  const url = `http://127.0.0.1:${port}`;
  const simnetUrl = `http://127.0.0.1:${simnetPort}`;
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  const workerUrl = `http://127.0.0.1:${workerPort}`;
  const env = {
    ...process.env,
    NODE_ENV: "production",
    LOG_LEVEL: logLevel,
    HOST: "127.0.0.1",
    PORT: String(port),
    INTERNAL_HOST: "127.0.0.1",
    INTERNAL_PORT: String(internalPort),
    SESSION_PORT: String(sessionPort),
    POD_ID: "pod-a",
    WORKER_PORT: String(workerPort),
    PUBLIC_BASE_URL: url,
    ADMIN_TOKEN: adminToken,
    INTERNAL_SECRET: `bench-internal-${randomBytes(16).toString("hex")}`,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    AUTH_STATE_KEY: randomBytes(32).toString("base64"),
    KEY_PREFIX: prefix,
    REDIS_URL: stack.redisUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ENABLE_SIM_PROVIDER: "true",
    SIMNET_URL: `ws://127.0.0.1:${simnetPort}`,
    SIMNET_PORT: String(simnetPort),
    // The mock is on 127.0.0.1: the connector's URL guard must let it through, as for webhooks.
    WEBHOOK_ALLOW_PRIVATE: "true",
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
    CHATWOOTMOCK_PORT: String(mockPort),
    CHATWOOTMOCK_MESSAGES_PER_MINUTE: "0",
  };
  delete env.CHATWOOTMOCK_TOKEN; // accounts come from /_control/setup, one per instance
  delete env.CHATWOOTMOCK_WEBHOOK_URL;
  // Registered before the processes: runs after they stopped (cleanups run last-in first-out).
  onCleanup(async () => {
    const r = await deleteRedisPrefix(stack.redisUrl, prefix);
    log(`redis: deleted ${r.keys} keys and ${r.indexes} search indexes under "${prefix}"`);
  });

  const node = (name, roles, nodeArgs = [], { entry = ENTRY, extraEnv = {}, onLine } = {}) =>
    spawnService({
      name,
      command: process.execPath,
      args: [...nodeArgs, "--import", "tsx", entry],
      env: { ...env, ROLES: roles, ...extraEnv },
      logFile: join(logDir, `${name}.log`),
      onLine,
    });
  // The Temporal SDK logs each failed activity attempt at WARN (a multi-line record).
  let failedAttempts = 0;
  const countFailures = (line) => {
    if (line.includes("[WARN] Activity failed")) failedAttempts++;
  };

  const results = {};
  let code = 0;
  let worker;
  try {
    // --- processes ---------------------------------------------------------------------------
    log("starting simnet, the mock, gateway+session and the worker");
    const simnet = node("simnet", "simnet");
    const mock = node("chatwootmock", "chatwootmock");
    await waitForHttp(`${simnetUrl}/healthz`, { service: simnet });
    const gateway = node("gateway+session", "gateway,session");
    if (profile) mkdirSync(profDir, { recursive: true });
    worker = node(
      "worker",
      "worker",
      profile ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [],
      workerOptions
        ? {
            entry: join(ROOT, "bench", "support", "worker-options.mjs"),
            extraEnv: { WORKER_OPTIONS: workerOptions },
            onLine: countFailures,
          }
        : { onLine: countFailures },
    );
    // Temporal: no help-desk workflow of this run is left on the dev server (they wait on a
    // 1-minute idle timer, which no worker would serve after the bench). Runs before the worker stops.
    const { Connection, Client } = requireFrom("services/worker")("@temporalio/client");
    const temporalConnection = await Connection.connect({ address: stack.temporalAddress, connectTimeout: 5_000 });
    const temporal = new Client({ connection: temporalConnection });
    onCleanup(async () => {
      try {
        let terminated = 0;
        const query = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`;
        for await (const wf of temporal.workflow.list({ query })) {
          await temporal.workflow
            .getHandle(wf.workflowId, wf.runId)
            .terminate("bench helpdesk: cleanup")
            .then(() => terminated++)
            .catch(() => {});
        }
        log(`temporal: terminated ${terminated} help-desk workflow(s) of task queue ${taskQueue}`);
      } finally {
        await temporalConnection.close();
      }
    });
    await waitForHttp(`${mockUrl}/healthz`, { service: mock });
    await waitForHttp(`${url}/healthz`, { service: gateway });
    log("waiting for the worker (it bundles the workflows first)");
    await waitForHttp(`${workerUrl}/healthz`, { service: worker, timeoutMs: 180_000 });
    const services = [gateway, worker, simnet, mock];
    const pids = { redis: stackRedisPid(), temporal: stackTemporalPid() };
    const meter = () => cpuMeter({ services, pids, self: "bench" });
    const alive = () => {
      const dead = services.find((s) => s.exit);
      if (dead) throw new Error(`${dead.name} exited (code ${dead.exit.code}) during the run:\n${dead.tail()}`);
    };

    const bearer = { authorization: `Bearer ${adminToken}` };
    const sim = simnetClient(simnetUrl, adminToken);
    const control = (method, path, json) => call(`${mockUrl}/_control${path}`, method, json, bearer);
    const admin = (method, path, json) => call(`${url}${path}`, method, json, bearer);

    // --- set-up --------------------------------------------------------------------------------
    const t = Date.now();
    log(`setup: ${nInstances} sim instances, paired; a Chatwoot account, inbox and helpdesk app each`);
    const instances = [];
    for (let i = 0; i < nInstances; i++) {
      const body = await admin("POST", "/v1/admin/instances", {
        name: `helpdesk-${i}`,
        kind: "standard",
        provider: "sim",
        billingStatus: "active",
      });
      const inst = { i, id: body.instance.id, token: body.token, phone: `1555${String(3_000_000 + i)}` };
      const auth = { "x-instance-token": inst.token };
      await call(`${url}/v1/instances/${inst.id}/start`, "POST", undefined, auth);
      await scanUntilPaired(sim, inst, { timeoutMs: 60_000 });
      await until(
        async () =>
          (await call(`${url}/v1/instances/${inst.id}`, "GET", undefined, auth)).instance?.connectionStatus ===
          "WORKING",
        `${inst.id} WORKING`,
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const cw = await control("POST", "/setup", {
        accountName: `Bench ${i}`,
        inboxName: `WhatsApp ${inst.phone}`,
        userName: `Bench agent ${i}`,
      });
      const made = await call(
        `${url}/v1/instances/${inst.id}/apps`,
        "POST",
        { app: "helpdesk", config: { url: mockUrl, accountId: cw.accountId, inboxId: cw.inboxId, token: cw.token } },
        auth,
      );
      const app = typeof made.app === "object" && made.app ? made.app : made;
      if (!app.webhookUrl) throw new Error(`POST /apps answered no webhookUrl: ${JSON.stringify(made).slice(0, 300)}`);
      const hook = url + new URL(app.webhookUrl).pathname;
      await control("PATCH", `/inboxes/${cw.inboxId}`, { webhookUrl: hook });
      // The direct baseline's account: the same shape, the same hook (the mock's work per message alike).
      const direct = await control("POST", "/setup", {
        accountName: `Direct ${i}`,
        inboxName: `Direct ${inst.phone}`,
        userName: `Direct agent ${i}`,
        webhookUrl: hook,
      });
      instances.push({ ...inst, cw, hook, direct });
    }
    const phones = Array.from({ length: phonesTotal }, (_, k) => ({
      k,
      phone: `1556${String(1_000_000 + k)}`,
      inst: instances[k % nInstances],
      sent: 0, // messages this phone sent so far (its order)
    }));
    for (const p of phones) {
      const r = await sim("POST", "/simnet/phones", { phone: p.phone, pushName: `Cliente ${p.k}` });
      if (r.status !== 201 && r.status !== 200) throw new Error(`POST /simnet/phones: ${r.status}`);
    }
    // The direct baseline's contacts and conversations, made once.
    for (const p of phones) {
      const { cw: _cw, direct } = p.inst;
      const h = { api_access_token: direct.token };
      const base = `${mockUrl}/api/v1/accounts/${direct.accountId}`;
      const c = await call(
        `${base}/contacts`,
        "POST",
        {
          inbox_id: direct.inboxId,
          name: `Cliente ${p.k}`,
          phone_number: `+${p.phone}`,
          identifier: `${p.phone}@c.us`,
        },
        h,
      );
      const conv = await call(
        `${base}/conversations`,
        "POST",
        {
          inbox_id: direct.inboxId,
          contact_id: c.payload.contact.id,
          source_id: c.payload.contact_inbox.source_id,
          status: "open",
        },
        h,
      );
      p.directPath = `/api/v1/accounts/${direct.accountId}/conversations/${conv.id}/messages`;
      p.directToken = direct.token;
    }
    log(`setup done in ${((Date.now() - t) / 1000).toFixed(1)} s`);

    // --- the phones ----------------------------------------------------------------------------
    const simPool = new Pool(simnetUrl, { connections: Math.max(lines, 64), pipelining: 1 });
    const mockPool = new Pool(mockUrl, { connections: Math.max(lines, 64), pipelining: 1 });
    onCleanup(() => simPool.close());
    onCleanup(() => mockPool.close());
    const records = []; // every message a phone sent: {phase, k, seq, sentAt, ms, sourceId}
    const sendErrors = {};
    /** Phone k sends one text to its instance; the record keeps when (this clock) and its source id. */
    const phoneSend = async (phase, k) => {
      const p = phones[k];
      const seq = p.sent++;
      const sentAt = Date.now();
      const start = hr();
      const res = await simPool.request({
        path: `/simnet/phones/${p.phone}/send`,
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify({ to: p.inst.phone, message: { type: "text", text: `${phase} ${p.k}/${seq}` } }),
      });
      const text = await res.body.text();
      const ms = hr() - start;
      if (res.statusCode !== 201) {
        const key = `${phase} ${res.statusCode}`;
        sendErrors[key] = (sendErrors[key] ?? 0) + 1;
        return;
      }
      const { id } = JSON.parse(text);
      records.push({ phase, k, seq, sentAt, ms, sourceId: `WAID:${id}` });
    };
    const directLat = { steady: [], max: [] };
    const directBad = {};
    let directSeq = 0;
    /** The same text POSTed straight to phone k's conversation in its direct account. */
    const directSend = async (phase, k) => {
      const p = phones[k];
      const start = hr();
      const res = await mockPool.request({
        path: p.directPath,
        method: "POST",
        headers: { api_access_token: p.directToken, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          content: `${phase} ${p.k}/${directSeq}`,
          message_type: "incoming",
          source_id: `WAID:direct${String(directSeq++).padStart(12, "0")}`,
        }),
      });
      await res.body.text();
      if (res.statusCode !== 200) directBad[phase] = (directBad[phase] ?? 0) + 1;
      else directLat[phase].push(hr() - start);
    };

    // --- reading the mock --------------------------------------------------------------------
    const stateReads = [];
    const readState = async () => {
      const start = hr();
      const res = await fetch(`${mockUrl}/_control/state`, { headers: bearer });
      const text = await res.text();
      const s = JSON.parse(text);
      stateReads.push({ ms: hr() - start, bytes: text.length, messages: s.messages.length });
      return s;
    };
    /** sourceId → [message…] of the mock's state. */
    const bySource = (s) => {
      const m = new Map();
      for (const msg of s.messages) {
        if (!msg.sourceId?.startsWith("WAID:")) continue;
        const l = m.get(msg.sourceId);
        if (l) l.push(msg);
        else m.set(msg.sourceId, [msg]);
      }
      return m;
    };
    const metricsUrl = `${workerUrl}/metrics`;

    /**
     * Waits until the mock holds every message of `phase` (the worker's relayed counter first, the
     * mock's state to confirm; while something is missing, the state once a second), at most
     * `deadlineMs`, or `stallMs` without progress.
     */
    const awaitPhase = async (phase, countBefore, { deadlineMs, stallMs = 45_000, counted = () => {} }) => {
      const want = records.filter((r) => r.phase === phase);
      const deadline = Date.now() + deadlineMs;
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        alive();
        const { count } = await relayMetrics(metricsUrl);
        if (count - countBefore >= want.length) break;
        if (count !== last) {
          last = count;
          lastChange = Date.now();
        }
        if (Date.now() > deadline || Date.now() - lastChange > stallMs) break;
        await sleep(250);
      }
      counted(); // before the state reads: their cost is not the relay's
      for (;;) {
        const s = await readState();
        const got = bySource(s);
        const missing = want.filter((r) => !got.has(r.sourceId)).length;
        if (missing === 0) return s;
        if (missing !== last) {
          last = missing;
          lastChange = Date.now();
        }
        if (Date.now() > deadline || Date.now() - lastChange > stallMs) {
          log(`${phase}: gave up waiting, ${missing} of ${want.length} not in the mock`);
          return s;
        }
        alive();
        await sleep(1_000);
      }
    };

    /** A phase's messages in the mock: latency, rate, lost, doubled, misplaced. */
    const analyse = (phase, s, { fromMs } = {}) => {
      const want = records.filter((r) => r.phase === phase);
      const got = bySource(s);
      const lat = [];
      const created = [];
      let lost = 0;
      let doubled = 0;
      let misplaced = 0;
      for (const r of want) {
        const l = got.get(r.sourceId);
        if (!l) {
          lost++;
          continue;
        }
        if (l.length > 1) doubled += l.length - 1;
        const m = l[0];
        if (m.accountId !== phones[r.k].inst.cw.accountId) misplaced++;
        const at = Date.parse(m.createdAt);
        created.push(at);
        lat.push(at - r.sentAt);
      }
      const c = sorted(created);
      const l = sorted(lat);
      const firstSent = Math.min(...want.map((r) => r.sentAt));
      const perSecond = [];
      for (const at of c) {
        const i = Math.floor((at - (fromMs ?? firstSent)) / 1000);
        if (i >= 0) perSecond[i] = (perSecond[i] ?? 0) + 1;
      }
      return {
        phase,
        sent: want.length,
        relayed: c.length,
        lost,
        doubled,
        misplaced,
        firstSent,
        lastSent: Math.max(...want.map((r) => r.sentAt)),
        firstCreated: c[0],
        lastCreated: c[c.length - 1],
        // relayed per second from the phase's first send to its last message in the mock
        rateToLast: (c.length * 1000) / (c[c.length - 1] - firstSent),
        p50: percentile(l, 50),
        p99: percentile(l, 99),
        max: l[l.length - 1],
        perSecond: Array.from(perSecond, (v) => v ?? 0),
        sendP50: percentile(sorted(want.map((r) => r.ms)), 50),
        sendP99: percentile(sorted(want.map((r) => r.ms)), 99),
      };
    };

    /** Runs a phase of phone sends, waits for the mock, measures. */
    const relayPhase = async (phase, drive, { deadlineMs = drainTimeoutMs, fromMs } = {}) => {
      const m0 = await relayMetrics(metricsUrl);
      const cpu = meter();
      const startUs = nowUs();
      const d = await drive();
      let endUs;
      let cores;
      const s = await awaitPhase(phase, m0.count, {
        deadlineMs,
        counted: () => {
          endUs = nowUs();
          cores = cpu.stop();
        },
      });
      const m1 = await relayMetrics(metricsUrl);
      const a = analyse(phase, s, { fromMs });
      return {
        ...a,
        drive: d,
        cores,
        hist: histogramDelta(m0, m1),
        state: s,
        window: { startUs, endUs },
      };
    };

    // --- warm-up: one message from every phone (contacts and conversations made) ---------------
    log(`warm-up: one message from each of the ${phonesTotal} phones`);
    results.warmup = await relayPhase("warmup", () =>
      atRate(phonesTotal, Math.max(rate, 50), phonesTotal, (_, k) => phoneSend("warmup", k)),
    );
    log(`warm-up: ${results.warmup.relayed}/${results.warmup.sent} relayed, p50 ${fmt(results.warmup.p50)} ms`);

    // --- 1. steady -----------------------------------------------------------------------------
    log(`1. steady: ${rate} messages/s for ${steadyS} s`);
    results.steady = await relayPhase("steady", () =>
      atRate(rate * steadyS, rate, phonesTotal, (_, k) => phoneSend("steady", k)),
    );
    log(`steady: p50 ${fmt(results.steady.p50)} ms, p99 ${fmt(results.steady.p99)} ms`);

    // --- 2. max --------------------------------------------------------------------------------
    log(`2. max: ${maxMessages} messages, ${Math.min(lines, phonesTotal)} lines`);
    results.max = await relayPhase("max", () =>
      asFastAs(maxMessages, lines, phonesTotal, (_, k) => phoneSend("max", k)),
    );
    log(`max: ${fmt(results.max.rateToLast)} relayed/s until the last one`);

    // --- 3. outage -----------------------------------------------------------------------------
    if (outageS > 0) {
      log(`3. outage: the mock down for ${outageS} s, ${outageRate} messages/s meanwhile`);
      const o = await control("POST", "/outage", { ms: outageS * 1000 });
      const outageStart = Date.now();
      const outageEnd = o.outageUntil;
      results.outage = await relayPhase(
        "outage",
        () => atRate(outageRate * outageS, outageRate, phonesTotal, (_, k) => phoneSend("outage", k)),
        { deadlineMs: drainTimeoutMs + outageS * 1000, fromMs: outageEnd },
      );
      const o2 = results.outage;
      const inMock = bySource(o2.state);
      const relayedDuring = records
        .filter((r) => r.phase === "outage")
        .filter((r) => {
          const m = inMock.get(r.sourceId)?.[0];
          return m && Date.parse(m.createdAt) < outageEnd;
        }).length;
      Object.assign(o2, {
        outageStart,
        outageEnd,
        relayedDuring,
        drainMs: o2.lastCreated - outageEnd,
        firstAfterMs: o2.firstCreated - outageEnd,
        sentAfterEnd: records.filter((r) => r.phase === "outage" && r.sentAt >= outageEnd).length,
      });
      log(`outage: backlog drained ${fmt(o2.drainMs / 1000, 1)} s after the end`);
    }

    // --- 4. direct baseline --------------------------------------------------------------------
    log(`4. direct: ${rate}/s for ${steadyS} s, then ${maxMessages} with ${Math.min(lines, phonesTotal)} lines`);
    {
      const cpu = meter();
      const d = await atRate(rate * steadyS, rate, phonesTotal, (_, k) => directSend("steady", k));
      results.directSteady = { ...d, cores: cpu.stop(), lat: sorted(directLat.steady) };
    }
    {
      const cpu = meter();
      const d = await asFastAs(maxMessages, lines, phonesTotal, (_, k) => directSend("max", k));
      results.directMax = { ...d, cores: cpu.stop(), lat: sorted(directLat.max) };
    }

    // --- final check over everything -----------------------------------------------------------
    await sleep(2_000); // a late retry would show as a double
    const finalState = await readState();
    const got = bySource(finalState);
    const byPhone = new Map();
    const seqOf = new Map(records.map((r) => [r.sourceId, r]));
    let lost = 0;
    let doubled = 0;
    let foreign = 0;
    for (const r of records) {
      const l = got.get(r.sourceId);
      if (!l) lost++;
      else if (l.length > 1) doubled += l.length - 1;
    }
    for (const [sid, l] of got) {
      if (sid.startsWith("WAID:direct")) continue;
      const r = seqOf.get(sid);
      if (!r) {
        foreign += l.length;
        continue;
      }
      for (const m of l) {
        const list = byPhone.get(r.k) ?? [];
        list.push({ id: m.id, seq: r.seq });
        byPhone.set(r.k, list);
      }
    }
    let chatsOutOfOrder = 0;
    let inversions = 0;
    for (const list of byPhone.values()) {
      list.sort((a, b) => a.id - b.id); // the mock's order of creation
      let bad = 0;
      for (let i = 1; i < list.length; i++) if (list[i].seq <= list[i - 1].seq) bad++;
      if (bad) chatsOutOfOrder++;
      inversions += bad;
    }
    const directCount = [...got.keys()].filter((sid) => sid.startsWith("WAID:direct")).length;
    results.final = {
      sent: records.length,
      lost,
      doubled,
      foreign,
      chats: byPhone.size,
      chatsOutOfOrder,
      inversions,
      directCount,
      directSent: directSeq,
    };
    // Where the time went, message by message, from the workflows' histories.
    log("reading the help-desk workflows' histories");
    const tl = await itemTimelines(temporal, taskQueue).catch((err) => {
      log(`could not read the workflows' histories (no breakdown printed): ${err?.message ?? err}`);
      return { runs: 0, items: new Map() };
    });
    results.breakdown = {};
    results.timelineRuns = tl.runs;
    for (const phase of ["warmup", "steady", "max", "outage"]) {
      const seg = {
        published: [],
        signalled: [],
        scheduled: [],
        behind: [],
        wftQueue: [],
        wftRun: [],
        taken: [],
        started: [],
        activity: [],
        written: [],
      };
      let missing = 0;
      let twice = 0;
      let retried = 0;
      for (const r of records) {
        if (r.phase !== phase) continue;
        const t = tl.items.get(r.sourceId.slice("WAID:".length));
        const m = got.get(r.sourceId)?.[0];
        if (!t || !m) {
          missing++;
          continue;
        }
        if (t.signals > 1) twice++;
        if (t.attempt > 1) retried++;
        const created = Date.parse(m.createdAt);
        seg.published.push(t.publishedAt - r.sentAt);
        seg.signalled.push(t.signaledAt - t.publishedAt);
        seg.scheduled.push(t.scheduledAt - t.signaledAt);
        // …of which: waiting for the chat's previous item, then the workflow's own turn.
        const free = Math.max(t.signaledAt, t.previousDoneAt);
        seg.behind.push(free - t.signaledAt);
        seg.taken.push(t.scheduledAt - free);
        if (t.wft) {
          seg.wftQueue.push(t.wft.startedAt - t.wft.scheduledAt);
          seg.wftRun.push(t.wft.completedAt - t.wft.startedAt);
        }
        seg.started.push(t.startedAt - t.scheduledAt);
        seg.activity.push(t.completedAt - t.startedAt);
        seg.written.push(created - t.startedAt);
      }
      const q = (xs) => {
        const ys = sorted(xs.filter(Number.isFinite));
        return { p50: percentile(ys, 50), p99: percentile(ys, 99) };
      };
      results.breakdown[phase] = {
        missing,
        twice,
        retried,
        ...Object.fromEntries(Object.entries(seg).map(([k, v]) => [k, q(v)])),
      };
    }
    results.stateReads = stateReads;
    results.sendErrors = sendErrors;
    results.directBad = directBad;
    results.workerLines = worker.lines;
    results.workerTail = worker.lines > 0 ? worker.tail() : "";
    if (profile) {
      results.workerExit = await worker.stop(); // graceful: the profile is written at exit
    }
    for (const k of ["warmup", "steady", "max", "outage"]) if (results[k]) delete results[k].state;
  } catch (err) {
    await runCleanups();
    throw err;
  }
  await runCleanups(); // stops whatever still runs, terminates the workflows, deletes the Redis keys

  // --- report ----------------------------------------------------------------------------------
  const { warmup, steady, max, outage, directSteady, directMax, final } = results;
  const cores = (c) => `     cores: ${formatCores(c)}`;
  /** CPU ms per message of each of our processes over a phase (its cores × its length ÷ its messages). */
  const perMessage = (c, seconds, n) =>
    Object.entries(c)
      .filter(([name]) => name !== "everything else")
      .map(([name, v]) => `${name} ${fmt((v * seconds * 1000) / n, 2)}`)
      .join(", ");
  const cpuLine = (a, note = "") =>
    `     CPU per relayed message (ms${note}): ${perMessage(a.cores, (a.window.endUs - a.window.startUs) / 1e6, a.relayed)}`;
  const skew = (title, c) =>
    (c?.["everything else"] ?? 0) > 0.25
      ? out(
          `     WARNING (${title}): other work on this machine used ${c["everything else"].toFixed(2)} cores: figures are skewed`,
        )
      : undefined;
  const lat = (a) => `p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms, max ${fmt(a.max)} ms`;
  const hist = (a) =>
    `     worker's helpdesk_relay_latency_seconds (publication → written), ${fmt(a.hist.n)} items: p50 ${leText(a.hist.p50)}, p99 ${leText(a.hist.p99)}`;
  const where = (phase) => {
    const b = results.breakdown?.[phase];
    if (!b || results.timelineRuns === 0) return;
    const f = (x) => `${fmt(x.p50)} / ${fmt(x.p99)}`;
    out(
      `     where the time went, p50 / p99 ms (Temporal histories): phone → published ${f(b.published)}, ` +
        `→ signalled (intake) ${f(b.signalled)}, → activity scheduled ${f(b.scheduled)} ` +
        `(waiting for the chat's previous item ${f(b.behind)}, then until scheduled ${f(b.taken)}: workflow task queued ${f(b.wftQueue)}, ran ${f(b.wftRun)}), ` +
        `→ started ${f(b.started)}, activity ${f(b.activity)} (message written ${f(b.written)} after its start)` +
        `${b.retried ? `; ${b.retried} items took more than one attempt` : ""}${b.twice ? `; ${b.twice} signalled twice` : ""}${b.missing ? `; ${b.missing} not found in the histories` : ""}`,
    );
  };
  const checks = (a) =>
    `lost ${a.lost}, doubled ${a.doubled}${a.misplaced ? `, in another account ${a.misplaced}` : ""}`;
  out("");
  out(
    `warm-up: one message from each of the ${fmt(warmup.sent)} phones (no contact yet: search + contact + conversation made): ` +
      `${fmt(warmup.relayed)} relayed, ${lat(warmup)}; ${checks(warmup)}`,
  );
  where("warmup");
  out(
    `1. steady ${fmt(rate)}/s for ${steadyS} s: ${fmt(steady.sent)} sent in ${fmt(steady.drive.seconds, 1)} s ` +
      `(simnet answered p50 ${fmt(steady.sendP50, 1)} ms, p99 ${fmt(steady.sendP99, 1)} ms; the sender at most ${fmt(steady.drive.maxBehindMs)} ms behind schedule)`,
  );
  out(`     relayed per second (mock clock, from the first send): ${steady.perSecond.join(" ")}`);
  out(
    `     relayed ${fmt(steady.relayed)}: ${fmt(steady.rateToLast, 1)}/s from the first send to the last write; latency phone → Chatwoot ${lat(steady)}; ${checks(steady)}`,
  );
  out(hist(steady));
  where("steady");
  out(cores(steady.cores));
  out(cpuLine(steady));
  skew("steady", steady.cores);
  out(
    `2. max: ${fmt(max.sent)} sent in ${fmt(max.drive.seconds, 1)} s on ${Math.min(lines, phonesTotal)} lines ` +
      `(simnet took ${fmt(max.sent / max.drive.seconds)}/s; answered p50 ${fmt(max.sendP50, 1)} ms, p99 ${fmt(max.sendP99, 1)} ms)`,
  );
  out(`     relayed per second: ${max.perSecond.join(" ")}`);
  out(
    `     relayed ${fmt(max.relayed)}: ${fmt(max.rateToLast)}/s until the last one arrived ` +
      `(${fmt((max.lastCreated - max.firstSent) / 1000, 1)} s from the first send); latency ${lat(max)}; ${checks(max)}`,
  );
  out(hist(max));
  where("max");
  out(cores(max.cores));
  out(cpuLine(max));
  skew("max", max.cores);
  if (outage) {
    out(
      `3. outage: the mock's API answered 503 for ${outageS} s; ${fmt(outage.sent)} sent meanwhile at ${outageRate}/s ` +
        `(${outage.sentAfterEnd} of them after the end); written during the outage: ${outage.relayedDuring}`,
    );
    out(
      `     after the end: first write ${fmt(outage.firstAfterMs / 1000, 2)} s, backlog drained (last write) ${fmt(outage.drainMs / 1000, 2)} s after it; ` +
        `${checks(outage)}`,
    );
    out(`     written per second after the end: ${outage.perSecond.join(" ")}`);
    out(`     latency phone → Chatwoot (the outage included): ${lat(outage)}`);
    out(hist(outage));
    where("outage");
    out(cores(outage.cores));
    out(cpuLine(outage, `; the outage's ${outageS} s and its failed attempts included`));
  }
  const dSteadyRate = directSteady.lat.length / directSteady.seconds;
  const dMaxRate = directMax.lat.length / directMax.seconds;
  const dp = (d, p) => percentile(d.lat, p);
  out(
    `4. direct to the mock (POST …/messages, contact + conversation made once; same inbox webhook): ` +
      `${fmt(rate)}/s for ${steadyS} s: p50 ${fmt(dp(directSteady, 50), 2)} ms, p99 ${fmt(dp(directSteady, 99), 2)} ms; ` +
      `${fmt(maxMessages)} on ${Math.min(lines, phonesTotal)} lines: ${fmt(dMaxRate)} messages/s, p50 ${fmt(dp(directMax, 50), 2)} ms, p99 ${fmt(dp(directMax, 99), 2)} ms` +
      (Object.keys(results.directBad).length ? `; non-200: ${JSON.stringify(results.directBad)}` : ""),
  );
  out(cores(directMax.cores));
  out(`     CPU per message (ms): ${perMessage(directMax.cores, directMax.seconds, directMax.lat.length)}`);
  out("");
  const rows = [
    ["phase", "messages", "sent/s", "relayed/s", "p50 ms", "p99 ms", "max ms", "lost", "doubled", "drained s"],
    ...[
      ["warm-up (new chats)", warmup],
      [`relay steady ${fmt(rate)}/s`, steady],
      ["relay max", max],
      ...(outage ? [[`relay, ${outageS} s outage`, outage]] : []),
    ].map(([title, a]) => [
      title,
      fmt(a.sent),
      fmt(a.sent / a.drive.seconds),
      fmt(a.rateToLast),
      fmt(a.p50),
      fmt(a.p99),
      fmt(a.max),
      String(a.lost),
      String(a.doubled),
      a.drainMs !== undefined ? fmt(a.drainMs / 1000, 1) : "",
    ]),
    [
      `direct steady ${fmt(rate)}/s`,
      fmt(directSteady.lat.length),
      fmt(dSteadyRate),
      fmt(dSteadyRate),
      fmt(dp(directSteady, 50), 2),
      fmt(dp(directSteady, 99), 2),
      fmt(directSteady.lat[directSteady.lat.length - 1], 2),
      "",
      "",
      "",
    ],
    [
      "direct max",
      fmt(directMax.lat.length),
      fmt(dMaxRate),
      fmt(dMaxRate),
      fmt(dp(directMax, 50), 2),
      fmt(dp(directMax, 99), 2),
      fmt(directMax.lat[directMax.lat.length - 1], 2),
      "",
      "",
      "",
    ],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) out(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
  out("");
  out(
    `ratio relay/direct: max ${fmt(max.rateToLast)} / ${fmt(dMaxRate)} messages/s = ${fmt(max.rateToLast / dMaxRate, 3)}; ` +
      `steady p50 ${fmt(steady.p50)} / ${fmt(dp(directSteady, 50), 2)} ms, p99 ${fmt(steady.p99)} / ${fmt(dp(directSteady, 99), 2)} ms`,
  );
  out(
    "relay latency: this process's clock at POST /simnet/phones/{phone}/send → the message's createdAt in the mock (ms, same machine); " +
      "relayed/s: the phase's messages ÷ (its last write − its first send); drained: the outage's end → the backlog's last write; direct: each POST's round trip",
  );
  const misplaced = [warmup, steady, max, outage].reduce((n, a) => n + (a?.misplaced ?? 0), 0);
  const bad = final.lost + final.doubled + final.chatsOutOfOrder + final.foreign + misplaced;
  out(
    `checks over the whole run: ${fmt(final.sent)} messages sent by the phones, lost ${final.lost}, doubled ${final.doubled}, ` +
      `unknown WAID messages ${final.foreign}, in another instance's account ${misplaced}; ${final.chats} chats, ${final.chatsOutOfOrder} not in the phone's order ` +
      `(${final.inversions} inversions); direct: ${fmt(final.directCount)} of ${fmt(final.directSent)} in the mock` +
      (bad === 0 ? " — ok" : "  FAILED"),
  );
  if (Object.keys(results.sendErrors).length) {
    out(`phone sends refused by simnet (not counted as sent): ${JSON.stringify(results.sendErrors)}`);
  }
  const sr = results.stateReads;
  const srMs = sorted(sr.map((r) => r.ms));
  out(
    `mock state reads: ${sr.length}, p50 ${fmt(percentile(srMs, 50))} ms, max ${fmt(srMs[srMs.length - 1])} ms, ` +
      `last ${fmt(sr[sr.length - 1].bytes / 2 ** 20, 1)} MiB for ${fmt(sr[sr.length - 1].messages)} messages`,
  );
  if (results.workerLines > 0) {
    out(
      `worker: ${results.workerLines} line(s) at ${logLevel} or above (log in ${logDir}), ` +
        `${failedAttempts} "Activity failed" records (one per failed attempt; ${fmt(results.workerLines / Math.max(1, failedAttempts))} lines each); last ones:`,
    );
    out(
      results.workerTail
        .split("\n")
        .slice(-5)
        .map((l) => `  ${l.slice(0, 300)}`)
        .join("\n"),
    );
  }
  out(`total runtime ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  if (profile) {
    const [file] = newestProfiles(profDir);
    if (file) {
      out(`\nworker CPU profile: ${file}\nmax phase: CLOCK_MONOTONIC ${max.window.startUs}–${max.window.endUs} µs`);
      out(hotSpots(file, { top: 30, window: max.window }));
    } else out(`\nno CPU profile was written to ${profDir}`);
  }
  if (bad > 0 || Object.keys(results.sendErrors).length > 0) code = 1;
  return code;
}
