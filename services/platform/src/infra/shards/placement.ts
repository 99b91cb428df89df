import { BASE32_ALPHABET, randomBase32 } from "../ids.ts";

/**
 * An instance's home shard is written into its id when it is created on a sharded deployment:
 * `i` + two base32 characters (the shard, 0–1023) + 24 random ones (120 bits, as before). Every
 * replica then knows where an instance lives without asking anyone, also in the first
 * milliseconds after another replica created it. Ids of any other length (made before sharding,
 * or on a deployment of one shard: `i` + 24) live on shard 0, which is the Redis they were
 * written to. A moved instance is the exception the directory records (directory.ts).
 */
const SHARDED_ID_LENGTH = 27;
export const MAX_SHARDS = 32 * 32;

export function newShardedInstanceId(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARDS) throw new Error(`no shard ${shard}`);
  return `i${BASE32_ALPHABET[shard >> 5]}${BASE32_ALPHABET[shard & 31]}${randomBase32(24)}`;
}

/** The shard an instance was created on (0 for ids without one). */
export function homeShardOf(instanceId: string): number {
  if (instanceId.length !== SHARDED_ID_LENGTH) return 0;
  const hi = BASE32_ALPHABET.indexOf(instanceId[1] ?? "");
  const lo = BASE32_ALPHABET.indexOf(instanceId[2] ?? "");
  return hi < 0 || lo < 0 ? 0 : hi * 32 + lo;
}
