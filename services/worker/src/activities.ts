import type { Logger, Platform } from "@gw/platform";
import type { RetryInput, RetryResult, WebhookActivities } from "@gw/workflows/activities";
import { attemptInSpan } from "./delivery-span.ts";
import type { WorkerMetrics } from "./metrics.ts";
import type { Notifier } from "./notifier.ts";
import { afterFailure } from "./outcomes.ts";

/** The activities of the webhook retry workflow: plain async functions over the platform. */
export function createActivities(deps: {
  platform: Platform;
  notifier: Notifier;
  log: Logger;
  metrics?: WorkerMetrics;
}): WebhookActivities {
  return {
    async retryDelivery({ deliveryId, instanceId, nextDelayMs }: RetryInput): Promise<RetryResult> {
      const { webhooks, config } = deps.platform;
      const delivery = await webhooks.deliveries.getDelivery(deliveryId, instanceId);
      if (!delivery) return { done: true, result: "stopped" }; // expired or deleted
      const target = await webhooks.target(delivery.webhookId);
      if (!target?.active) {
        // Deleted or deactivated meanwhile: no more attempts (a reactivation starts fresh).
        await webhooks.deliveries.recordAttempt(delivery, {
          ok: false,
          httpStatus: null,
          error: target ? "webhook deactivated: no more attempts" : "webhook deleted",
          durationMs: 0,
          nextAttemptAt: null,
          final: true,
        });
        return { done: true, result: "stopped" };
      }
      const outcome = await attemptInSpan("retry", target, delivery, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
      deps.metrics?.deliveries.inc({ by: "retry", outcome: outcome.ok ? "succeeded" : "failed" });
      deps.metrics?.duration.observe(outcome.durationMs / 1000);
      if (outcome.ok) {
        await webhooks.deliveries.recordAttempt(
          delivery,
          { ...outcome, nextAttemptAt: null, final: true },
          { wasFailing: true },
        );
        return { done: true, result: "succeeded" };
      }
      const { retry } = await afterFailure(deps, target, delivery, outcome, nextDelayMs);
      return retry ? { done: false, result: "failed" } : { done: true, result: "failed" };
    },
  };
}
