// The free trial's daily count (spec 8) on a real Redis: a request taken over after its gateway
// died counts once (its Idempotency-Key run's charge), a queue item counts once however often it
// is charged (its queue id), a failure gives its unit back to the day it was taken from.
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, expect, it } from "vitest";
import { IdempotencyStore } from "./idempotency.ts";
import { newQueueId } from "./queue.ts";
import { TRIAL_CHARGE_TTL_MS, TrialLimiter } from "./trial.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv()));
});
afterAll(() => platform?.close());

const now = new Date("2026-11-25T12:00:00Z");
const instance = (id: string) => ({ id, billingStatus: "trialing" as const });
const count = async (id: string, day = "2026-11-25") =>
  Number((await platform.redis.get(platform.keys.trialCount(id, day))) ?? 0);

it("one charge takes one unit however often its request runs; giving it back lets it count again", async () => {
  const trial = new TrialLimiter(platform.redis, platform.keys, 3);
  const i = instance(`itrial${Date.now().toString(36)}`);
  await trial.take(i, { now, charge: "run-a" }); // the first attempt: its gateway dies after the send
  const retry = await trial.take(i, { now, charge: "run-a" }); // the retry that took the run over
  expect(await count(i.id)).toBe(1);

  await retry!(); // the taken-over run failed after all: its one unit is given back
  expect(await count(i.id)).toBe(0);
  await trial.take(i, { now, charge: "run-a" });
  expect(await count(i.id)).toBe(1);
});

it("without a charge each call takes a unit, up to the limit; then 429 trial_limit_reached", async () => {
  const trial = new TrialLimiter(platform.redis, platform.keys, 2);
  const i = instance(`itrial${Date.now().toString(36)}b`);
  await trial.take(i, { now });
  const second = await trial.take(i, { now, charge: "run-b" });
  await expect(trial.take(i, { now })).rejects.toMatchObject({ code: "trial_limit_reached" });
  await expect(trial.take(i, { now, charge: "run-c" })).rejects.toMatchObject({ code: "trial_limit_reached" });
  // A refused charge is not remembered: after a unit comes back, it is taken.
  await second!();
  expect(await count(i.id)).toBe(1);
  await trial.take(i, { now, charge: "run-c" });
  expect(await count(i.id)).toBe(2);
});

it("instances that are not trialing are not counted", async () => {
  const trial = new TrialLimiter(platform.redis, platform.keys, 1);
  expect(await trial.take({ id: "iactive1", billingStatus: "active" }, { now, charge: "run-d" })).toBeNull();
});

it("a queue item is charged once by its queue id: the enqueue retried by a takeover, and any later charge", async () => {
  const trial = new TrialLimiter(platform.redis, platform.keys, 3);
  const i = instance(`itrial${Date.now().toString(36)}q`);
  // Under an Idempotency-Key the queue id derives from the run's origin: the takeover's is the same.
  const keyed = IdempotencyStore.queueId(i.id, "origin-1");
  await trial.take(i, { now, charge: keyed });
  await trial.take(i, { now, charge: IdempotencyStore.queueId(i.id, "origin-1") });
  // Without a key: one item, one id; the worker's retries or a second worker charging it find it.
  const plain = newQueueId(now.getTime());
  for (let n = 0; n < 5; n++) await trial.take(i, { now, charge: plain });
  expect(await count(i.id)).toBe(2);
  // Even on a day whose allowance is used up, an item already charged is not refused.
  await trial.take(i, { now });
  await expect(trial.take(i, { now, charge: newQueueId() })).rejects.toMatchObject({ code: "trial_limit_reached" });
  expect(await trial.take(i, { now, charge: plain })).toBeTypeOf("function");
  expect(await count(i.id)).toBe(3);
  // The mark outlives any queue item (ttlHours up to 168).
  const ttl = await platform.redis.pttl(platform.keys.trialCharge(i.id, plain));
  expect(ttl).toBeGreaterThan(168 * 3_600_000);
  expect(ttl).toBeLessThanOrEqual(TRIAL_CHARGE_TTL_MS);
});

it("an item charged yesterday is not charged today, and its unit goes back to yesterday's count", async () => {
  const trial = new TrialLimiter(platform.redis, platform.keys, 3);
  const i = instance(`itrial${Date.now().toString(36)}d`);
  const qid = newQueueId(now.getTime());
  await trial.take(i, { now, charge: qid });
  const tomorrow = new Date("2026-11-26T00:00:05Z");
  const again = await trial.take(i, { now: tomorrow, charge: qid });
  expect([await count(i.id), await count(i.id, "2026-11-26")]).toEqual([1, 0]);
  await again!(); // queue_full on the retried enqueue: nothing was accepted
  expect([await count(i.id), await count(i.id, "2026-11-26")]).toEqual([0, 0]);
  // Given back once: a second give-back of the same charge changes nothing.
  await again!();
  await trial.take(i, { now, charge: "other" });
  expect(await count(i.id)).toBe(1);
});
