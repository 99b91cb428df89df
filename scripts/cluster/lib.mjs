// The local cluster as a library: the release as the chart renders it (scripts/cluster/render.mjs),
// run as separate processes on this machine. Used by `pnpm cluster` (scripts/cluster/cli.mjs),
// `pnpm bench rolling` and `pnpm bench chaos`. STABLE INTERFACE — other scripts build on it:
//
//   import { startCluster } from "../scripts/cluster/lib.mjs";
//   const c = await startCluster({ gateways = 2, sessions = 3, workers = 2, redisShards = 1, dir, log, set });
//   c.entryUrl         http://127.0.0.1:<port>, round-robin over the gateways (proxy.mjs)
//   c.adminToken       ADMIN_TOKEN (from the rendered Secret)
//   c.simnetUrl        http://127.0.0.1:<port> (simnet's control API; ws:// for the sessions)
//   c.cloudmockUrl     http://127.0.0.1:<port>
//   c.redisUrl         redis://127.0.0.1:<port> (its own Redis Stack, AOF on, data in <dir>/redis)
//   c.shardUrls        [c.redisUrl, …]: with redisShards > 1, shard i is process `redis-<i>`
//                      (data in <dir>/redis-<i>), given to every role as REDIS_SHARDS
//   c.temporalAddress  127.0.0.1:<port> (its own Temporal dev server, db in <dir>/temporal)
//   c.temporalUi       http://127.0.0.1:<port>
//   c.prefix           KEY_PREFIX (lease of an instance: `${prefix}lease:<id>` = "<POD_ID>|<epoch>")
//   c.procs            [{ name, role, pid, port }], live (pids change on restart). Names:
//                      gateway-0…, session-0…, worker-0…, simnet, cloudmock, redis, redis-1…, temporal, entry
//                      (session-i runs with POD_ID = the StatefulSet's pod name, cluster-gateway-session-i)
//   await c.kill(name, signal = "SIGKILL")   signal the process; resolves once it exited
//   await c.restart(name)    SIGTERM (if alive) and wait, start it again with the same env and
//                            port, resolve once it is ready (its readiness probe answers)
//   await c.restartRedis(name = "redis")   SIGKILL, then start again on the same port from the AOF
//   await c.restartTemporal() SIGKILL, then start again on the same port and db file
//                            (workflows persist)
//   await c.stop()           stops everything (SIGTERM, SIGKILL after the grace period)
//
// `dir` (default .local/cluster) holds state.json, logs/<name>.log, redis/ and temporal/; a start
// wipes its data. `set` adds --set-string values for `helm template` (e.g. {"session.leaseTtlMs":
// "2000"}). Redis Stack and Temporal binaries are scripts/stack-lib.mjs's (STACK_DIR=… to use
// another checkout's .local, e.g. from a git worktree).

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, redisPaths, redisServerArgs, temporalPath, temporalServerArgs } from "../stack-lib.mjs";
import { renderManifests, roleSpecs, sharedEnv, withOverrides } from "./render.mjs";
import { freePort, httpOk, isAlive, signal, sleep, startProcess, stopProcess, waitReady } from "./supervisor.mjs";

export const DEFAULT_DIR = join(ROOT, ".local", "cluster");
const STOP_ORDER = ["entry", "gateway", "worker", "session", "cloudmock", "simnet", "temporal", "redis"];

