import { hash } from "node:crypto";
import type { Redis, Result } from "ioredis";
import type { Keys } from "./keys.ts";

/**
 * Instance ownership. A lease is `lease:<instanceId>` = `<podId>|<epoch>` with a TTL that its
 * pod renews; the epoch comes from a per-instance counter, so every acquisition has a number
 * no earlier owner had. Writes of an instance's auth state and status carry the epoch and are
 * refused when it is no longer the lease's (see auth/auth-state.ts): two pods can never both act.
 */
// Not re-entrant on purpose: a lease that exists is never handed out again, not even to the pod
// named in it (that pod may be releasing it, or be an earlier process with the same POD_ID).
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. epoch, 'PX', ARGV[2])
return epoch`;

/** Renews many leases at once; answers 1/0 per lease in order. */
const RENEW = `
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    gwLeaseAcquire(lease: string, counter: string, pod: string, ttlMs: number): Result<number, Context>;
    gwLeaseRelease(lease: string, value: string): Result<number, Context>;
  }
}

export interface Owner {
  podId: string;
  epoch: number;
}

export interface PodInfo {
  podId: string;
  url: string;
  capacity: number;
  /** Instances the pod holds (as of its last heartbeat). */
  load: number;
}

export class Leases {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    readonly ttlMs: number,
    /**
     * Leases live on the control shard; on a sharded deployment each also has a copy on the
     * instance's shard (`authFence`), set at acquisition and removed at release, which fences the
     * writes made there (auth/auth-state.ts): a script runs on one Redis.
     */
    private readonly sharded = false,
  ) {
    redis.defineCommand("gwLeaseAcquire", { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand("gwLeaseRelease", { numberOfKeys: 1, lua: RELEASE });
  }

  /** The epoch of a new lease, or null when the instance is leased already. */
  async acquire(instanceId: string, podId: string): Promise<number | null> {
    const epoch = await this.redis.gwLeaseAcquire(
      this.k.lease(instanceId),
      this.k.leaseEpoch(instanceId),
      podId,
      this.ttlMs,
    );
    if (epoch <= 0) return null;
    if (this.sharded) {
      // The new owner's fence before it reads anything there: an earlier owner's late writes fail.
      await this.redis.set(this.k.authFence(instanceId), `${podId}|${epoch}`).catch(async (err) => {
        await this.release(instanceId, podId, epoch).catch(() => {});
        throw err;
      });
    }
    return epoch;
  }

  /** The key whose `<pod>|<epoch>` fences writes to the instance's auth state (its own shard's). */
  fenceKey(instanceId: string): string {
    return this.sharded ? this.k.authFence(instanceId) : this.k.lease(instanceId);
  }

  /** Renews the given leases; answers the instance ids whose lease is no longer ours. */
  async renew(podId: string, held: Map<string, number>): Promise<string[]> {
    if (held.size === 0) return [];
    const ids = [...held.keys()];
    const out = (await this.redis.eval(
      RENEW,
      ids.length,
      ...ids.map((id) => this.k.lease(id)),
      this.ttlMs,
      ...ids.map((id) => `${podId}|${held.get(id)}`),
    )) as number[];
    return ids.filter((_, i) => out[i] !== 1);
  }

  async release(instanceId: string, podId: string, epoch: number): Promise<void> {
    await this.redis.gwLeaseRelease(this.k.lease(instanceId), `${podId}|${epoch}`);
    if (this.sharded) await this.redis.gwLeaseRelease(this.k.authFence(instanceId), `${podId}|${epoch}`);
  }

  async owner(instanceId: string): Promise<Owner | null> {
    const v = await this.redis.get(this.k.lease(instanceId));
    const m = v ? /^(.*)\|(\d+)$/.exec(v) : null;
    return m ? { podId: m[1]!, epoch: Number(m[2]) } : null;
  }

  /** Session pods announce themselves; a pod is live while its heartbeat is fresh. */
  async heartbeat(pod: PodInfo): Promise<void> {
    await this.redis
      .multi()
      .zadd(this.k.pods, Date.now() + this.ttlMs, pod.podId)
      .hset(this.k.pod(pod.podId), { url: pod.url, capacity: String(pod.capacity), load: String(pod.load) })
      .pexpire(this.k.pod(pod.podId), this.ttlMs * 4)
      .exec();
  }

  async leave(podId: string): Promise<void> {
    await this.redis.multi().zrem(this.k.pods, podId).del(this.k.pod(podId)).exec();
  }

  async livePods(): Promise<PodInfo[]> {
    const now = Date.now();
    await this.redis.zremrangebyscore(this.k.pods, 0, now);
    const ids = await this.redis.zrangebyscore(this.k.pods, now, "+inf");
    const infos = await Promise.all(ids.map((id) => this.redis.hgetall(this.k.pod(id))));
    return ids.flatMap((podId, i) => {
      const h = infos[i];
      return h?.url ? [{ podId, url: h.url, capacity: Number(h.capacity ?? 0), load: Number(h.load ?? 0) }] : [];
    });
  }

  async podUrl(podId: string): Promise<string | null> {
    return this.redis.hget(this.k.pod(podId), "url");
  }
}

/**
 * Each (pod, instance)'s rendezvous weight, kept: a pod's reconcile ranks every running instance
 * every tick (LEASE_TTL_MS / 3), and hashing them anew was ~3 % of the pod's CPU in
 * `pnpm bench send` (1,000 instances). A pure function of its key, so keeping it changes nothing;
 * bounded by clearing it whole.
 */
const weights = new Map<string, number>();
const MAX_WEIGHTS = 200_000;

function weight(podId: string, instanceId: string): number {
  const key = `${podId}\0${instanceId}`;
  let w = weights.get(key);
  if (w === undefined) {
    w = hash("sha1", key, "buffer").readUInt32BE(0);
    if (weights.size >= MAX_WEIGHTS) weights.clear();
    weights.set(key, w);
  }
  return w;
}

/** Rendezvous (highest random weight) ranking of pods for an instance: stable as pods come and go. */
export function rankPods<T extends { podId: string }>(instanceId: string, pods: T[]): T[] {
  if (pods.length < 2) return pods.slice();
  return pods
    .map((p) => ({ p, w: weight(p.podId, instanceId) }))
    .sort((a, b) => b.w - a.w || (a.p.podId < b.p.podId ? -1 : 1))
    .map(({ p }) => p);
}
