import type { AttemptOutcome, Logger, Platform, StoredDelivery, WebhookTarget } from "@gw/platform";
import type { Notifier } from "./notifier.ts";

/**
 * What follows a failed attempt, the same for the dispatcher's first attempt and every retry:
 * a 410 or 24 h of failures deactivates the webhook (with an e-mail to the account owner and an
 * operator record); otherwise the attempt is recorded with its next attempt time, or as final.
 * Answers whether more attempts should follow.
 */
export async function afterFailure(
  deps: { platform: Platform; notifier: Notifier; log: Logger },
  target: WebhookTarget,
  delivery: StoredDelivery,
  outcome: AttemptOutcome,
  nextDelayMs: number | null,
): Promise<{ retry: boolean }> {
  const { webhooks } = deps.platform;
  const verdict = await webhooks.markFailing(target.id, outcome.gone);
  if (verdict.deactivate && verdict.reason) {
    await webhooks.deliveries.recordAttempt(delivery, { ...outcome, nextAttemptAt: null, final: true });
    const done = await webhooks.deactivate(target.id, verdict.reason);
    if (done) {
      deps.log.warn(
        { webhookId: target.id, instanceId: done.instanceId, reason: verdict.reason },
        "webhook deactivated",
      );
      await deps.notifier.webhookDeactivated(done.instanceId, target.id, done.url, verdict.reason).catch((err) => {
        deps.log.error({ err, webhookId: target.id }, "deactivation e-mail failed");
      });
    }
    return { retry: false };
  }
  const final = nextDelayMs === null;
  await webhooks.deliveries.recordAttempt(delivery, {
    ...outcome,
    nextAttemptAt: final ? null : Date.now() + nextDelayMs,
    final,
  });
  return { retry: !final };
}
