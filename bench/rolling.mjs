// pnpm bench rolling — `kubectl rollout restart` of the session StatefulSet on the local cluster
// (scripts/cluster/lib.mjs: the chart's release as processes, its default LEASE_TTL_MS 3000 and
// session SHUTDOWN_TIMEOUT_MS 25000), under a light send load.
//
// Setup (not timed): a cluster (2 gateways, BENCH_SESSIONS session pods, 2 workers), BENCH_INSTANCES
// sim instances created through the entry, paired on simnet, WORKING.
// Then, like the StatefulSet controller with the RollingUpdate strategy: SIGTERM the highest
// ordinal, wait until it exited, start it again (same POD_ID), wait until its readiness probe
// answers, next ordinal down to 0; then BENCH_SETTLE_S for the instances to move back to the pods
// the rendezvous hashing ranks first (a pod takes its instances back after two lease periods).
//
// Measured per instance: time without an owner, from the lease keys (`<prefix>lease:<id>`) sampled
// with one MGET every BENCH_SAMPLE_MS (25). Why the keys and not session.status events: the lease
// is what the gateway routes by (no lease: a send waits up to OWNER_WAIT_MS, then 503), and a
// graceful handover keeps the status (WORKING stays WORKING; no event marks it). A gap is the time
// from the first sample without a lease to the first with one (resolution: the sample period).
// Sends: BENCH_RATE (10/s) POST /v1/instances/{id}/messages/text through the entry, round robin
// over the instances, each with a 10 s timeout; failed = not 2xx or no answer.
// Target: p95 of the per-instance time without an owner <= 1 s (exit 1 when missed).
import { join } from "node:path";
import { createPairedInstance, leaseOwners, Redis } from "../scripts/cluster/instances.mjs";
import { startCluster } from "../scripts/cluster/lib.mjs";
import { intEnv, log, percentile, ROOT, sleep } from "./lib.mjs";

export const description =
  "rolling restart of the session pods on the local cluster: time without a lease owner per instance (p95 <= 1 s), failed sends";

const CONTACT = "15550000001";
const TARGET_P95_MS = 1000;

async function pool(items, concurrency, fn) {
  const out = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

const fmt = (ms) => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : "-");

