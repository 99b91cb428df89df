// The chaos bench's kill schedule: roles in turn (gateway, session pod, worker, Temporal, Redis),
// each SIGKILLed at a random moment of its slot and brought back after a short pause (Temporal
// and Redis restart from their files: the dev server's SQLite, Redis's AOF).
import { sleep } from "../lib.mjs";

export const ROLES = ["gateway", "session", "worker", "temporal", "redis"];

/**
 * Plans `rounds` rounds of one kill per role over `durationMs` (evenly sized slots, a random
 * moment in each, leaving the slot's last 40 % for the restart and recovery).
 */
export function plan({ durationMs, rounds, procs, random = Math.random }) {
  const slots = ROLES.length * rounds;
  const slotMs = durationMs / slots;
  const out = [];
  for (let r = 0; r < rounds; r++) {
    ROLES.forEach((role, i) => {
      // Redis: the control shard (with shards, `pnpm bench chaos --shard-kill` kills the others).
      const candidates = procs.filter((p) => p.role === role && (role !== "redis" || p.name === "redis"));
      const target = candidates[Math.floor(random() * candidates.length)];
      const at = (r * ROLES.length + i) * slotMs + random() * slotMs * 0.6;
      // Redis stays down longer than a lease (3 s): pods must fence themselves meanwhile.
      const pauseMs = role === "redis" ? 4_000 + random() * 2_000 : 500 + random() * 2_000;
      out.push({ at: Math.round(at), role, name: target.name, pauseMs: Math.round(pauseMs) });
    });
  }
  return out;
}

/**
 * Runs the plan from now; answers what was done: [{name, role, at, downMs}]. `onKill({name,
 * role, time})` is called as each SIGKILL is sent (epoch ms), while the load still runs.
 */
export async function runKills({ cluster, schedule, log, onKill = () => {} }) {
  const start = Date.now();
  const done = [];
  for (const k of schedule) {
    await sleep(Math.max(0, start + k.at - Date.now()));
    const t = Date.now();
    log(`kill -9 ${k.name} at ${((t - start) / 1000).toFixed(1)} s`);
    onKill({ name: k.name, role: k.role, time: t });
    await cluster.kill(k.name, "SIGKILL");
    await sleep(k.pauseMs);
    if (k.role === "redis") await cluster.restartRedis(k.name);
    else if (k.role === "temporal") await cluster.restartTemporal();
    else await cluster.restart(k.name);
    const downMs = Date.now() - t;
    log(`${k.name} back after ${(downMs / 1000).toFixed(1)} s`);
    done.push({ name: k.name, role: k.role, at: t - start, downMs });
  }
  return done;
}
