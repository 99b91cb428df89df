// pnpm bench chaos [--short] — a steady mixed load on a cluster of separate processes while
// gateways, session pods, workers, the Temporal server and Redis are SIGKILLed in turn, then a
// reconciliation from the outside (issue 19 §3; docs/benchmarks.md "Chaos").
//
// Load (bench/chaos/load.mjs): immediate sends with Idempotency-Key retried as the spec's retry
// rules say, queued sends with delays, inbound messages from virtual contacts; webhooks to a
// receiver that sometimes answers 500 or hangs (bench/chaos/receiver.mjs). Kills
// (bench/chaos/kills.mjs): one per role per round, at random moments. At the end the load stops,
// the receiver heals, queue items and webhook retries are given time to finish, and
// bench/chaos/reconcile.mjs checks: every 2xx send on the contact's phone exactly once; every
// queue item `sent` once, or failed/expired with its event; every inbound message delivered and
// once in /chats/{id}/messages; every listed event id at the receiver; no instance left without
// an owner and no two connections of one at once. bench/chaos/answers.mjs counts every answer a
// client got by status and code, against the spec's failure table: a 4xx other than 429 answered
// during or after a kill is a send a retry would have delivered, and the client dropped it.
// Exits 1 on any loss, duplicate or such final 4xx.
//
// --short (make test): one kill of each role, a small load, ~1–2 minutes.
// --shard-kill: the keyspace on two Redis shards (REDIS_SHARDS; instances alternate between them)
// and one kill only, of shard 1's Redis (restarted from its AOF after ~6 s): every answer to the
// instances of shard 0 while it is down must be a 2xx (0 failures, not even a retried one), and
// the reconciliation as above (nothing lost or duplicated on either shard).
// Environment: CHAOS_DURATION (s, 240; short 40), CHAOS_RATE (ops/s, 8; short 4), CHAOS_ROUNDS
// (2; short 1), CHAOS_INSTANCES (4; short 3), CHAOS_SEED (kill plan), CHAOS_KEEP=1 keeps the
// processes' logs in .local/bench/chaos-*/.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { accountAnswers } from "./chaos/answers.mjs";
import { plan, runKills } from "./chaos/kills.mjs";
import { runLoad, setup } from "./chaos/load.mjs";
import { sampleOwners } from "./chaos/owners.mjs";
import { startReceiver } from "./chaos/receiver.mjs";
import { eventsSettled, queueFinals, reconcile } from "./chaos/reconcile.mjs";
import { log as benchLog, intEnv, onCleanup, printMachineFacts, ROOT, runCleanups } from "./lib.mjs";

export const description =
  "mixed load while gateways, pods, workers, Temporal and Redis are SIGKILLed in turn; reconciles sends, queue, inbound, events and owners from the outside";

/**
 * The bench's own spawner (bench/chaos/cluster.mjs), same interface as scripts/cluster/lib.mjs.
 * The shared lib renders the Helm chart (production env): the bench needs NODE_ENV=test for a
 * webhook retry schedule of seconds, which the chart does not set. CHAOS_CLUSTER=shared uses it.
 */
async function clusterLib() {
  const file =
    process.env.CHAOS_CLUSTER === "shared"
      ? join(ROOT, "scripts", "cluster", "lib.mjs")
      : join(ROOT, "bench", "chaos", "cluster.mjs");
  return import(pathToFileURL(file).href);
}

/** The webhook retry schedule of the run (NODE_ENV=test): seconds instead of 10 s, 1 min, 5 min… */
const WEBHOOK_RETRIES_MS = [2_000, 4_000, 8_000, 15_000, 30_000, 60_000];

/** A small seeded generator (mulberry32), so that a kill plan can be replayed. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The shard an instance's id names (services/platform/src/infra/shards/placement.ts). */
const B32 = "0123456789abcdefghjkmnpqrstvwxyz";
const homeShard = (id) => (id.length === 27 ? B32.indexOf(id[1]) * 32 + B32.indexOf(id[2]) : 0);

/**
 * --shard-kill: the answers to shard 0's instances from the kill of shard 1's Redis until 3 s
 * after it was back must all be 2xx; answers the count of those that were not (and prints them).
 */
