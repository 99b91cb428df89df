import type { Platform } from "@gw/platform";
import { Gauge, type Registry } from "prom-client";
import { DISPATCH_GROUP } from "./dispatcher.ts";

/** Keys asked per pipeline: bounds one round trip's size however many instances there are. */
const CHUNK = 1_000;

/** What the fleet looks like in Redis, read once per scrape by {@link registerFleetMetrics}. */
export interface FleetState {
  /** Instances that should be connected (the running set). */
  running: number;
  /** Of those, how many no session pod holds a lease on. */
  withoutOwner: number;
  /** Send-queue items still waiting (queued or sending), over every instance. */
  queuePending: number;
  /** Event-stream entries the dispatchers have not finished: not yet read plus read and not acknowledged. */
  eventBacklog: number;
  /** Session pods with a fresh heartbeat, the connections they may hold, and those they hold. */
  sessionPods: number;
  sessionCapacity: number;
  sessionHeld: number;
  /** Per Redis shard (0 = control): whether it answered. A shard down leaves its queue and backlog out. */
  shardsUp: boolean[];
}

/** Whether a shard answers a PING within a second (a shard down must not stall the scrape). */
function answers(redis: Platform["redis"]): Promise<boolean> {
  if (redis.status !== "ready") return Promise.resolve(false);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(false), 1_000);
  });
  const ping = redis.ping().then(
    (p) => p === "PONG",
    () => false,
  );
  return Promise.race([ping, late]).finally(() => clearTimeout(timer));
}

async function countMissing(platform: Platform, ids: string[]): Promise<number> {
  let missing = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const pipe = platform.redis.pipeline();
    for (const id of ids.slice(i, i + CHUNK)) pipe.exists(platform.keys.lease(id));
    for (const [err, n] of (await pipe.exec()) ?? []) {
      if (err) throw err;
      if (n === 0) missing++;
    }
  }
  return missing;
}

async function sumPending(platform: Platform, ids: string[]): Promise<number> {
  let total = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const pipe = platform.redis.pipeline();
    for (const id of ids.slice(i, i + CHUNK)) pipe.zcard(platform.keys.queuePending(id));
    for (const [err, n] of (await pipe.exec()) ?? []) {
      if (err) throw err;
      total += Number(n);
    }
  }
  return total;
}

/** XINFO GROUPS answers a flat [name, value, …] list per group. */
function groupInfo(raw: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const list = Array.isArray(raw) ? raw : [];
  for (let i = 0; i + 1 < list.length; i += 2) out.set(String(list[i]), list[i + 1]);
  return out;
}

async function eventBacklog(platform: Platform, up: boolean[]): Promise<number> {
  let total = 0;
  // Every Redis shard has its own event streams (infra/shards/), `EVENT_SHARDS` of them each.
  for (const [s, redis] of platform.shards.clients.entries()) {
    if (up[s]) total += await shardBacklog(platform, redis);
  }
  return total;
}

async function shardBacklog(platform: Platform, redis: Platform["redis"]): Promise<number> {
  let total = 0;
  for (let shard = 0; shard < platform.events.shards; shard++) {
    const groups = (await redis.xinfo("GROUPS", platform.keys.events(shard)).catch((err: Error) => {
      // A shard nobody has written to yet (the dispatcher creates it with MKSTREAM).
      if (/no such key/i.test(err.message)) return [];
      throw err;
    })) as unknown[];
    const info = groups.map(groupInfo).find((g) => g.get("name") === DISPATCH_GROUP);
    if (!info) continue;
    // `lag` (Redis >= 7) is null when Redis cannot tell (entries deleted in between): then the
    // unread part is left out and only what is read and unacknowledged counts.
    const lag = info.get("lag");
    total += Number(info.get("pending") ?? 0) + (typeof lag === "number" ? lag : 0);
  }
  return total;
}

/**
 * The live session pods' capacity and load, as their heartbeats left them (read only: unlike
 * Leases.livePods, expired heartbeats are skipped, not removed).
 */
