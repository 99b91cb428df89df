#!/usr/bin/env node
// `pnpm cluster up|down|status`: the local cluster (docs/operations.md "A local cluster").
//   up [--gateways N] [--sessions M] [--workers W] [--redis-shards R]
//                                                    start it detached, with a paired demo instance
//   status [--overrides]                             processes, readiness, lease owners
//   down                                             stop every process
// State in .local/cluster/state.json; logs in .local/cluster/logs/<name>.log.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createPairedInstance, leaseOwners, listInstanceIds, Redis } from "./instances.mjs";
import { aliveProcs, DEFAULT_DIR, readState, startCluster, stopAll } from "./lib.mjs";
import { OVERRIDES } from "./render.mjs";
import { httpOk, isAlive } from "./supervisor.mjs";

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    gateways: { type: "string", default: "2" },
    sessions: { type: "string", default: "3" },
    workers: { type: "string", default: "2" },
    "redis-shards": { type: "string", default: "1" },
    overrides: { type: "boolean", default: false },
  },
});
const count = (name) => {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};
const log = (msg) => process.stderr.write(`[cluster] ${msg}\n`);

async function up() {
  const c = await startCluster({
    gateways: count("gateways"),
    sessions: count("sessions"),
    workers: count("workers"),
    redisShards: count("redis-shards"),
    log,
  });
  log("creating the demo instance and pairing it on simnet");
  const demo = await createPairedInstance(c, { name: "demo" });
  const state = readState();
  writeFileSync(join(DEFAULT_DIR, "state.json"), JSON.stringify({ ...state, demo }, null, 2), { mode: 0o600 });
  const gw = c.procs.filter((p) => p.role === "gateway");
  console.log(`entry        ${c.entryUrl}   (round-robin over ${gw.map((p) => p.port).join(", ")})
admin token  ${c.adminToken}
instance     ${demo.id}   token ${demo.token}   (WORKING, paired with ${demo.phone})
simnet       ${c.simnetUrl}
cloudmock    ${c.cloudmockUrl}
redis        ${c.shardUrls.map((u, i) => `${u}${i === 0 ? " (control)" : ""}`).join("  ")}   (AOF in ${join(DEFAULT_DIR, "redis*")})
temporal     ${c.temporalAddress}   UI ${c.temporalUi}
metrics      ${state.procs
    .filter((p) => p.role === "gateway")
    .map((p) => `http://127.0.0.1:${p.ports.internal}/metrics`)
    .join("  ")}
             ${state.procs
               .filter((p) => p.role === "session")
               .map((p) => `http://127.0.0.1:${p.port}/metrics`)
               .join("  ")}
             ${state.procs
               .filter((p) => p.role === "worker")
               .map((p) => `http://127.0.0.1:${p.port}/metrics`)
               .join("  ")}
logs         ${join(DEFAULT_DIR, "logs")}
pnpm cluster status | pnpm cluster down`);
}

async function ready(p) {
  if (!isAlive(p.pid)) return "dead";
  if (p.readyUrl) return (await httpOk(p.readyUrl)) ? "ready" : "not ready";
  return "alive";
}

async function status() {
  const state = readState();
  if (!state) {
    console.log("no cluster (pnpm cluster up)");
    return;
  }
  console.log(`entry ${state.entryUrl}   admin token ${state.adminToken}   Temporal UI ${state.temporalUi}`);
  const rows = await Promise.all(
    state.procs.map(async (p) => [
      p.name,
      p.role,
      String(p.pid ?? "-"),
      String(p.port),
      await ready(p),
      p.podName ?? "",
    ]),
  );
  const head = ["NAME", "ROLE", "PID", "PORT", "STATE", "POD (POD_ID of session pods)"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  "));
  if (opts.overrides) {
    console.log("\noverrides of the rendered env (scripts/cluster/render.mjs OVERRIDES):");
    for (const [role, list] of Object.entries(OVERRIDES))
      for (const o of list) console.log(`  ${role.padEnd(8)} ${o.name.padEnd(22)} ${o.why}`);
  }
  const redisProc = state.procs.find((p) => p.role === "redis");
  if (!isAlive(redisProc?.pid)) return;
  const redis = new Redis(state.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const ids = await listInstanceIds(state).catch(() => []);
    const owners = await leaseOwners(redis, state.prefix, ids);
    console.log(`\nINSTANCE${" ".repeat(30)}LEASE OWNER`);
    for (const [id, owner] of owners) console.log(`${id.padEnd(38)}${owner ?? "(none)"}`);
  } finally {
    redis.disconnect();
  }
}

async function down() {
  const state = readState();
  if (!state || aliveProcs(state).length === 0) {
    console.log("no cluster running");
    return;
  }
  await stopAll(state.procs, log);
  console.log("stopped");
}

const [cmd] = positionals;
try {
  if (cmd === "up") await up();
  else if (cmd === "status") await status();
  else if (cmd === "down") await down();
  else {
    console.error(
      "usage: pnpm cluster up [--gateways N] [--sessions M] [--workers W] [--redis-shards R] | status [--overrides] | down",
    );
    process.exit(2);
  }
  process.exit(0);
} catch (err) {
  console.error(`[cluster] ${err?.stack ?? err}`);
  process.exit(1);
}
