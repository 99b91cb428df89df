import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { Sealer } from "./sealed.ts";

/** Raised when a write carries an epoch that is no longer the instance's lease: stop acting. */
export class StaleLeaseError extends Error {
  constructor(instanceId: string) {
    super(`lease of ${instanceId} is no longer ours`);
    this.name = "StaleLeaseError";
  }
}

const FENCE = `
local v = redis.call('GET', KEYS[1])
if not v or string.match(v, '|(%d+)$') ~= ARGV[1] then return redis.error_reply('STALE') end
`;

/** KEYS: fence (the lease, or its copy), creds. ARGV: epoch, sealed creds. */
const WRITE_CREDS = `${FENCE}
redis.call('SET', KEYS[2], ARGV[2])
return 1`;

/** KEYS: fence, types set, hashes... ARGV: epoch, JSON [[keyIndex, type, field, sealed|false], ...]. */
const SET_KEYS = `${FENCE}
local ops = cjson.decode(ARGV[2])
for _, op in ipairs(ops) do
  local key = KEYS[op[1]]
  if op[4] then
    redis.call('HSET', key, op[3], op[4])
    redis.call('SADD', KEYS[2], op[2])
  else
    redis.call('HDEL', key, op[3])
  end
end
return 1`;

/** KEYS: fence, types set, creds. ARGV: epoch, prefix of the key hashes. */
const CLEAR = `${FENCE}
for _, t in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('DEL', ARGV[2] .. t) end
redis.call('DEL', KEYS[2], KEYS[3])
return 1`;

/**
 * One instance's network credentials and signal keys, in Redis only, sealed with AES-256-GCM.
 * Every write is fenced by the lease epoch its owner holds and happens atomically (one script),
 * so a pod that lost its lease cannot write, and a commit is never half applied.
 * Values are opaque strings (the provider serializes).
 */
export class AuthStateStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly sealer: Sealer,
    readonly instanceId: string,
    readonly epoch: number,
    /** The lease, or on a sharded deployment its copy on the instance's shard (infra/leases.ts `fenceKey`). */
    private readonly fenceKey = k.lease(instanceId),
  ) {}

  async readCreds(): Promise<string | null> {
    const v = await this.redis.get(this.k.authCreds(this.instanceId));
    return v === null ? null : this.sealer.open(v);
  }

  async writeCreds(value: string): Promise<void> {
    await this.fenced(WRITE_CREDS, [this.k.authCreds(this.instanceId)], [this.sealer.seal(value)]);
  }

  async getKeys(type: string, ids: string[]): Promise<Record<string, string>> {
    if (ids.length === 0) return {};
    const values = await this.redis.hmget(this.k.authKeys(this.instanceId, type), ...ids);
    const out: Record<string, string> = {};
    ids.forEach((id, i) => {
      const v = values[i];
      if (v != null) out[id] = this.sealer.open(v);
    });
    return out;
  }

  /** `null` deletes. All types in one atomic commit. */
  async setKeys(data: Record<string, Record<string, string | null | undefined>>): Promise<void> {
    const types = Object.keys(data);
    if (types.length === 0) return;
    const ops: [number, string, string, string | false][] = [];
    types.forEach((type, i) => {
      for (const [id, value] of Object.entries(data[type] ?? {})) {
        ops.push([i + 3, type, id, value == null ? false : this.sealer.seal(value)]);
      }
    });
    if (ops.length === 0) return;
    await this.fenced(
      SET_KEYS,
      [this.k.authKeyTypes(this.instanceId), ...types.map((t) => this.k.authKeys(this.instanceId, t))],
      [JSON.stringify(ops)],
    );
  }

  /** Forgets the pairing: creds and every key type. */
  async clear(): Promise<void> {
    await this.fenced(
      CLEAR,
      [this.k.authKeyTypes(this.instanceId), this.k.authCreds(this.instanceId)],
      [this.k.authKeys(this.instanceId, "")],
    );
  }

  private async fenced(script: string, keys: string[], args: string[]): Promise<void> {
    try {
      await this.redis.eval(script, keys.length + 1, this.fenceKey, ...keys, String(this.epoch), ...args);
    } catch (err) {
      if (err instanceof Error && err.message.includes("STALE")) throw new StaleLeaseError(this.instanceId);
      throw err;
    }
  }
}

/** Wipes an instance's auth state when no pod holds it (logout of a stopped instance, deletion). */
export async function clearAuthStateUnowned(redis: Redis, k: Keys, instanceId: string): Promise<void> {
  const types = await redis.smembers(k.authKeyTypes(instanceId));
  await redis.del(
    k.authCreds(instanceId),
    k.authKeyTypes(instanceId),
    k.authFence(instanceId),
    ...types.map((t) => k.authKeys(instanceId, t)),
  );
}
