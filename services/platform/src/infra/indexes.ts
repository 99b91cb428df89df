import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Repository } from "redis-om";
import type { Keys } from "./keys.ts";

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Creates the search indexes under a short Redis lock. redis-om's createIndex is
 * check-then-act (read the schema hash, drop, create), so replicas booting together would
 * otherwise fail with "Index already exists" or drop an index another one just made.
 */
export async function ensureIndexes(redis: Redis, repos: Repository[], k: Keys, timeoutMs = 30_000): Promise<void> {
  const lock = `${k.prefix}lock:indexes`;
  const owner = randomBytes(8).toString("hex");
  const until = Date.now() + timeoutMs;
  while ((await redis.set(lock, owner, "PX", timeoutMs, "NX")) !== "OK") {
    if (Date.now() > until) throw new Error("timed out waiting for the index lock");
    await new Promise((r) => setTimeout(r, 25 + Math.random() * 50));
  }
  try {
    for (const repo of repos) await repo.createIndex();
  } finally {
    await redis.eval(RELEASE, 1, lock, owner);
  }
}

/** Drops a search index that is no longer used (its documents stay), and redis-om's schema hash of it. */
export async function dropIndexIfAny(redis: Redis, index: string): Promise<void> {
  await redis.call("FT.DROPINDEX", index).catch((err: Error) => {
    if (!/unknown index|no such index/i.test(err.message)) throw err;
  });
  await redis.del(`${index}:hash`);
}