export default async function rolling() {
  const instances = intEnv("BENCH_INSTANCES", 30);
  const sessions = intEnv("BENCH_SESSIONS", 3);
  const rate = intEnv("BENCH_RATE", 10, { min: 0 });
  const sampleMs = intEnv("BENCH_SAMPLE_MS", 25);
  const settleS = intEnv("BENCH_SETTLE_S", 15, { min: 0 });
  const dir = join(ROOT, ".local", "cluster", "bench-rolling");

  const c = await startCluster({ gateways: 2, sessions, workers: 2, dir, log });
  const redis = new Redis(c.redisUrl, { connectionName: "bench-rolling" });
  let stopLoad = false;
  try {
    // --- setup ----------------------------------------------------------------------------------
    const simHeaders = { authorization: `Bearer ${c.adminToken}`, "content-type": "application/json" };
    const r = await fetch(`${c.simnetUrl}/simnet/phones`, {
      method: "POST",
      headers: simHeaders,
      body: JSON.stringify({ phone: CONTACT, pushName: "Bench Contact" }),
    });
    if (!r.ok) throw new Error(`POST /simnet/phones: ${r.status} ${await r.text()}`);
    log(`setup: ${instances} instances, created through the entry and paired on simnet`);
    const insts = await pool(
      Array.from({ length: instances }, (_, i) => i),
      4,
      (i) => createPairedInstance(c, { name: `rolling-${i}`, phone: `55119888${String(i).padStart(5, "0")}` }),
    );
    const ids = insts.map((i) => i.id);
    for (;;) {
      const owners = await leaseOwners(redis, c.prefix, ids);
      if ([...owners.values()].every(Boolean)) break;
      await sleep(100);
    }

    // --- sampler: lease owners ------------------------------------------------------------------
    const gaps = new Map(ids.map((id) => [id, []])); // [{ from, to }]
    const openGap = new Map();
    const moves = new Map(ids.map((id) => [id, 0]));
    const lastOwner = await leaseOwners(redis, c.prefix, ids);
    let sampling = true;
    let samples = 0;
    const sampler = (async () => {
      while (sampling) {
        const t = performance.now();
        const owners = await leaseOwners(redis, c.prefix, ids);
        samples++;
        for (const [id, owner] of owners) {
          if (!owner && !openGap.has(id)) openGap.set(id, t);
          if (owner && openGap.has(id)) {
            gaps.get(id).push({ from: openGap.get(id), to: t });
            openGap.delete(id);
          }
          if (owner && owner !== lastOwner.get(id)) {
            moves.set(id, moves.get(id) + 1);
            lastOwner.set(id, owner);
          }
        }
        await sleep(Math.max(0, sampleMs - (performance.now() - t)));
      }
    })();

    // --- send load ------------------------------------------------------------------------------
    const sends = { ok: 0, failed: 0, byStatus: new Map() };
    const inFlight = new Set();
    const load = (async () => {
      if (rate === 0) return;
      let n = 0;
      while (!stopLoad) {
        const inst = insts[n++ % insts.length];
        const p = fetch(`${c.entryUrl}/v1/instances/${inst.id}/messages/text`, {
          method: "POST",
          headers: { "x-instance-token": inst.token, "content-type": "application/json" },
          body: JSON.stringify({ chatId: `${CONTACT}@c.us`, text: `rolling ${n}` }),
          signal: AbortSignal.timeout(10_000),
        })
          .then(async (res) => {
            const text = await res.text();
            if (res.ok) sends.ok++;
            else {
              sends.failed++;
              let code = "";
              try {
                code = ` ${JSON.parse(text)?.error?.code ?? ""}`;
              } catch {}
              const k = `${res.status}${code}`;
              sends.byStatus.set(k, (sends.byStatus.get(k) ?? 0) + 1);
            }
          })
          .catch((err) => {
            sends.failed++;
            const k = err?.name ?? "error";
            sends.byStatus.set(k, (sends.byStatus.get(k) ?? 0) + 1);
          })
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
        await sleep(1000 / rate);
      }
    })();

    // --- the rolling restart --------------------------------------------------------------------
    await sleep(2000);
    const t0 = performance.now();
    const steps = [];
    for (let i = sessions - 1; i >= 0; i--) {
      const name = `session-${i}`;
      const s = performance.now();
      await c.kill(name, "SIGTERM");
      const exited = performance.now();
      await c.restart(name);
      const readyAt = performance.now();
      steps.push({ name, stopMs: exited - s, startMs: readyAt - exited });
      log(`${name}: exited ${fmt(exited - s)} after SIGTERM, ready ${fmt(readyAt - exited)} after its start`);
    }
    const rolloutMs = performance.now() - t0;
    log(`rollout done in ${fmt(rolloutMs)}; settling ${settleS} s`);
    await sleep(settleS * 1000);
    stopLoad = true;
    await load;
    await Promise.allSettled([...inFlight]);
    sampling = false;
    await sampler;
    const end = performance.now();
    for (const [id, from] of openGap) gaps.get(id).push({ from, to: end, open: true });

    // --- report ---------------------------------------------------------------------------------
    const all = [...gaps.values()].flat().map((g) => g.to - g.from);
    const perInstance = ids.map((id) => gaps.get(id).reduce((sum, g) => sum + (g.to - g.from), 0));
    const sorted = (xs) => [...xs].sort((a, b) => a - b);
    const pi = sorted(perInstance);
    const gs = sorted(all);
    const p95 = percentile(pi, 95);
    const out = console.log;
    out(`bench rolling: ${sessions} session pods restarted one at a time (SIGTERM, back and ready, next)`);
    out(
      `  ${instances} instances, ${rate} sends/s through the entry, lease keys sampled every ${sampleMs} ms (${samples} samples)`,
    );
    for (const s of steps) out(`  ${s.name}: exit ${fmt(s.stopMs)} after SIGTERM, ready ${fmt(s.startMs)} after start`);
    out(`  rollout ${fmt(rolloutMs)}, then ${settleS} s settling`);
    out(
      `  owner changes: ${[...moves.values()].reduce((a, b) => a + b, 0)} (per instance max ${Math.max(...moves.values())})`,
    );
    out(
      `  time without an owner per instance: p50 ${fmt(percentile(pi, 50))}  p95 ${fmt(p95)}  max ${fmt(pi.at(-1))}` +
        `   (target p95 <= ${TARGET_P95_MS} ms)`,
    );
    out(
      `  gaps: ${gs.length} (${[...gaps.values()].flat().filter((g) => g.open).length} still open at the end); ` +
        `each p50 ${fmt(percentile(gs, 50))}  p95 ${fmt(percentile(gs, 95))}  max ${fmt(gs.at(-1))}`,
    );
    const statuses = [...sends.byStatus].map(([k, v]) => `${k}: ${v}`).join(", ");
    out(`  sends: ${sends.ok} ok, ${sends.failed} failed${statuses ? ` (${statuses})` : ""}`);
    const pass = p95 <= TARGET_P95_MS;
    out(`  verdict: ${pass ? "PASS" : "MISS"}`);
    return pass ? 0 : 1;
  } finally {
    stopLoad = true;
    redis.disconnect();
    await c.stop();
  }
}
