// pnpm bench redis-per-send — Redis commands per immediate send, counted exactly.
//
// `pnpm bench send` prints Redis's commands per send from `INFO commandstats` of the shared
// stack, under a load whose batching (a loop turn's writes share one script call) and whose
// neighbours (other test runs on the same server) move the figure. This script counts on a Redis
// Stack server of its own (the stack's binary and modules, an ephemeral port, no persistence),
// so that every command it sees is the send path's:
//
// - one process with the gateway, the session role and simnet (ROLES=gateway,session,simnet;
//   the gateway → pod hop does no Redis work of its own), LEASE_TTL_MS and INSTANCE_CACHE_MS
//   60 s so that lease renewals, reconciles and instance reloads (costs per instance and time,
//   not per send) hardly run during the counts (what does run in an idle window of the same
//   length is measured and subtracted);
// - BENCH_INSTANCES (4) sim instances, billingStatus active, paired; a contact that never reads
//   (the send's `sent` and `delivered` acks, as in `pnpm bench send`) and one that reads at once
//   (simnet `autoRead`: `read` as well);
// - a warm-up of BENCH_WARMUP_SENDS (3) per instance and contact: the chats exist, the caches are
//   filled, as in a steady run;
// - for each contact, two counts of BENCH_SENDS (40) text sends (`POST …/messages/text`, no
//   X-Queue, no Idempotency-Key): "one at a time" (each send's acks settled before the next: no
//   two sends share a script call, the deterministic upper bound) and "concurrent"
//   (BENCH_CONCURRENCY, 16, in flight over the instances: loop turns' writes batched together as
//   under load). Acks are settled when Redis has run every `message.ack` XADD expected: seen on a
//   MONITOR connection, which issues no command of its own per send.
//
// Printed per count: commands per send in all (as `INFO commandstats` counts them: an EVALSHA
// once, and each command its script runs once more), then split into the commands clients sent
// (round trips' contents: EVALSHA, HMGET…) and those run inside scripts, each command with its
// count per send.
//
// Then, without MONITOR (it costs Redis time), the CPU of BENCH_CPU_SENDS (2000; 0: none) sends
// to the contact that never reads, BENCH_CPU_CONCURRENCY (32) in flight, until their `delivered`
// acks are in the instances' event histories: µs of CPU per send of the one process (gateway +
// pod + simnet) and of the private Redis (its INFO cpu). The machine's other work inflates CPU
// time less than it does throughput, but it does: compare runs made close together.
//
// Environment: BENCH_SENDS, BENCH_INSTANCES, BENCH_CONCURRENCY, BENCH_WARMUP_SENDS,
// BENCH_ACK_DELAY_MS (simnet's ack step, 100 ms; at 20 ms some acks overtake their send's store
// under load, which the store handles at the cost of a lookup), BENCH_CPU_SENDS,
// BENCH_CPU_CONCURRENCY, BENCH_NODE_ARGS (node flags of the process), BENCH_LOG_LEVEL (warn).
// The rate limit is raised for the run (it is charged the same).
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { redisPaths } from "../scripts/stack-lib.mjs";
import {
  cpuMeter,
  freePort,
  instanceApi,
  intEnv,
  log,
  onCleanup,
  pool,
  ROOT,
  requireFrom,
  runCleanups,
  scanUntilPaired,
  simnetClient,
  sleep,
  spawnService,
  startGateway,
  until,
  waitForHttp,
} from "./lib.mjs";

export const description =
  "Redis commands per immediate send (sent + delivered acks; and with read), counted on a Redis of its own: one at a time and concurrent";

const CONTACT_UNREAD = "15550000001";
const CONTACT_READS = "15550000002";
const TEXT = "Olá! Esta é uma mensagem de teste do benchmark de envio.";

