// Shared helpers for the benches in bench/ (see scripts/bench.mjs for how they are run):
// child processes that are always cleaned up, free ports, a gateway in its own process on the
// local stack, instances through the admin API, autocannon runs and their summaries.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { ROOT, up } from "../scripts/stack-lib.mjs";

export { ROOT };

/** `require` as seen from a workspace package, for its own dependencies (fastify, ioredis…). */
export const requireFrom = (pkgDir) => createRequire(join(ROOT, pkgDir, "package.json"));

export const TSX = join(ROOT, "node_modules", ".bin", "tsx");

export const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

export function intEnv(name, fallback, { min = 1 } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got "${raw}")`);
  return n;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Cleanup: every child process and every piece of state a bench creates registers an undo here.
// They run last-in first-out (stop the gateway, then delete its Redis keys) at the end of the
// bench, on an error, and on Ctrl-C / SIGTERM.

const cleanups = [];
const children = new Set();

export function onCleanup(fn) {
  cleanups.push(fn);
}

let cleaning;

/**
 * Runs the registered cleanups, last-in first-out. Concurrent calls (Ctrl-C while a bench's
 * `finally` cleans up) share one run, so that none returns — and lets the process exit — while
 * another still deletes what the processes left.
 */
export function runCleanups() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (err) {
        log(`cleanup failed: ${err?.message ?? err}`);
      }
    }
  })().finally(() => {
    cleaning = undefined;
  });
  return cleaning;
}

let signalled = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (signalled) process.exit(130); // a second Ctrl-C: give up on a graceful cleanup
    signalled = true;
    log(`${sig}: stopping child processes and cleaning up`);
    void runCleanups().finally(() => process.exit(130));
  });
}
// Last resort (an uncaught error, process.exit before cleanup): no child outlives the bench.
process.on("exit", () => {
  for (const child of children) killGroup(child.pid, "SIGKILL");
});

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal); // children run detached: their pid is their process group
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Processes and ports

/** A port that was free a moment ago on 127.0.0.1 (`count` distinct ones). */
export async function freePorts(count = 1) {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((res, rej) => {
          const s = createServer();
          s.once("error", rej);
          s.listen(0, "127.0.0.1", () => res(s));
        }),
    ),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export const freePort = async () => (await freePorts(1))[0];

/**
 * Starts a command in its own process group (so that a whole tree — e.g. tsx and the node it
 * starts — is stopped together), keeps the last lines of its output, and registers its stop.
 * With `logFile`, every line of its output (stdout + stderr) is also appended to that file;
 * with `onLine`, each line is also handed to `onLine(line)` as it comes (e.g. progress markers).
 */
export function spawnService({ name, command, args = [], env = process.env, logFile, onLine }) {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const tail = [];
  let lines = 0;
  let file;
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    file = createWriteStream(logFile, { flags: "a" });
    onCleanup(() => new Promise((r) => file.end(r))); // registered first: runs after the stop below
  }
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines++;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      file?.write(`${line}\n`);
      onLine?.(line);
    });
  }
  let exit;
  const exited = new Promise((res) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      children.delete(child);
      res(exit);
    });
    child.once("error", (err) => {
      exit = { code: null, signal: null, error: err };
      children.delete(child);
      res(exit);
    });
  });

  const service = {
    name,
    pid: child.pid,
    logFile,
    child,
    exited,
    get exit() {
      return exit;
    },
    /** Lines the process has written so far (stdout + stderr). */
    get lines() {
      return lines;
    },
    tail: () => tail.join("\n"),
    /** SIGTERM to the group, then SIGKILL if it has not exited after `timeoutMs`. */
    async stop({ timeoutMs = 15_000 } = {}) {
      if (!exit) {
        killGroup(child.pid, "SIGTERM");
        const timer = sleep(timeoutMs).then(() => "timeout");
        if ((await Promise.race([exited, timer])) === "timeout") {
          log(`${name} did not stop within ${timeoutMs / 1000}s: SIGKILL`);
          killGroup(child.pid, "SIGKILL");
          await exited;
        }
      }
      killGroup(child.pid, "SIGKILL"); // anything of the group still around (normally nothing)
      return exit;
    },
  };
  onCleanup(() => service.stop());
  return service;
}

/** Polls `url` until it answers 2xx; fails early, with the process's output, if `service` exits. */
export async function waitForHttp(url, { service, timeoutMs = 60_000 } = {}) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (service?.exit) {
      throw new Error(
        `${service.name} exited (code ${service.exit.code}, signal ${service.exit.signal}) before ${url} answered:\n${service.tail()}`,
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000}s${service ? `:\n${service.tail()}` : ""}`);
}