export function readState(dir = DEFAULT_DIR) {
  const file = join(dir, "state.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

/** Names of the processes of a state that still run. */
export function aliveProcs(state) {
  return (state?.procs ?? []).filter((p) => isAlive(p.pid));
}

/** The secrets of a local release: random, made once per cluster directory. */
function localSecrets(dir) {
  const file = join(dir, "secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const s = {
    adminToken: `local-${randomBytes(12).toString("hex")}`,
    internalSecret: randomBytes(24).toString("hex"),
    webhookSecretKey: randomBytes(32).toString("base64"),
    authStateKey: randomBytes(32).toString("base64"),
    cloudWebhookVerifyToken: `verify-${randomBytes(8).toString("hex")}`,
  };
  writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return s;
}

const nodeMain = ["--import", "tsx", join(ROOT, "services/main/src/main.ts")];
// A pod's container gets only its rendered env; PATH and HOME are what a process needs locally.
const base = () => ({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" });

function redisCli(port, ...args) {
  return spawnSync(redisPaths().cli, ["-p", String(port), ...args], { encoding: "utf8" });
}

/** Ready checks per kind of process. */
async function ready(proc) {
  if (proc.role === "redis") return redisCli(proc.port, "PING").stdout.trim() === "PONG";
  if (proc.role === "temporal") {
    const r = spawnSync(temporalPath(), ["operator", "cluster", "health", "--address", `127.0.0.1:${proc.port}`], {
      encoding: "utf8",
    });
    return r.status === 0 && /SERVING/.test(r.stdout);
  }
  return httpOk(proc.readyUrl);
}

export async function startCluster({
  gateways = 2,
  sessions = 3,
  workers = 2,
  redisShards = 1,
  dir = DEFAULT_DIR,
  log = (msg) => process.stderr.write(`[cluster] ${msg}\n`),
  set = {},
} = {}) {
  mkdirSync(dir, { recursive: true });
  const running = aliveProcs(readState(dir));
  if (running.length > 0)
    throw new Error(`a cluster runs in ${dir} (${running.map((p) => p.name).join(", ")}): pnpm cluster down`);
  for (const sub of ["redis", "temporal", "logs"]) rmSync(join(dir, sub), { recursive: true, force: true });
  for (let i = 1; i < 64; i++) rmSync(join(dir, `redis-${i}`), { recursive: true, force: true });
  rmSync(join(dir, "state.json"), { force: true });
  const logDir = join(dir, "logs");
  const secrets = localSecrets(dir);

  const port = {
    redis: await freePort(),
    temporal: await freePort(),
    temporalUi: await freePort(),
    simnet: await freePort(),
    cloudmock: await freePort(),
    entry: await freePort(),
  };
  const entryUrl = `http://127.0.0.1:${port.entry}`;
  const redisUrl = `redis://127.0.0.1:${port.redis}`;
  const shardPorts = [];
  for (let i = 1; i < redisShards; i++) shardPorts.push(await freePort());
  const shardUrls = [redisUrl, ...shardPorts.map((p) => `redis://127.0.0.1:${p}`)];
  const temporalAddress = `127.0.0.1:${port.temporal}`;

  log(
    `rendering charts/gateway (gateways ${gateways}, sessions ${sessions}, workers ${workers}, redis shards ${redisShards})`,
  );
  const objects = renderManifests({
    log,
    set: {
      "gateway.replicaCount": gateways,
      "session.replicaCount": sessions,
      "worker.replicaCount": workers,
      "config.REDIS_URL": redisUrl,
      "config.REDIS_SHARDS": shardUrls.slice(1).join(","),
      "config.TEMPORAL_ADDRESS": temporalAddress,
      "config.PUBLIC_BASE_URL": entryUrl,
      "config.SIMNET_URL": `ws://127.0.0.1:${port.simnet}`,
      "secrets.adminToken": secrets.adminToken,
      "secrets.internalSecret": secrets.internalSecret,
      "secrets.webhookSecretKey": secrets.webhookSecretKey,
      "secrets.authStateKey": secrets.authStateKey,
      "secrets.cloudWebhookVerifyToken": secrets.cloudWebhookVerifyToken,
      ...set,
    },
  });
  const roles = roleSpecs(objects);
  const shared = sharedEnv(objects);

  /** @type {Array<{name:string, role:string, pid:number, port:number, cmd:string, args:string[], env:object, cwd:string, readyUrl?:string, ports?:object, podName?:string}>} */
  const procs = [];
  const { bin: redisBin, lib: redisLib } = redisPaths();
  mkdirSync(join(dir, "redis"), { recursive: true });
  procs.push({
    name: "redis",
    role: "redis",
    port: port.redis,
    cmd: redisBin,
    // AOF on (fsync every second): a SIGKILLed Redis comes back with what it acknowledged up to
    // a second before; RDB snapshots off (the AOF is the store).
    args: redisServerArgs({ port: port.redis, dir: join(dir, "redis"), lib: redisLib, aof: true }),
    env: base(),
    cwd: dir,
  });
  // More shards: Redis Stack servers like the first (AOF on), each with its own data directory.
  for (const [i, shardPort] of shardPorts.entries()) {
    const name = `redis-${i + 1}`;
    mkdirSync(join(dir, name), { recursive: true });
    procs.push({
      name,
      role: "redis",
      port: shardPort,
      cmd: redisBin,
      args: redisServerArgs({ port: shardPort, dir: join(dir, name), lib: redisLib, aof: true }),
      env: base(),
      cwd: dir,
    });
  }
  mkdirSync(join(dir, "temporal"), { recursive: true });
  procs.push({
    name: "temporal",
    role: "temporal",
    port: port.temporal,
    cmd: temporalPath(),
    args: temporalServerArgs({ port: port.temporal, uiPort: port.temporalUi, db: join(dir, "temporal", "dev.db") }),
    env: base(),
    cwd: dir,
  });
  // simnet and the operator mock are not in the chart (development only): they read the shared
  // ConfigMap and Secret, plus their own listen address.
  procs.push({
    name: "simnet",
    role: "simnet",
    port: port.simnet,
    cmd: process.execPath,
    args: nodeMain,
    env: { ...base(), ...shared, ROLES: "simnet", SIMNET_HOST: "127.0.0.1", SIMNET_PORT: String(port.simnet) },
    cwd: ROOT,
    readyUrl: `http://127.0.0.1:${port.simnet}/healthz`,
  });
  procs.push({
    name: "cloudmock",
    role: "cloudmock",
    port: port.cloudmock,
    cmd: process.execPath,
    args: nodeMain,
    env: {
      ...base(),
      ...shared,
      ROLES: "cloudmock",
      CLOUDMOCK_HOST: "127.0.0.1",
      CLOUDMOCK_PORT: String(port.cloudmock),
      CLOUDMOCK_WEBHOOK_URL: `${entryUrl}/v1/official/webhook`,
    },
    cwd: ROOT,
    readyUrl: `http://127.0.0.1:${port.cloudmock}/healthz`,
  });
  // The chart's roles: one process per pod, env as rendered plus the listed overrides.
  for (const [role, spec] of Object.entries(roles)) {
    for (const [i, pod] of spec.pods.entries()) {
      const local = {};
      const byContainerPort = {};
      for (const [pname, cport] of Object.entries(spec.ports)) {
        local[pname] = await freePort();
        byContainerPort[cport] = local[pname];
      }
      const ports =
        role === "gateway"
          ? { public: local.public, internal: local.internal }
          : role === "session"
            ? { session: local.session }
            : { health: local.health ?? Object.values(local)[0] };
      const env = withOverrides(role, pod.env, ports);
      const readyPort = spec.ready ? byContainerPort[spec.ready.port] : Object.values(local)[0];
      procs.push({
        name: `${role}-${i}`,
        role,
        podName: pod.podName,
        port: ports.public ?? ports.session ?? ports.health,
        ports,
        cmd: process.execPath,
        args: nodeMain,
        env: { ...base(), ...env },
        cwd: ROOT,
        readyUrl: `http://127.0.0.1:${readyPort}${spec.ready?.path ?? "/healthz"}`,
      });
    }
  }
  const gatewayUrls = procs.filter((p) => p.role === "gateway").map((p) => `http://127.0.0.1:${p.ports.public}`);
  procs.push({
    name: "entry",
    role: "entry",
    port: port.entry,
    cmd: process.execPath,
    args: [join(ROOT, "scripts", "cluster", "proxy.mjs")],
    env: { ...base(), ENTRY_PORT: String(port.entry), ENTRY_TARGETS: gatewayUrls.join(",") },
    cwd: ROOT,
    readyUrl: `${entryUrl}/healthz`,
  });

  const state = {
    dir,
    createdAt: new Date().toISOString(),
    entryUrl,
    adminToken: secrets.adminToken,
    simnetUrl: `http://127.0.0.1:${port.simnet}`,
    cloudmockUrl: `http://127.0.0.1:${port.cloudmock}`,
    redisUrl,
    shardUrls,
    temporalAddress,
    temporalUi: `http://127.0.0.1:${port.temporalUi}`,
    prefix: shared.KEY_PREFIX ?? "",
    procs,
  };
  const save = () => writeFileSync(join(dir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 });
  const byName = (name) => {
    const p = procs.find((x) => x.name === name);
    if (!p) throw new Error(`no process named ${name} (have: ${procs.map((x) => x.name).join(", ")})`);
    return p;
  };
  const launch = async (p) => {
    p.pid = startProcess(p, logDir);
    save();
    await waitReady(() => ready(p), {
      what: p.name,
      pid: p.pid,
      logFile: join(logDir, `${p.name}.log`),
      timeoutMs: 120_000,
    });
  };

  const cluster = {
    ...state,
    get procs() {
      return procs.map(({ name, role, pid, port }) => ({ name, role, pid, port }));
    },
    async kill(name, sig = "SIGKILL") {
      const p = byName(name);
      await stopProcess(p.pid, { sig, graceMs: 60_000 });
    },
    async restart(name) {
      const p = byName(name);
      if (isAlive(p.pid)) await stopProcess(p.pid, { graceMs: 60_000 });
      await launch(p);
    },
    async restartRedis(name = "redis") {
      await cluster.kill(name, "SIGKILL");
      await cluster.restart(name);
    },
    async restartTemporal() {
      await cluster.kill("temporal", "SIGKILL");
      await cluster.restart("temporal");
    },
    async stop() {
      await stopAll(procs, log);
      rmSync(join(dir, "state.json"), { force: true });
    },
  };

  try {
    const tiers = [["redis", "temporal"], ["simnet", "cloudmock"], ["session", "worker", "gateway"], ["entry"]];
    for (const tier of tiers) {
      const group = procs.filter((p) => tier.includes(p.role));
      log(`starting ${group.map((p) => p.name).join(", ")}`);
      await Promise.all(group.map(launch));
    }
  } catch (err) {
    await stopAll(procs, log).catch(() => {});
    throw err;
  }
  log(`ready: entry ${entryUrl}`);
  return cluster;
}

/** Stops the processes of a cluster in dependency order (callers first, stores last). */
export async function stopAll(procs, log = () => {}) {
  for (const role of STOP_ORDER) {
    const group = procs.filter((p) => p.role === role && isAlive(p.pid));
    if (group.length === 0) continue;
    log(`stopping ${group.map((p) => p.name).join(", ")}`);
    await Promise.all(group.map((p) => stopProcess(p.pid, { graceMs: 40_000 })));
  }
}

/** Sends `sig` to a process of a running cluster found through its state file (CLI use). */
export function signalByName(state, name, sig) {
  const p = state.procs.find((x) => x.name === name);
  return p ? signal(p.pid, sig) : false;
}

export { sleep };
