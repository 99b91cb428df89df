import { invalid } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Invalidations } from "../invalidations.ts";
import type { Keys } from "../keys.ts";
import type { MovePhase } from "./directory.ts";
import type { RedisShards } from "./index.ts";
import { homeShardOf } from "./placement.ts";
import { InstanceMovingError } from "./routed.ts";

export interface MoveDeps {
  shards: RedisShards;
  invalidations: Invalidations;
  keys: Keys;
}

export interface MoveOptions {
  /** How long session pods get to let the instance go (its lease gone). */
  drainTimeoutMs?: number;
  /** After 503s start everywhere, how long commands that passed the check before get to finish. */
  graceMs?: number;
}

export interface MoveResult {
  instanceId: string;
  from: number;
  to: number;
  /** Keys copied (and removed from the old shard). */
  keys: number;
  /** Milliseconds the instance answered 503 (the copy phase). */
  blockedMs: number;
}

const SCAN_COUNT = 1_000;
const BATCH = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Moves an instance's keys to another shard (rebalancing; docs/architecture.md "Moving an
 * instance"). Nothing is lost: (1) `drain`: session pods let the instance go, writing what they
 * hold, while requests are still served; (2) `copy`: every replica answers 503 with Retry-After
 * for the instance and every background write of it fails and is retried later, the keys are
 * copied byte for byte (DUMP/RESTORE, TTLs kept) with the instance's place in the shard's local
 * sets; (3) the directory names the new shard, the old keys are removed, pods take the instance
 * again. A failure before (3) leaves the old shard the truth: the copies are removed and the
 * instance is served from where it was.
 */
export async function moveInstance(
  deps: MoveDeps,
  instanceId: string,
  to: number,
  opts: MoveOptions = {},
): Promise<MoveResult> {
  const { shards, keys: k } = deps;
  const dir = shards.directory;
  if (!Number.isInteger(to) || to < 0 || to >= shards.count) {
    throw invalid("shard", `shards 0 a ${shards.count - 1} nesta implantação`);
  }
  const from = shards.of(instanceId);
  if (from === to) return { instanceId, from, to, keys: 0, blockedMs: 0 };
  if ((await shards.control.hsetnx(dir.keys.moving, instanceId, "drain")) === 0) {
    throw new InstanceMovingError(instanceId); // another move of it is under way
  }
  const phase = async (p: MovePhase | null, shard = from) => {
    if (p === null) await shards.control.hdel(dir.keys.moving, instanceId);
    else await shards.control.hset(dir.keys.moving, instanceId, p);
    dir.set(instanceId, shard, p);
    await deps.invalidations.announce("shard", instanceId);
  };
  let blockedAt = 0;
  let copied: string[] = [];
  try {
    await phase("drain");
    await drain(shards.control, k, instanceId, opts.drainTimeoutMs ?? 30_000);
    await phase("copy");
    blockedAt = Date.now();
    await sleep(opts.graceMs ?? 300);
    copied = await copyKeys(shards, k, instanceId, from, to);
    // The switch: from here the new shard is the truth.
    const moved = shards.control.multi();
    if (to === homeShardOf(instanceId)) moved.hdel(dir.keys.moved, instanceId);
    else moved.hset(dir.keys.moved, instanceId, String(to));
    moved.hincrby(dir.keys.placed, String(from), -1).hincrby(dir.keys.placed, String(to), 1);
    await moved.exec();
  } catch (err) {
    // Not switched: the old shard stays the truth; its copies (if any) go.
    await removeKeys(shards.clients[to]!, k, instanceId, copied).catch(() => {});
    await phase(null, from).catch(() => {});
    await shards.control.publish(k.sessionKick, "1").catch(() => {});
    throw err;
  }
  await phase(null, to);
  const blockedMs = Date.now() - blockedAt;
  await removeKeys(shards.clients[from]!, k, instanceId, copied);
  await shards.control.publish(k.sessionKick, "1");
  return { instanceId, from, to, keys: copied.length, blockedMs };
}

/** Kicks session pods until none holds the instance's lease (they let moving instances go). */
async function drain(control: Redis, k: Keys, instanceId: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; (await control.exists(k.lease(instanceId))) === 1; i++) {
    if (Date.now() > until) throw new Error(`instance ${instanceId}: its session pod did not let it go`);
    if (i % 10 === 0) await control.publish(k.sessionKick, "1");
    await sleep(100);
  }
}

/** Every key of the instance on shard `from`, by its name (families.ts). */
async function instanceKeys(shards: RedisShards, instanceId: string, from: Redis): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await from.scan(cursor, "MATCH", `${shards.prefix}*${instanceId}*`, "COUNT", SCAN_COUNT);
    cursor = next;
    for (const key of batch) if (shards.instanceOfKey(key) === instanceId) found.push(key);
  } while (cursor !== "0");
  return found;
}

async function copyKeys(shards: RedisShards, k: Keys, instanceId: string, from: number, to: number) {
  const src = shards.clients[from]!;
  const dst = shards.clients[to]!;
  const names = await instanceKeys(shards, instanceId, src);
  const copied: string[] = [];
  for (let i = 0; i < names.length; i += BATCH) {
    const part = names.slice(i, i + BATCH);
    const read = src.pipeline();
    for (const key of part) read.dumpBuffer(key).pttl(key);
    const replies = (await read.exec()) ?? [];
    const write = dst.pipeline();
    const written: string[] = [];
    part.forEach((key, j) => {
      const [dumpErr, dump] = replies[2 * j]!;
      const [ttlErr, ttl] = replies[2 * j + 1]!;
      if (dumpErr || ttlErr) throw dumpErr ?? ttlErr;
      if (dump === null || Number(ttl) === -2) return; // expired meanwhile
      write.restore(key, Math.max(0, Number(ttl)), dump as Buffer, "REPLACE");
      written.push(key);
    });
    for (const [err] of (await write.exec()) ?? []) if (err) throw err;
    copied.push(...written);
  }
  // Its place in the shard's local sets: pending queue items are found by the reconciler there.
  if ((await src.sismember(k.queueActive, instanceId)) === 1) await dst.sadd(k.queueActive, instanceId);
  return copied;
}

async function removeKeys(redis: Redis, k: Keys, instanceId: string, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += BATCH) await redis.unlink(...names.slice(i, i + BATCH));
  await redis.srem(k.queueActive, instanceId);
}