// ---------------------------------------------------------------------------------------------
// Machine facts

export function machineFacts() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism(),
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    loadavg: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
  };
}

export function printMachineFacts(out = console.log) {
  const m = machineFacts();
  out(`machine: nproc ${m.nproc}, ${m.cpu}, ${m.memGiB} GiB, ${m.os}`);
  out(`node ${m.node}; load average before the run: ${m.loadavg}`);
  out(`load generator: autocannon in the bench process, on the same machine as the servers under test`);
}

// ---------------------------------------------------------------------------------------------
// CPU use per process during a run (Linux /proc), to see who had the cores: on a 2-core machine
// the server, Redis and the load generator share them.

const CLK_TCK = (() => {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  return Number(r.stdout?.trim()) || 100;
})();

function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = text.slice(text.lastIndexOf(")") + 2).split(" "); // f[0] is field 3 (state)
    return { pgrp: Number(f[2]), cpuS: (Number(f[11]) + Number(f[12])) / CLK_TCK };
  } catch {
    return undefined; // gone, or not Linux
  }
}

function groupCpuS(pgid) {
  let total = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(name);
    if (st?.pgrp === pgid) total += st.cpuS;
  }
  return total;
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineBusyS() {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return (user + nice + system + irq + softirq + steal) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in KiB (VmRSS from /proc/<pid>/status), or undefined. */
export function rssKiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Through a process's inspector (started with `--inspect=127.0.0.1:<port>`): a full garbage
 * collection, then the V8 heap in use, in KiB. The process's RSS read right after it no longer
 * counts garbage that a major GC has simply not collected yet.
 */
export async function collectGarbage(inspectorPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  const WebSocket = requireFrom("services/session")("ws");
  const ws = new WebSocket(url);
  await new Promise((res, rej) => {
    ws.once("open", res);
    ws.once("error", rej);
  });
  let nextId = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    const p = msg.id ? pending.get(msg.id) : undefined;
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${msg.error.message}`));
    else p.resolve(msg.result);
  });
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call("HeapProfiler.collectGarbage");
    await call("HeapProfiler.collectGarbage"); // a second pass for what finalizers freed
    const { usedSize, totalSize } = await call("Runtime.getHeapUsage");
    return { usedKiB: usedSize / 1024, totalKiB: totalSize / 1024 };
  } finally {
    ws.close();
  }
}

/** The local stack's Redis server, from the pid file `pnpm stack up` writes. */
export function stackRedisPid() {
  return stackPid("redis");
}

/** The local stack's Temporal dev server, from the pid file `pnpm stack up` writes. */
export function stackTemporalPid() {
  return stackPid("temporal");
}

function stackPid(name) {
  const file = join(process.env.STACK_DIR ?? join(ROOT, ".local"), "run", `${name}.pid`);
  return existsSync(file) ? Number(readFileSync(file, "utf8")) : undefined;
}

/**
 * Starts measuring CPU seconds of: this process (the load generator, or `self` if named), the
 * process group of each service, and single pids. `stop()` gives cores used on average
 * ({name: cores}), and under "everything else" what the rest of the machine used meanwhile
 * (other work skews a run).
 */
export function cpuMeter({ services = [], pids = {}, self = "load generator" } = {}) {
  if (!existsSync("/proc/self/stat")) return { stop: () => ({}) };
  const read = () => {
    const out = { [self]: process.cpuUsage() };
    for (const s of services) out[s.name] = groupCpuS(s.pid);
    for (const [name, pid] of Object.entries(pids)) if (pid) out[name] = procStat(pid)?.cpuS;
    out.machine = machineBusyS();
    return out;
  };
  const t0 = process.hrtime.bigint();
  const before = read();
  return {
    stop() {
      const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
      const after = read();
      const cores = {};
      for (const [name, a] of Object.entries(after)) {
        const b = before[name];
        if (a === undefined || b === undefined) continue;
        const used = name === self ? (a.user + a.system - b.user - b.system) / 1e6 : a - b;
        cores[name] = used / wallS;
      }
      if (cores.machine !== undefined) {
        const { machine, ...named } = cores;
        const ours = Object.values(named).reduce((a, b) => a + b, 0);
        delete cores.machine;
        cores["everything else"] = Math.max(0, machine - ours);
      }
      return cores;
    },
  };
}

export const formatCores = (cores) =>
  Object.entries(cores)
    .map(([name, c]) => `${name} ${c.toFixed(2)}`)
    .join(", ");

// ---------------------------------------------------------------------------------------------
// The gateway in its own process, on the local stack

/** Rate limit the gateway is started with (platform defaults unless the environment says otherwise). */
export const RATE_LIMIT = {
  perSecond: Number(process.env.RATE_LIMIT_PER_SECOND ?? 20),
  burst: Number(process.env.RATE_LIMIT_BURST ?? 40),
};

/**
 * Ensures the stack, then starts `services/main/src/main.ts` through tsx with a fresh key prefix,
 * free ports and LOG_LEVEL=warn (no request logs). Its Redis keys are deleted at cleanup.
 * With `nodeArgs` (e.g. ["--cpu-prof", …], which Node refuses in NODE_OPTIONS) it runs
 * `node <nodeArgs> --import tsx services/main/src/main.ts` instead: the same loader, no wrapper.
 * `logFile`: also append the process's output to that file.
 */
export async function startGateway({ env = {}, nodeArgs, logFile } = {}) {
  const stack = await up();
  const [port, internalPort] = await freePorts(2);
  const prefix = `bench${randomBytes(4).toString("hex")}:`;
  const adminToken = `bench-admin-${randomBytes(12).toString("hex")}`;
  const url = `http://127.0.0.1:${port}`;
  const internalUrl = `http://127.0.0.1:${internalPort}`;
  const gwEnv = {
    ...process.env,
    NODE_ENV: "production",
    ROLES: "gateway",
    HOST: "127.0.0.1",
    PORT: String(port),
    INTERNAL_HOST: "127.0.0.1",
    INTERNAL_PORT: String(internalPort),
    PUBLIC_BASE_URL: url,
    ADMIN_TOKEN: adminToken,
    INTERNAL_SECRET: `bench-internal-${randomBytes(16).toString("hex")}`,
    // Seals webhook secrets at rest (required once webhooks land; an unknown variable before that).
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    KEY_PREFIX: prefix,
    REDIS_URL: stack.redisUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_SECOND: String(RATE_LIMIT.perSecond),
    RATE_LIMIT_BURST: String(RATE_LIMIT.burst),
    ...env,
  };

  // Registered before the process, so that it runs after the process has stopped (LIFO).
  onCleanup(async () => {
    const r = await deleteRedisPrefix(stack.redisUrl, prefix);
    log(`redis: deleted ${r.keys} keys and ${r.indexes} search indexes under "${prefix}"`);
  });
  const entry = "services/main/src/main.ts";
  const service = nodeArgs
    ? spawnService({
        name: "gateway",
        command: process.execPath,
        args: [...nodeArgs, "--import", "tsx", entry],
        env: gwEnv,
        logFile,
      })
    : spawnService({ name: "gateway", command: TSX, args: [entry], env: gwEnv, logFile });
  await waitForHttp(`${url}/healthz`, { service });

  const admin = async (method, path, json) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(json ? { "content-type": "application/json" } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return res;
  };

  return {
    url,
    internalUrl,
    prefix,
    adminToken,
    redisUrl: stack.redisUrl,
    env: gwEnv,
    service,
    admin,
    /** `n` instances through `POST /v1/admin/instances`, `concurrency` requests at a time; `body`: more fields. */
    async createInstances(n, { concurrency = 16, kind = "standard", name = "bench", provider, body: extra = {} } = {}) {
      const out = new Array(n);
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const i = next++;
          const res = await admin("POST", "/v1/admin/instances", {
            name: `${name}-${i}`,
            kind,
            ...(provider ? { provider } : {}),
            ...extra,
          });
          if (res.status !== 201) throw new Error(`POST /v1/admin/instances: ${res.status} ${await res.text()}`);
          const body = await res.json();
          out[i] = { id: body.instance.id, token: body.token };
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
      return out;
    },
    stop: (opts) => service.stop(opts),
  };
}

/** `api(inst, method, path, json?)` → `{status, body}`: one instance's route, with its token. */
export function instanceApi(baseUrl) {
  return async (inst, method, path, json) => {
    const res = await fetch(`${baseUrl}/v1/instances/${inst.id}${path}`, {
      method,
      headers: { "x-instance-token": inst.token, ...(json ? { "content-type": "application/json" } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
}

/** Deletes every key under `prefix` (SCAN + UNLINK) and the RediSearch indexes named under it. */
export async function deleteRedisPrefix(redisUrl, prefix) {
  if (!/^[a-z0-9_:-]+$/i.test(prefix)) throw new Error(`refusing to delete under prefix "${prefix}"`);
  const { Redis } = requireFrom("services/platform")("ioredis");
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2, connectionName: "bench-cleanup" });
  try {
    let indexes = 0;
    // redis-om names its indexes `<prefix><schema>:index`; drop them first so that deleting the
    // documents does not make RediSearch reindex anything.
    for (const name of await redis.call("FT._LIST")) {
      if (String(name).startsWith(prefix)) {
        await redis.call("FT.DROPINDEX", name);
        indexes++;
      }
    }
    let keys = 0;
    let cursor = "0";
    do {
      const [nextCursor, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = nextCursor;
      if (batch.length > 0) keys += await redis.unlink(...batch);
    } while (cursor !== "0");
    return { keys, indexes };
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Load

/**
 * Spreads the load evenly over `targets` ([{path, headers}]) without per-request work in the
 * load generator: connection j cycles through its own interleaved slice (targets j, j+c, j+2c…),
 * whose requests autocannon builds once. Every target then gets total req/s ÷ targets.length,
 * evenly spaced in time. (autocannon's `setupRequest` would rotate globally, but it rebuilds
 * every request — with this 2-core machine it capped the load generator near 7k req/s.)
 * Returns autocannon options: `requests` and `setupClient`. Needs targets.length >= connections.
 */
export function spreadOverConnections(targets, connections, { method = "GET" } = {}) {
  if (targets.length < connections) {
    throw new Error(`${targets.length} targets for ${connections} connections: need at least one per connection`);
  }
  // A target may carry its own method and body (POSTs); `method` is the default.
  const request = (t) => ({
    method: t.method ?? method,
    path: t.path,
    headers: t.headers,
    ...(t.body !== undefined ? { body: t.body } : {}),
  });
  const slices = Array.from({ length: connections }, (_, j) =>
    targets.filter((_, i) => i % connections === j).map(request),
  );
  let next = 0;
  return {
    requests: [slices[0][0]],
    setupClient(client) {
      client.setRequests(slices[next]);
      next = (next + 1) % slices.length;
    },
  };
}

/** The median of `xs` (the mean of the two middle values when their count is even). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Runs `fn(item, index)` over `items`, `concurrency` at a time. */
export async function pool(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Polls `check` until it is truthy (answers the ms it took); on timeout the error carries `explain()`. */
export async function until(check, what, { timeoutMs, intervalMs = 250, explain }) {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) {
      const detail = explain ? `: ${await explain().catch((err) => `(explain failed: ${err.message})`)}` : "";
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${detail}`);
    }
    await sleep(intervalMs);
  }
}

/** A client of simnet's control API: `sim(method, path, json?)` answers `{status, body}`. */
export function simnetClient(simnetUrl, adminToken) {
  const bearer = { authorization: `Bearer ${adminToken}` };
  return async (method, path, json) => {
    const res = await fetch(simnetUrl + path, {
      method,
      headers: { ...bearer, ...(json !== undefined ? { "content-type": "application/json" } : {}) },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
}

/**
 * The phone `inst.phone` scans the QR `inst.id` shows, through `sim` (simnetClient), until the
 * scan is accepted: read the shown value and scan it, again while no QR is shown yet (404 from
 * the QR route) or the value rotated between the read and the scan (404 invalid_qr). Any other
 * refusal throws; so does `timeoutMs` without success.
 */
export async function scanUntilPaired(sim, inst, { timeoutMs = 60_000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = "nothing yet";
  for (;;) {
    if (Date.now() > deadline)
      throw new Error(`${inst.id}: no QR accepted within ${timeoutMs / 1000} s (last: ${last})`);
    const qr = await sim("GET", `/simnet/instances/${inst.id}/qr`);
    if (qr.status === 200) {
      const scan = await sim("POST", `/simnet/phones/${inst.phone}/scan`, { qr: qr.body.value });
      if (scan.status === 200) return;
      if (scan.status !== 404) throw new Error(`scan ${inst.id}: ${scan.status} ${JSON.stringify(scan.body)}`);
      last = `scan ${scan.status} ${JSON.stringify(scan.body)}`;
    } else {
      last = `GET QR ${qr.status} ${JSON.stringify(qr.body)}`;
    }
    await sleep(intervalMs);
  }
}

/** A bare Fastify baseline (a script under bench/support) in its own process, up and answering. */
export async function startBareFastify(script, nodeArgs = []) {
  const port = await freePort();
  const service = spawnService({
    name: "bare-fastify",
    command: process.execPath,
    args: [...nodeArgs, join(ROOT, "bench", "support", script)],
    env: { ...process.env, PORT: String(port), NODE_ENV: "production" },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, { service });
  return { service, url };
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/**
 * One autocannon run. Latency percentiles are computed here from every 2xx response's own timing
 * (sub-millisecond; autocannon's histogram has 1 ms resolution).
 */
export function loadTest({ title, url, connections, duration, pipelining = 1, requests, setupClient, timeout = 10 }) {
  return new Promise((resolve, reject) => {
    let samples = new Float64Array(1 << 16);
    let n = 0;
    const startUs = Number(process.hrtime.bigint() / 1000n);
    const instance = autocannon(
      { title, url, connections, duration, pipelining, requests, setupClient, timeout },
      (err, result) => {
        if (err) return reject(err);
        const endUs = Number(process.hrtime.bigint() / 1000n);
        const sorted = samples.subarray(0, n).sort();
        resolve({
          title,
          connections,
          duration,
          pipelining,
          rps: result.requests.average,
          total: result.requests.total,
          ok: result["2xx"],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodeStats: result.statusCodeStats,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          mean: n ? sorted.reduce((a, b) => a + b, 0) / n : Number.NaN,
          autocannonLatency: { p50: result.latency.p50, p99: result.latency.p99 },
          /** CLOCK_MONOTONIC µs, e.g. to cut a --cpu-prof profile to this run. */
          window: { startUs, endUs },
          raw: result,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) return;
      if (n === samples.length) {
        const bigger = new Float64Array(samples.length * 2);
        bigger.set(samples);
        samples = bigger;
      }
      samples[n++] = responseTime;
    });
  });
}

/**
 * A warm-up run (discarded) followed by the measured run, with the same settings. `cpu` (the
 * arguments of {@link cpuMeter}) adds `cores`: CPU use per process during the measured run.
 */
export async function warmAndMeasure(opts, { warmup = 3, cpu, around = (run) => run() } = {}) {
  if (warmup > 0) {
    log(`${opts.title}: warm-up ${warmup}s`);
    await loadTest({ ...opts, title: `${opts.title} (warm-up)`, duration: warmup });
  }
  log(
    `${opts.title}: measuring ${opts.duration}s, ${opts.connections} connections, pipelining ${opts.pipelining ?? 1}`,
  );
  return around(async () => {
    const meter = cpu ? cpuMeter(cpu) : undefined;
    const result = await loadTest(opts);
    if (meter) result.cores = meter.stop();
    return result;
  });
}

/**
 * CPU per answer of a measured run (its `cores`, the machine's other work left out): what a
 * request costs in µs, in all and per process ("name µs"), steadier than req/s when the
 * machine's speed drifts between rounds. Null without CPU figures or answers.
 */
export function cpuPerAnswer(run) {
  if (!run?.cores || !(run.rps > 0)) return null;
  const parts = Object.entries(run.cores).filter(([name]) => name !== "everything else");
  const total = parts.reduce((a, [, c]) => a + c, 0);
  return {
    totalUs: (total * 1e6) / run.rps,
    parts: parts.map(([name, c]) => `${name} ${Math.round((c * 1e6) / run.rps)}`),
  };
}

/** Redis's `INFO commandstats`: {name: {calls, usec}}. */
export async function redisCommandStats(redis) {
  const stats = {};
  for (const line of String(await redis.info("commandstats")).split("\n")) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m) stats[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  }
  return stats;
}

/** What ran between two `redisCommandStats`, most time first: [{name, calls, usec}]. */
export function diffCommandStats(before, after) {
  return Object.entries(after)
    .map(([name, a]) => ({
      name,
      calls: a.calls - (before[name]?.calls ?? 0),
      usec: a.usec - (before[name]?.usec ?? 0),
    }))
    .filter((c) => c.calls > 0)
    .sort((x, y) => y.usec - x.usec);
}

const fmt = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");

/** A compact table: target, req/s, p50 ms, p99 ms, non2xx (errors and timeouts when any). */
export function summaryTable(results) {
  const withErrors = results.some((r) => r.errors > 0 || r.timeouts > 0);
  const head = ["target", "req/s", "p50 ms", "p99 ms", "non2xx", ...(withErrors ? ["errors", "timeouts"] : [])];
  const rows = results.map((r) => [
    r.title,
    fmt(r.rps, 0),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    String(r.non2xx),
    ...(withErrors ? [String(r.errors), String(r.timeouts)] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), ...rows.map(line)].join("\n");
}