export default async function main() {
  const sends = intEnv("BENCH_SENDS", 40);
  const n = intEnv("BENCH_INSTANCES", 4);
  const concurrency = intEnv("BENCH_CONCURRENCY", 16);
  const warmSends = intEnv("BENCH_WARMUP_SENDS", 3, { min: 0 });
  const ackDelay = intEnv("BENCH_ACK_DELAY_MS", 100);
  const cpuSends = intEnv("BENCH_CPU_SENDS", 2000, { min: 0 });
  const cpuConcurrency = intEnv("BENCH_CPU_CONCURRENCY", 32);
  const logDir = join(ROOT, ".local", "bench", `redis-per-send-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(logDir, { recursive: true });
  const { Redis } = requireFrom("services/platform")("ioredis");
  const out = (s = "") => console.log(s);
  let code = 0;
  try {
    // --- a Redis Stack server of our own ----------------------------------------------------
    const { bin, lib } = redisPaths();
    const redisPort = await freePort();
    const server = spawnService({
      name: "redis",
      command: bin,
      args: [
        "--port",
        String(redisPort),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--protected-mode",
        "no",
        "--dir",
        logDir,
        "--loadmodule",
        join(lib, "redisearch.so"),
        "--loadmodule",
        join(lib, "rejson.so"),
      ],
      logFile: join(logDir, "redis.log"),
    });
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const redis = new Redis(redisUrl, {
      connectionName: "bench-redis-per-send",
      lazyConnect: true,
      retryStrategy: () => null,
    });
    redis.on("error", () => {}); // refused while the server starts: retried below
    await until(
      async () => {
        if (server.exit) throw new Error(`redis-server exited: ${server.tail()}`);
        return redis.connect().then(
          () => true,
          () => false,
        );
      },
      "the private Redis",
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    onCleanup(() => redis.disconnect());

    // --- gateway + session pod + simnet in one process ----------------------------------------
    const [simnetPort, podPort] = [await freePort(), await freePort()];
    const gw = await startGateway({
      env: {
        ROLES: "gateway,session,simnet",
        REDIS_URL: redisUrl,
        POD_ID: "pod-count",
        SESSION_PORT: String(podPort),
        SIMNET_PORT: String(simnetPort),
        SIMNET_URL: `ws://127.0.0.1:${simnetPort}`,
        SIMNET_ACK_DELAY_MS: String(ackDelay),
        ENABLE_SIM_PROVIDER: "true",
        AUTH_STATE_KEY: randomBytes(32).toString("base64"),
        LEASE_TTL_MS: "60000",
        // The instance record is reloaded every INSTANCE_CACHE_MS per instance (4 commands): a
        // cost per instance and time, not per send (in `pnpm bench send` ~0.2 per send).
        INSTANCE_CACHE_MS: "60000",
        RATE_LIMIT_PER_SECOND: "1000000",
        RATE_LIMIT_BURST: "1000000",
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
      },
      logFile: join(logDir, "gateway.log"),
      // node itself, no tsx wrapper process (BENCH_NODE_ARGS: flags, e.g. --cpu-prof)
      nodeArgs: (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
    });
    await waitForHttp(`http://127.0.0.1:${simnetPort}/healthz`, { service: gw.service });
    const sim = simnetClient(`http://127.0.0.1:${simnetPort}`, gw.adminToken);
    for (const [phone, autoRead] of [
      [CONTACT_UNREAD, 0],
      [CONTACT_READS, 1],
    ]) {
      const r = await sim("POST", "/simnet/phones", { phone, pushName: "Bench Contact", autoRead });
      if (r.status !== 201 && r.status !== 200) throw new Error(`POST /simnet/phones: ${r.status}`);
    }
    const api = instanceApi(gw.url);
    const instances = (
      await gw.createInstances(n, { concurrency: 4, name: "count", provider: "sim", body: { billingStatus: "active" } })
    ).map((inst, i) => ({ ...inst, phone: `1555${String(3_000_000 + i)}` }));
    await pool(instances, 4, async (inst) => {
      const r = await api(inst, "POST", "/start");
      if (r.status !== 200) throw new Error(`start ${inst.id}: ${r.status} ${JSON.stringify(r.body)}`);
      await scanUntilPaired(sim, inst, { timeoutMs: 60_000 });
      await until(
        async () =>
          (await (await gw.admin("GET", `/v1/admin/instances/${inst.id}`)).json()).instance?.connectionStatus ===
          "WORKING",
        `${inst.id} WORKING`,
        {
          timeoutMs: 30_000,
        },
      );
    });
    log(`${n} instances paired and WORKING`);

    // --- the acks Redis has run, from a MONITOR connection -----------------------------------
    const monitor = await redis.monitor();
    onCleanup(() => monitor.disconnect());
    const seen = { delivered: 0, read: 0 };
    let counting = false;
    const tally = { client: new Map(), lua: new Map() };
    monitor.on("monitor", (_time, args, source) => {
      const name = String(args[0]).toLowerCase();
      if (name === "xadd" && args.includes("message.ack")) {
        const env = String(args[args.length - 1]);
        if (env.includes('"status":"delivered"')) seen.delivered++;
        else if (env.includes('"status":"read"')) seen.read++;
      }
      if (!counting) return;
      const side = source === "lua" ? tally.lua : tally.client;
      side.set(name, (side.get(name) ?? 0) + 1);
    });

    const sendTo = (inst, phone) =>
      api(inst, "POST", "/messages/text", { chatId: `${phone}@c.us`, text: TEXT }).then((r) => {
        if (r.status !== 201 && r.status !== 200) throw new Error(`send: ${r.status} ${JSON.stringify(r.body)}`);
      });
    const settled = async (expect) =>
      until(
        () => seen.delivered >= expect.delivered && seen.read >= expect.read,
        `acks settled (${JSON.stringify(expect)}, seen ${JSON.stringify(seen)})`,
        { timeoutMs: 30_000, intervalMs: 5 },
      );
    /** Sends `count` to `phone` (one at a time or `conc` in flight), each send's acks settled. */
    const run = async (phone, count, conc) => {
      const reads = phone === CONTACT_READS;
      const expect = { delivered: seen.delivered, read: seen.read };
      const jobs = Array.from({ length: count }, (_, i) => instances[i % n]);
      if (conc === 1) {
        for (const inst of jobs) {
          expect.delivered++;
          if (reads) expect.read++;
          await sendTo(inst, phone);
          await settled(expect);
        }
      } else {
        await pool(jobs, conc, (inst) => sendTo(inst, phone));
        expect.delivered += count;
        if (reads) expect.read += count;
        await settled(expect);
      }
    };
    const stats = async () => {
      const s = {};
      for (const line of String(await redis.info("commandstats")).split("\n")) {
        const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
        if (m) s[m[1]] = Number(m[2]);
      }
      return s;
    };
    const diff = (a, b) => {
      const d = {};
      for (const [k, v] of Object.entries(b)) if (v - (a[k] ?? 0) > 0) d[k] = v - (a[k] ?? 0);
      return d;
    };
    // Commands the count's own reads add (INFO twice).
    const own = { info: 1 };
    const count = async (title, phone, conc) => {
      tally.client.clear();
      tally.lua.clear();
      const before = await stats();
      const t0 = Date.now();
      counting = true;
      await run(phone, sends, conc);
      counting = false;
      const ms = Date.now() - t0;
      const during = diff(before, await stats());
      // MONITOR's classification of the same window (client-sent vs inside scripts).
      const client = new Map(tally.client);
      const lua = new Map(tally.lua);
      // Background (leases, reconciles): an idle window as long, subtracted pro rata.
      const idleBefore = await stats();
      await sleep(Math.min(ms, 5_000));
      const idle = diff(idleBefore, await stats());
      const idleMs = Math.min(ms, 5_000);
      const total = {};
      for (const [k, v] of Object.entries(during)) {
        const bg = ((idle[k] ?? 0) - (own[k] ?? 0)) * (ms / idleMs);
        const x = v - (own[k] ?? 0) - Math.max(0, bg);
        if (x > 0) total[k] = x;
      }
      return { title, ms, total, idle, client, lua };
    };

    // --- warm-up, then the counts -------------------------------------------------------------
    for (const phone of [CONTACT_UNREAD, CONTACT_READS]) await run(phone, warmSends * n, 1);
    const results = [];
    for (const [label, phone] of [
      ["sent + delivered", CONTACT_UNREAD],
      ["sent + delivered + read", CONTACT_READS],
    ]) {
      const perCount = [];
      for (const [mode, conc] of [
        ["one at a time", 1],
        [`concurrent (${concurrency} in flight)`, concurrency],
      ]) {
        perCount.push(await count(`${label}, ${mode}`, phone, conc));
      }
      results.push(...perCount);
    }

    // --- CPU per send, without MONITOR -----------------------------------------------------------
    let cpu = null;
    if (cpuSends > 0) {
      monitor.disconnect();
      const histories = instances.map((i) => `${gw.prefix}recent:${i.id}`);
      const events = async () => {
        const p = redis.pipeline();
        for (const key of histories) p.xlen(key);
        return ((await p.exec()) ?? []).reduce((a, [, n]) => a + Number(n), 0);
      };
      const redisCpuS = async () => {
        const info = String(await redis.info("cpu"));
        const v = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
        return v("used_cpu_user") + v("used_cpu_sys");
      };
      // Each send: message.any, message.ack sent, message.ack delivered.
      const expected = (await events()) + 3 * cpuSends;
      const r0 = await redisCpuS();
      const t0 = process.hrtime.bigint();
      const meter = cpuMeter({ services: [gw.service] });
      const jobs = Array.from({ length: cpuSends }, (_, i) => instances[i % n]);
      await pool(jobs, cpuConcurrency, (inst) => sendTo(inst, CONTACT_UNREAD));
      await until(async () => (await events()) >= expected, "the CPU run's acks", {
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      const cores = meter.stop();
      const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
      const redisS = (await redisCpuS()) - r0;
      cpu = {
        window: { startUs: Number(t0 / 1000n), endUs: Number(process.hrtime.bigint() / 1000n) },
        wallS,
        processUs: ((cores.gateway ?? 0) * wallS * 1e6) / cpuSends,
        redisUs: (redisS * 1e6) / cpuSends,
        loadUs: ((cores["load generator"] ?? 0) * wallS * 1e6) / cpuSends,
        other: cores["everything else"] ?? 0,
      };
    }

    // --- report ---------------------------------------------------------------------------------
    const fmt = (x) => (x / sends).toFixed(2);
    out(`Redis commands per immediate send: ${sends} sends per count over ${n} instances, one process`);
    out(`(gateway + session pod + simnet), a Redis Stack server of its own (INFO commandstats deltas,`);
    out(`an idle window's background subtracted; an EVALSHA counts once and each command its script`);
    out(`runs once more, as in \`pnpm bench send\`)`);
    for (const r of results) {
      const all = Object.values(r.total).reduce((a, b) => a + b, 0);
      const list = Object.entries(r.total)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${fmt(v)}`)
        .join(", ");
      const side = (m) =>
        [...m.entries()]
          .filter(([k]) => k !== "info" && k !== "monitor")
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${fmt(v)}`)
          .join(", ");
      const clientN = [...r.client.entries()].filter(([k]) => k !== "info").reduce((a, [, v]) => a + v, 0);
      const luaN = [...r.lua.values()].reduce((a, b) => a + b, 0);
      out("");
      out(`${r.title}: ${fmt(all)} commands per send (${(r.ms / 1000).toFixed(1)} s)`);
      out(`  by name: ${list}`);
      out(`  sent by clients (MONITOR): ${fmt(clientN)} per send — ${side(r.client)}`);
      out(`  run inside scripts (MONITOR): ${fmt(luaN)} per send — ${side(r.lua)}`);
      const bg = Object.entries(r.idle)
        .filter(([k]) => k !== "info")
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      if (bg) out(`  idle window: ${bg}`);
    }
    if (cpu) {
      out("");
      out(
        `CPU per send (${cpuSends} sends, ${cpuConcurrency} in flight, acks settled, ${cpu.wallS.toFixed(1)} s): ` +
          `gateway + pod + simnet ${cpu.processUs.toFixed(0)} µs, Redis ${cpu.redisUs.toFixed(0)} µs ` +
          `(load generator ${cpu.loadUs.toFixed(0)} µs; other work on the machine ${cpu.other.toFixed(2)} cores)`,
      );
      // For a profile of the process (BENCH_NODE_ARGS=--cpu-prof): bench/support/cpuprofile.mjs's window.
      out(`  (that run's window on CLOCK_MONOTONIC, µs: ${cpu.window.startUs} ${cpu.window.endUs})`);
    }
  } catch (err) {
    log(err?.stack ?? String(err));
    code = 1;
  } finally {
    await runCleanups();
  }
  return code;
}
