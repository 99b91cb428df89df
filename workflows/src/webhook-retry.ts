import { WEBHOOK_RETRY_SCHEDULE_MS } from "@gw/contracts/webhook-timing";
import { proxyActivities, sleep } from "@temporalio/workflow";
import type { RetryResult, WebhookActivities } from "./activities.ts";

const { retryDelivery } = proxyActivities<WebhookActivities>({
  // One POST (10 s) plus its bookkeeping; infrastructure failures (Redis) are retried by Temporal.
  startToCloseTimeout: "1 minute",
  retry: { initialInterval: "5 seconds", backoffCoefficient: 2, maximumInterval: "5 minutes" },
});

export interface WebhookRetryInput {
  deliveryId: string;
  /** Where its record is (its instance's shard); absent in workflows started before session 34. */
  instanceId?: string;
  /** The spec's schedule unless given; tests shorten it (the real one is asserted separately). */
  scheduleMs?: number[];
}

/**
 * The retries of one failed delivery (spec 6.4): a durable timer before each attempt, after
 * 10 s, 1 min, 5 min, 15 min, 1 h, 3 h, 6 h and 12 h. Stops at the first success, when the
 * webhook is deactivated (410, or failing for 24 h) or deleted, and after the last attempt.
 */
export async function webhookRetry(input: WebhookRetryInput): Promise<RetryResult["result"]> {
  const schedule = input.scheduleMs ?? [...WEBHOOK_RETRY_SCHEDULE_MS];
  for (let i = 0; i < schedule.length; i++) {
    await sleep(schedule[i]!);
    const r = await retryDelivery({
      deliveryId: input.deliveryId,
      // Absent, not undefined, when not given: an older workflow's history replays with the same input.
      ...(input.instanceId ? { instanceId: input.instanceId } : {}),
      nextDelayMs: schedule[i + 1] ?? null,
    });
    if (r.done) return r.result;
  }
  return "failed";
}
