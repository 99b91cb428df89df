// The free trial's daily count (spec 8) on a real Redis: a request taken over after its gateway
// died counts once (its Idempotency-Key run's charge), a failure gives its unit back.
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testEnv } from "../../../test/support/gateway.ts";
import { TrialLimiter } from "./trial.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv()));
});
afterAll(() => platform?.close());

const now = new Date("2026-11-25T12:00:00Z");
const instance = (id: string) => ({ id, billingStatus: "trialing" as const });
const count = async (id: string) => Number((await platform.redis.get(platform.keys.trialCount(id, "2026-11-25"))) ?? 0);

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
