import { WEBHOOK_TIMEOUT_MS } from "@gw/contracts";
import { sign } from "@gw/webhook-verify";
import { guardedRequest } from "../url-guard/index.ts";
import type { StoredDelivery } from "./deliveries.ts";
import type { WebhookTarget } from "./target.ts";

export interface AttemptOutcome {
  ok: boolean;
  /** 410: the receiver says the endpoint is gone for good (deactivate). */
  gone: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * One POST of a delivery (spec 6.1–6.4): the envelope as body, the delivery headers, signed with
 * the webhook's secret over `<t>.<body>`. Any 2xx within 10 s is success. The target is checked
 * again on this very connection (DNS rebinding) and redirects are not followed.
 */
export async function attemptDelivery(
  target: WebhookTarget,
  delivery: StoredDelivery,
  opts: { allowPrivate: boolean; timeoutMs?: number },
): Promise<AttemptOutcome> {
  const body = delivery.body;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await guardedRequest(
      target.url,
      {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "MessagingGateway-Webhooks/1",
          "x-service-event": delivery.event,
          "x-service-event-id": delivery.eventId,
          "x-service-delivery": delivery.id,
          "x-service-signature": sign(target.secret, body),
        },
      },
      { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS },
    );
    // Only the status matters; read and drop the body within the same deadline.
    await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return {
      ok,
      gone: res.statusCode === 410,
      httpStatus: res.statusCode,
      error: ok ? null : `HTTP ${res.statusCode}`,
      durationMs: elapsed(),
    };
  } catch (err) {
    const e = err as Error & { code?: string };
    const timedOut = e.name === "TimeoutError" || e.name === "AbortError";
    return {
      ok: false,
      gone: false,
      httpStatus: null,
      error: timedOut
        ? `no answer within ${(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s`
        : `${e.code ?? e.name}: ${e.message}`,
      durationMs: elapsed(),
    };
  }
}
