// The queue mode is read on every send without X-Queue, from a per-replica cache: a settings
// change on one replica reaches the others through the invalidation channel, long before the
// cache's TTL. Two platforms on one real Redis stand for two gateway replicas.
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { testEnv } from "@gw/test/gateway";
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SendQueue } from "./queue.ts";

const noTemporal = async (): Promise<Client> => {
  throw new Error("not needed here");
};

let a: Platform;
let b: Platform;
beforeAll(async () => {
  // A TTL far longer than the test: only the invalidation can make a replica see the change.
  const env = testEnv({ INSTANCE_CACHE_MS: "600000" });
  a = await createPlatform(loadConfig(env));
  b = await createPlatform(loadConfig(env));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

it("a mode changed on one replica applies on another at once, not after the cache's TTL", async () => {
  const qa = new SendQueue(a, noTemporal, "unused");
  const qb = new SendQueue(b, noTemporal, "unused");
  const id = `i${Math.random().toString(36).slice(2).padEnd(24, "0").slice(0, 24)}`;
  expect(await qa.mode(id)).toBe("direct");
  expect(await qb.mode(id)).toBe("direct"); // cached on b from now on

  await qa.updateSettings(id, { mode: "queue" });
  expect(await qa.mode(id)).toBe("queue"); // the replica that changed it: at once
  await expect.poll(() => qb.mode(id), { timeout: 5_000 }).toBe("queue");

  await qb.updateSettings(id, { mode: "direct" });
  await expect.poll(() => qa.mode(id), { timeout: 5_000 }).toBe("direct");
  // Other settings leave the mode alone.
  await qa.updateSettings(id, { delayMin: 2 });
  expect(await qb.mode(id)).toBe("direct");
});
