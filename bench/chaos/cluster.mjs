// A whole cluster of separate processes for the chaos bench: its own Redis Stack (AOF, so a
// SIGKILLed server comes back with what it acknowledged) and its own Temporal dev server (SQLite
// file), simnet, N gateways behind a TCP balancer, N session pods, N workers. Every process can be
// SIGKILLed and restarted under the same name, port and identity.
//
// Same interface as scripts/cluster/lib.mjs: startCluster({gateways, sessions, workers, dir, log})
// → { entryUrl, adminToken, simnetUrl, redisUrl, temporalAddress, prefix, procs, kill(name, signal),
//   restart(name), restartRedis(), restartTemporal(), stop() }. The chaos bench keeps its own
// spawner because it runs with NODE_ENV=test (a webhook retry schedule of seconds, which the
// chart's production env does not give) and a TCP balancer that retries a refused backend;
// CHAOS_CLUSTER=shared runs it on the chart-rendered cluster instead. Both start Redis Stack and
// Temporal with scripts/stack-lib.mjs's argument lists.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { portOpen, redisPaths, redisServerArgs, temporalPath, temporalServerArgs } from "../../scripts/stack-lib.mjs";
import { freePorts, onCleanup, ROOT, sleep, spawnService, waitForHttp } from "../lib.mjs";

const ENTRY = "services/main/src/main.ts";

async function waitPort(port, what, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (Date.now() > until) throw new Error(`${what} did not open port ${port}`);
    await sleep(100);
  }
}

/** A TCP balancer: each client connection goes to a live backend (tries the others on refusal). */
function balancer(backends) {
  let next = 0;
  const open = new Set();
  const server = createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.pause();
    const order = backends().map((_, i, all) => all[(next + i) % all.length]);
    next++;
    const attempt = (i) => {
      if (i >= order.length) return client.destroy();
      const up = connect(order[i], "127.0.0.1");
      up.once("connect", () => {
        up.removeAllListeners("error");
        client.pipe(up).pipe(client);
        client.resume();
        const end = () => {
          client.destroy();
          up.destroy();
        };
        up.on("error", end);
        up.on("close", end);
        client.on("error", end);
        client.on("close", end);
      });
      up.once("error", () => attempt(i + 1));
    };
    attempt(0);
  });
  // close() waits for every connection to end: idle keep-alive ones last the gateways' keep-alive
  // timeout (72 s), which a stop at the end of the run need not wait for.
  const close = server.close.bind(server);
  server.close = (cb) => {
    close(cb);
    for (const c of open) c.destroy();
    return server;
  };
  return server;
}

