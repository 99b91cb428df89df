// The 7-day event history: each event in the instance's stream, the stream's TTL refreshed at
// most hourly per process (and at once again after the instance's invalidation). Real Redis.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { keys } from "../infra/keys.ts";
import { createIoRedis } from "../infra/redis.ts";
import { ScriptBatch } from "../infra/script-batch.ts";
import { EventBus } from "./bus.ts";

const prefix = `ev${randomBytes(4).toString("hex")}:`;
const k = keys(prefix);
let redis: ReturnType<typeof createIoRedis>;
let bus: EventBus;
const instance = { id: "inst1", provider: "sim" as const, phone: "15550000001", pushName: "Bench" };
const SEVEN_DAYS = 7 * 86_400_000;

beforeAll(() => {
  redis = createIoRedis(inject("redisUrl"), "events-test");
  const batch = new ScriptBatch(redis);
  bus = new EventBus(redis, k, batch, 2, 1000, () => false);
  batch.seal();
});
afterAll(async () => {
  const left = await redis.keys(`${prefix}*`);
  if (left.length) await redis.del(...left);
  redis.disconnect();
});

it("keeps every event in the instance's history with a 7-day TTL, refreshed at most hourly", async () => {
  const key = k.recentEvents(instance.id);
  await bus.publish(instance, "message.ack", { chatId: "1@c.us", status: "sent" });
  const ttl = await redis.pttl(key);
  expect(ttl).toBeGreaterThan(SEVEN_DAYS - 60_000);
  expect(ttl).toBeLessThanOrEqual(SEVEN_DAYS);

  // Within the hour the next events leave the TTL alone (shown by removing it: it stays removed).
  await redis.persist(key);
  await bus.publish(instance, "message.ack", { chatId: "1@c.us", status: "delivered" });
  expect(await redis.pttl(key)).toBe(-1);

  // The instance changed (it may have been deleted): the next event sets the TTL again.
  bus.forget(instance.id);
  await bus.publish(instance, "message.ack", { chatId: "1@c.us", status: "read" });
  expect(await redis.pttl(key)).toBeGreaterThan(SEVEN_DAYS - 60_000);
  expect((await bus.history(instance.id)).map((e) => e.payload.status)).toEqual(["sent", "delivered", "read"]);
});

it("an event that could not be written leaves the TTL for the next one to set", async () => {
  const other = { ...instance, id: "inst2" };
  const key = k.recentEvents(other.id);
  await redis.set(key, "not a stream"); // the XADD fails: WRONGTYPE
  await expect(bus.publish(other, "message.ack", { chatId: "1@c.us", status: "sent" })).rejects.toThrow(/WRONGTYPE/);
  await redis.del(key);
  await bus.publish(other, "message.ack", { chatId: "1@c.us", status: "delivered" });
  expect(await redis.pttl(key)).toBeGreaterThan(SEVEN_DAYS - 60_000);
});
