// Reading the event streams for the live streams: where an `evt_` id sits in a stream whose ids
// carry Redis's clock, not the producer's. Real Redis, entries written with chosen stream ids.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createIoRedis } from "../infra/redis.ts";
import { newEventId, stableEventId } from "./bus.ts";
import { compareStreamIds, entriesAfter, eventIdOf, eventIdTime, locateEvent } from "./stored.ts";

const key = `st${randomBytes(4).toString("hex")}:recent:i1`;
let redis: ReturnType<typeof createIoRedis>;

beforeAll(() => {
  redis = createIoRedis(inject("redisUrl"), "stored-test");
});
afterAll(async () => {
  await redis.del(key);
  redis.disconnect();
});

const envelope = (id: string) => JSON.stringify({ id, event: "message", instanceId: "i1", payload: {} });

it("reads an id's time and orders stream ids as numbers", () => {
  const at = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
  expect(eventIdTime(newEventId(at))).toBe(at);
  expect(Number.isNaN(eventIdTime("evt_!!"))).toBe(true);
  expect(compareStreamIds("9-0", "10-0")).toBeLessThan(0);
  expect(compareStreamIds("10-2", "10-10")).toBeLessThan(0);
  expect(compareStreamIds("10-10", "10-10")).toBe(0);
  expect(compareStreamIds("11-0", "10-99")).toBeGreaterThan(0);
  const id = newEventId();
  expect(eventIdOf(envelope(id))).toBe(id);
  expect(eventIdOf(JSON.stringify({ event: "x", id }))).toBe(id); // not first: parsed
});

it("finds an id whose entry Redis's clock put well after, or a derived id's far earlier time", async () => {
  const base = Date.now();
  // The producer's clock 40 s behind Redis's for these; a derived id carries a time 2 h earlier.
  const skewed = newEventId(base - 40_000);
  const derived = stableEventId("item-1", base - 7_200_000);
  const ids = [newEventId(base - 1), skewed, newEventId(base + 1), derived, newEventId(base + 2)];
  for (const [i, id] of ids.entries()) {
    await redis.xadd(key, `${base + i}-0`, "event", "message", "envelope", envelope(id));
  }
  for (const [i, id] of ids.entries()) {
    const where = await locateEvent(redis, key, id);
    expect(where).toEqual({ after: `${base + i}-0`, found: true });
    const rest = await entriesAfter(redis, key, where.after, 10, "i1");
    expect(rest.map((e) => e.id)).toEqual(ids.slice(i + 1));
    expect(rest.every((e) => e.instanceId === "i1" && e.kind === "message")).toBe(true);
  }
});

it("an id not in the stream resumes after its own millisecond", async () => {
  const base = Date.now() + 60_000;
  await redis.xadd(key, `${base}-0`, "event", "message", "envelope", envelope(newEventId(base)));
  const absent = newEventId(base - 10);
  const where = await locateEvent(redis, key, absent);
  expect(where.found).toBe(false);
  const rest = await entriesAfter(redis, key, where.after, 10);
  expect(rest.map((e) => e.streamId)).toEqual([`${base}-0`]);
});