export async function startCluster({
  gateways = 2,
  sessions = 2,
  workers = 2,
  redisShards = 1,
  dir,
  log = () => {},
  env = {},
}) {
  mkdirSync(dir, { recursive: true });
  const prefix = `chaos${randomBytes(3).toString("hex")}:`;
  const adminToken = `chaos-admin-${randomBytes(8).toString("hex")}`;
  const [redisPort, temporalPort, temporalUi, simnetPort, entryPort] = await freePorts(5);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const temporalAddress = `127.0.0.1:${temporalPort}`;
  const simnetUrl = `http://127.0.0.1:${simnetPort}`;
  const procs = new Map(); // name → {name, role, port, start(), service}

  const { bin: redisBin, lib: redisLib } = redisPaths();
  // Shard 0 is `redis` (control); more shards are `redis-1`… (REDIS_SHARDS), each with its AOF.
  const shardPorts = redisShards > 1 ? await freePorts(redisShards - 1) : [];
  const startRedisOn = (name, port) => {
    const redisDir = join(dir, name);
    mkdirSync(redisDir, { recursive: true });
    return spawnService({
      name,
      command: redisBin,
      args: redisServerArgs({ port, dir: redisDir, lib: redisLib, aof: true }),
      logFile: join(dir, `${name}.log`),
    });
  };
  const tbin = temporalPath();
  const temporalDb = join(dir, "temporal.db");
  const startTemporal = () =>
    spawnService({
      name: "temporal",
      command: tbin,
      args: temporalServerArgs({
        port: temporalPort,
        uiPort: temporalUi,
        db: temporalDb,
        logLevel: "error",
        headless: true,
      }),
      logFile: join(dir, "temporal.log"),
    });

  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "test",
    REDIS_URL: redisUrl,
    REDIS_SHARDS: shardPorts.map((p) => `redis://127.0.0.1:${p}`).join(","),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: "chaos",
    ADMIN_TOKEN: adminToken,
    INTERNAL_SECRET: `chaos-internal-${randomBytes(12).toString("hex")}`,
    KEY_PREFIX: prefix,
    LOG_LEVEL: "warn",
    ENABLE_SIM_PROVIDER: "true",
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE: "true",
    AUTH_STATE_KEY: randomBytes(32).toString("base64"),
    MEDIA_LINK_SECRET: randomBytes(16).toString("hex"),
    SIMNET_URL: `ws://127.0.0.1:${simnetPort}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${entryPort}`,
    RATE_LIMIT_PER_SECOND: "1000",
    RATE_LIMIT_BURST: "2000",
    ...env,
  };
  const node = (name, role, port, extra, health) => {
    const p = { name, role, port, health, pid: 0, service: undefined };
    p.start = async () => {
      p.service = spawnService({
        name,
        command: process.execPath,
        args: ["--import", "tsx", ENTRY],
        env: { ...base, ...extra },
        logFile: join(dir, `${name}.log`),
      });
      p.pid = p.service.pid;
      await waitForHttp(`http://127.0.0.1:${port}${health}`, { service: p.service, timeoutMs: 180_000 });
    };
    procs.set(name, p);
    return p;
  };

  log(`redis on ${[redisPort, ...shardPorts].join(", ")} (AOF), temporal on ${temporalPort}, in ${dir}`);
  const redisProc = (name, port) => {
    const p = { name, role: "redis", port, start: async () => {} };
    p.start = async () => {
      p.service = startRedisOn(name, port);
      p.pid = p.service.pid;
      await waitPort(port, name);
    };
    return p;
  };
  const redis = redisProc("redis", redisPort);
  const shards = shardPorts.map((port, i) => redisProc(`redis-${i + 1}`, port));
  const temporal = { name: "temporal", role: "temporal", port: temporalPort, start: async () => {} };
  temporal.start = async () => {
    temporal.service = startTemporal();
    temporal.pid = temporal.service.pid;
    await waitPort(temporalPort, "temporal", 120_000);
  };
  procs.set("redis", redis);
  for (const s of shards) procs.set(s.name, s);
  procs.set("temporal", temporal);
  await Promise.all([redis.start(), ...shards.map((s) => s.start()), temporal.start()]);

  await node("simnet", "simnet", simnetPort, { ROLES: "simnet", SIMNET_PORT: String(simnetPort) }, "/healthz").start();
  const ports = await freePorts(gateways * 2 + sessions + workers);
  const gw = [];
  for (let i = 0; i < gateways; i++) {
    const [port, internal] = [ports.pop(), ports.pop()];
    gw.push(
      node(
        `gateway-${i}`,
        "gateway",
        port,
        { ROLES: "gateway", PORT: String(port), INTERNAL_PORT: String(internal) },
        "/healthz",
      ),
    );
  }
  for (let i = 0; i < sessions; i++) {
    const port = ports.pop();
    node(
      `session-${i}`,
      "session",
      port,
      { ROLES: "session", POD_ID: `pod-${i}`, SESSION_PORT: String(port) },
      "/healthz",
    );
  }
  for (let i = 0; i < workers; i++) {
    const port = ports.pop();
    node(`worker-${i}`, "worker", port, { ROLES: "worker", WORKER_PORT: String(port) }, "/readyz");
  }
  // Side by side (simnet first: the pods connect to it). One at a time took ~20 s each on a
  // loaded 2-core machine: on a shared machine the scheduler shares the CPU per process, so
  // waiting for each in turn mostly waits for the others' work; the total is bounded anyway.
  await Promise.all([...procs.values()].filter((p) => !p.service).map((p) => p.start()));

  const entry = balancer(() => gw.filter((g) => g.service && !g.service.exit).map((g) => g.port));
  await new Promise((r) => entry.listen(entryPort, "127.0.0.1", r));

  let entryOpen = true;
  /**
   * Stops every process, the gateways first and Redis last. `{hard: true}` (after the
   * reconciliation, when nothing is measured any more): SIGKILL at once instead of a graceful
   * stop of up to 15 s per role (a minute and more of a short run).
   */
  const stopAll = async ({ hard = false } = {}) => {
    if (entryOpen) {
      entryOpen = false;
      await new Promise((r) => entry.close(r));
    }
    const order = ["gateway", "worker", "session", "simnet", "temporal", "redis"];
    for (const role of order) {
      const group = [...procs.values()].filter((p) => p.role === role);
      await Promise.all(group.map((p) => (hard ? kill(p.name, "SIGKILL") : p.service?.stop())));
    }
  };
  // A restarted process registers its own stop (lib.mjs, last-in first-out): registering the
  // ordered stop again after it keeps Redis from going first at cleanup.
  const again = () => onCleanup(stopAll);
  const kill = async (name, signal = "SIGKILL") => {
    const p = procs.get(name);
    if (!p?.service || p.service.exit) return;
    try {
      process.kill(-p.service.pid, signal);
    } catch {}
    await p.service.exited;
  };
  const restart = async (name) => {
    const p = procs.get(name);
    if (p.service && !p.service.exit) await kill(name, "SIGKILL");
    await p.start();
    again();
  };
  return {
    entryUrl: `http://127.0.0.1:${entryPort}`,
    adminToken,
    simnetUrl,
    redisUrl,
    temporalAddress,
    prefix,
    dir,
    root: ROOT,
    get procs() {
      return [...procs.values()].map((p) => ({ name: p.name, role: p.role, pid: p.pid, port: p.port }));
    },
    kill,
    restart,
    restartRedis: async (name = "redis") => {
      await kill(name);
      await procs.get(name).start();
      again();
    },
    restartTemporal: async () => {
      await kill("temporal");
      await temporal.start();
      again();
    },
    stop: stopAll,
  };
}
