import { type AttemptOutcome, attemptDelivery, type StoredDelivery, type WebhookTarget } from "@gw/platform";
import { inSpan, SpanKind, SpanStatusCode } from "@gw/platform/telemetry";

/**
 * One webhook delivery attempt (`attemptDelivery`) in a `webhook deliver` span: the dispatcher's
 * first attempt (a trace of its own, the event came through a Redis stream) or a retry (under
 * the retry workflow's `RunActivity` span). A failed attempt marks the span failed with the
 * receiver's status or the error; the receiver's host is named, never its URL (tokens in query
 * strings). With tracing off, the attempt alone.
 */
export function attemptInSpan(
  by: "dispatcher" | "retry",
  target: WebhookTarget,
  delivery: StoredDelivery,
  opts: Parameters<typeof attemptDelivery>[2],
): Promise<AttemptOutcome> {
  return inSpan(
    "webhook deliver",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gw.webhook_id": target.id,
        "gw.delivery_id": delivery.id,
        "gw.event": delivery.event,
        "gw.attempt_by": by,
        "gw.attempt": delivery.attempt + 1,
        "server.address": hostOf(target.url),
      },
    },
    async (span) => {
      const outcome = await attemptDelivery(target, delivery, opts);
      if (outcome.httpStatus !== null) span?.setAttribute("http.response.status_code", outcome.httpStatus);
      if (!outcome.ok) {
        span?.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? `HTTP ${outcome.httpStatus}` });
      }
      return outcome;
    },
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid";
  }
}