function shardOutage(record, sent, done, out) {
  const from = sent.time;
  const to = sent.time + done.downMs + 3_000;
  const tries = { 0: [], 1: [] };
  for (const s of [...record.sends, ...record.queued]) {
    for (const a of s.answers ?? []) {
      if (a.at >= from && a.at <= to) tries[homeShard(s.instanceId) === 0 ? 0 : 1].push({ s, a });
    }
  }
  const bad = tries[0].filter(({ a }) => a.status < 200 || a.status > 299);
  const other = {};
  for (const { a } of tries[1]) other[a.status || a.code] = (other[a.status || a.code] ?? 0) + 1;
  out(
    `shard kill: redis-1 down ${(done.downMs / 1000).toFixed(1)} s; from the kill to 3 s after the restart, shard 0's instances answered ${tries[0].length} tries, ${bad.length} not 2xx; shard 1's (held until their Redis answered, or 503) ${JSON.stringify(other)}`,
  );
  for (const { s, a } of bad.slice(0, 10)) out(`  ✗ ${s.tag} (${s.instanceId}) answered ${a.status} ${a.code ?? ""}`);
  return bad.length;
}

export default async function chaos(args = []) {
  const t0 = Date.now();
  // Seconds since the start on every line: where the time of a run goes.
  const log = (msg) => benchLog(`+${((Date.now() - t0) / 1000).toFixed(0)} s ${msg}`);
  const short = args.includes("--short");
  const shardKill = args.includes("--shard-kill");
  const durationS = intEnv("CHAOS_DURATION", short ? 40 : 240);
  const rate = intEnv("CHAOS_RATE", short ? 4 : 8);
  const rounds = intEnv("CHAOS_ROUNDS", short ? 1 : 2);
  const n = intEnv("CHAOS_INSTANCES", short ? 3 : 4);
  const seed = intEnv("CHAOS_SEED", Math.floor(Math.random() * 1e9), { min: 0 });
  const dir = join(ROOT, ".local", "bench", `chaos-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  const out = console.log;
  out(
    `bench chaos${short ? " --short" : ""}${shardKill ? " --shard-kill" : ""}: ${durationS} s, ${rate} ops/s, ${rounds} kill round(s), seed ${seed}`,
  );
  printMachineFacts();

  let failed = true;
  try {
    const receiver = await startReceiver({ random: seeded(seed + 1) });
    onCleanup(() => receiver.close());
    const { startCluster } = await clusterLib();
    const cluster = await startCluster({
      gateways: 2,
      sessions: 2,
      workers: 2,
      redisShards: shardKill ? 2 : 1,
      dir,
      log,
      env: {
        // Retries within the run: 2 s, 4 s, 8 s… instead of 10 s, 1 min, 5 min (NODE_ENV=test).
        WEBHOOK_RETRY_SCHEDULE_OVERRIDE_MS: WEBHOOK_RETRIES_MS.join(","),
        DISPATCH_CLAIM_IDLE_MS: "5000",
        QUEUE_RECONCILE_MS: "5000",
        LEASE_TTL_MS: "3000",
      },
    });
    onCleanup(() => cluster.stop());
    const world = await setup(cluster, { instances: n, contacts: 3, hookUrl: receiver.url, log });
    const owners = sampleOwners({
      redisUrl: cluster.redisUrl,
      prefix: cluster.prefix,
      instanceIds: world.instances.map((i) => i.id),
    });
    const schedule = shardKill
      ? [{ at: Math.round(durationS * 350), role: "redis", name: "redis-1", pauseMs: 6_000 }]
      : plan({ durationMs: durationS * 1000, rounds, procs: cluster.procs, random: seeded(seed) });
    const killsSent = [];
    const killing = runKills({ cluster, schedule, log, onKill: (k) => killsSent.push(k) });
    const [record, kills] = await Promise.all([
      runLoad({ cluster, world, durationMs: durationS * 1000, rate, log, alsoUntil: killing }),
      killing,
    ]);
    log("load done: healing the receiver, letting the queue and webhook retries finish");
    receiver.heal();
    const queueItems = await queueFinals(
      cluster.entryUrl,
      world,
      record.queued.filter((q) => q.status === 202),
    );
    log(
      `queue: ${queueItems.pendingAtStart} items pending when the load stopped, drained in ${(queueItems.drainMs / 1000).toFixed(0)} s (bound ${(queueItems.boundMs / 1000).toFixed(0)} s)`,
    );
    // Webhook retries after the heal: a delivery that failed just before it waits at most the
    // schedule's last step, then its attempt (10 s timeout) succeeds; 30 s of slack on top.
    const events = await eventsSettled(cluster.entryUrl, world, receiver, Math.max(...WEBHOOK_RETRIES_MS) + 40_000);
    log("events settled; reconciling");
    const ownerStats = await owners.stop();
    const r = await reconcile({ cluster, world, record, receiver, events, queueItems, owners: ownerStats });

    out("");
    out(
      `sends: ${r.sends.total} immediate (${r.sends.ok} 2xx, ${r.sends.notOk} other, ${r.sends.retried} retried); queued ${r.queue.total} (${r.queue.accepted} accepted: ${r.queue.sent} sent, ${r.queue.failed} failed/expired, ${r.queue.stuck} not final); inbound ${r.inbound.total} (${r.inbound.delivered} delivered)`,
    );
    out(
      `refused, not lost (final 4xx, never on the phone): immediate ${JSON.stringify(r.sends.refused)}, queued ${JSON.stringify(r.queue.refused)}; no final answer ${r.sends.unanswered}`,
    );
    out(
      `queue drain: ${queueItems.pendingAtStart} pending when the load stopped, drain ended after ${(queueItems.drainMs / 1000).toFixed(0)} s (bound ${(queueItems.boundMs / 1000).toFixed(0)} s)`,
    );
    out(
      `events: ${r.events.listed} listed, ${r.events.reached} reached the receiver; ${r.events.deliveries} deliveries answered 2xx (${r.events.duplicateDeliveries} duplicates); receiver ${receiver.stats.requests} requests, ${receiver.stats.failed} answered 500, ${receiver.stats.hung} hung`,
    );
    out(`kills: ${kills.length} (${kills.map((k) => `${k.name} @${(k.at / 1000).toFixed(0)}s`).join(", ")})`);
    out(
      `owners: owner-less stretches ${r.owners.stretches}, p95 ${Number.isFinite(r.owners.ownerlessP95) ? r.owners.ownerlessP95.toFixed(1) : "0"} s, max ${r.owners.ownerlessMax.toFixed(1)} s, left without an owner ${r.owners.open}; overlapping connections ${r.owners.overlaps}, device conflicts ${r.owners.conflicts}; Redis unreadable ${ownerStats.unknownS.toFixed(1)} s`,
    );
    out(`lost: ${r.lost}; duplicated: ${r.duplicated}`);
    const answers = accountAnswers(record, killsSent);
    out(`answers seen by the client (every try, immediate and queued): ${JSON.stringify(answers.byCode)}`);
    out(
      `final 4xx other than 429 during or after a kill (a retry would have delivered; spec 7): ` +
        (answers.violations.total ? JSON.stringify(answers.violations.byCode) : "none"),
    );
    for (const e of answers.violations.examples) out(`  ✗ ${e}`);
    if (answers.beforeKills.total) {
      out(`  note: final 4xx before the first kill (not counted above): ${JSON.stringify(answers.beforeKills.byCode)}`);
    }
    for (const s of record.sends.filter((x) => x.status < 200 || x.status > 299).slice(0, 10)) {
      out(`  · send ${s.tag} ended ${s.status || "unanswered"} after ${s.tries.join(", ")}`);
    }
    for (const p of r.problems.slice(0, 40)) out(`  ✗ ${p}`);
    if (r.problems.length > 40) out(`  … ${r.problems.length - 40} more`);
    const shardFailures = shardKill ? shardOutage(record, killsSent[0], kills[0], out) : 0;
    failed =
      r.lost > 0 || r.duplicated > 0 || r.problems.length > 0 || answers.violations.total > 0 || shardFailures > 0;
    out(failed ? "chaos: FAILED" : "chaos: ok");
    log("reconciled; stopping the cluster");
    if (process.env.CHAOS_CLUSTER !== "shared") await cluster.stop({ hard: true });
  } finally {
    await runCleanups();
    if (!failed && !process.env.CHAOS_KEEP) rmSync(dir, { recursive: true, force: true });
    else log(`process logs kept in ${dir}`);
  }
  log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return failed ? 1 : 0;
}

// `node bench/chaos.mjs --short` (the Makefile) as well as `pnpm bench chaos`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exit(await chaos(process.argv.slice(2)));
}