async function sessionPods(platform: Platform): Promise<{ pods: number; capacity: number; held: number }> {
  const ids = await platform.redis.zrangebyscore(platform.keys.pods, Date.now(), "+inf");
  const pipe = platform.redis.pipeline();
  for (const id of ids) pipe.hmget(platform.keys.pod(id), "capacity", "load");
  let capacity = 0;
  let held = 0;
  let pods = 0;
  for (const [err, fields] of ids.length ? ((await pipe.exec()) ?? []) : []) {
    if (err) throw err;
    const [cap, load] = fields as (string | null)[];
    if (cap === null) continue; // heartbeat hash already expired
    pods++;
    capacity += Number(cap);
    held += Number(load ?? 0);
  }
  return { pods, capacity, held };
}

/** One read of the fleet's state in Redis (a few pipelined round trips). */
export async function readFleetState(platform: Platform): Promise<FleetState> {
  const shardsUp = await Promise.all(platform.shards.clients.map(answers));
  // The control shard down: nothing can be read (the scrape reports NaN, see below).
  if (!shardsUp[0]) throw new Error("the control shard does not answer");
  const [running, active] = await Promise.all([
    platform.redis.smembers(platform.keys.running),
    Promise.all(platform.shards.clients.map((c, s) => (shardsUp[s] ? c.smembers(platform.keys.queueActive) : []))).then(
      (sets) => sets.flat(),
    ),
  ]);
  const [withoutOwner, queuePending, backlog, session] = await Promise.all([
    countMissing(platform, running),
    sumPending(platform, active),
    eventBacklog(platform, shardsUp),
    sessionPods(platform),
  ]);
  return {
    running: running.length,
    withoutOwner,
    queuePending,
    eventBacklog: backlog,
    sessionPods: session.pods,
    sessionCapacity: session.capacity,
    sessionHeld: session.held,
    shardsUp,
  };
}

/**
 * Gauges of the whole fleet, read from Redis when Prometheus scrapes (no timer of their own).
 * Every worker replica reports the same values: alert on max() over them. A scrape that cannot
 * read Redis reports NaN (no comparison holds on it) rather than zeros, and the rest of /metrics
 * is still served.
 */
export function registerFleetMetrics(registry: Registry, platform: Platform, maxAgeMs = 5_000) {
  let last: { at: number; state: Promise<FleetState> } | undefined;
  // The gauges collect together: one Redis read serves a scrape, however many ask.
  const state = () => {
    if (!last || Date.now() - last.at > maxAgeMs) last = { at: Date.now(), state: readFleetState(platform) };
    const current = last;
    current.state.catch(() => {
      if (last === current) last = undefined;
    });
    return current.state;
  };
  const gauge = (name: string, help: string, pick: (s: FleetState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(await state().then(pick, () => Number.NaN));
      },
    });
  return {
    running: gauge(
      "gateway_instances_running",
      "Instances that should be connected (started, not stopped)",
      (s) => s.running,
    ),
    withoutOwner: gauge(
      "gateway_instances_without_owner",
      "Running instances that no session pod holds a lease on (briefly non-zero while one starts or moves)",
      (s) => s.withoutOwner,
    ),
    queuePending: gauge(
      "gateway_send_queue_pending_items",
      "Send-queue items still waiting (queued or sending), over every instance, paused queues included",
      (s) => s.queuePending,
    ),
    eventBacklog: gauge(
      "gateway_event_backlog_entries",
      "Event-stream entries the webhook dispatchers have not finished (unread plus unacknowledged), all shards",
      (s) => s.eventBacklog,
    ),
    sessionPods: gauge("gateway_session_pods", "Session pods with a fresh heartbeat", (s) => s.sessionPods),
    sessionCapacity: gauge(
      "gateway_session_capacity_connections",
      "Connections the live session pods may hold (sum of their SESSION_CAPACITY)",
      (s) => s.sessionCapacity,
    ),
    sessionHeld: gauge(
      "gateway_session_held_connections",
      "Connections the live session pods hold (as of their last heartbeat)",
      (s) => s.sessionHeld,
    ),
    shardUp: new Gauge({
      name: "gateway_redis_shard_up",
      help: "Whether each Redis shard answers (shard 0 is the control shard); a shard down answers 503 for its instances",
      labelNames: ["shard"],
      registers: [registry],
      async collect() {
        // The fleet unreadable (the control shard down): each shard asked on its own.
        const up = await state().then(
          (s) => s.shardsUp,
          () => Promise.all(platform.shards.clients.map(answers)),
        );
        for (const [shard, ok] of up.entries()) this.set({ shard: String(shard) }, ok ? 1 : 0);
      },
    }),
  };
}
