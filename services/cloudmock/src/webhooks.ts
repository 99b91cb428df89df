import { createHmac } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { BusinessNumber, CloudMockState } from "./state.ts";

/**
 * Webhooks as the operator sends them (reference cloud-api.md §3.2–3.3): the envelope
 * `{object: "whatsapp_business_account", entry: [{id: <waba>, time?, changes: [{field, value}]}]}`,
 * serialized with every non-ASCII character escaped as lowercase `\uXXXX` (what the operator signs),
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`; an answer
 * other than 2xx (or none) is retried on the configured schedule.
 */
export function operatorJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export function signature(appSecret: string, body: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

/** The `metadata` of `messages`-field values. */
export function metadataOf(n: BusinessNumber) {
  return { display_phone_number: n.displayPhoneNumber, phone_number_id: n.phoneNumberId };
}

export class WebhookSender {
  constructor(
    private readonly state: CloudMockState,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** One change of a number, in its own envelope. */
  change(n: BusinessNumber, field: string, value: unknown, opts: { time?: number } = {}): string {
    const body = operatorJson({
      object: "whatsapp_business_account",
      entry: [{ id: n.wabaId, ...(opts.time ? { time: opts.time } : {}), changes: [{ field, value }] }],
    });
    this.post(n.webhookUrl ?? this.state.opts.webhookUrl, body, field, {
      "x-hub-signature-256": signature(n.appSecret, body),
    });
    return body;
  }

  /** A body exactly as given (signature tests). */
  post(url: string | null, body: string, field: string, headers: Record<string, string>, attempt = 1): void {
    if (!url) {
      this.log.warn({ field }, "no webhook URL: not delivered");
      return;
    }
    const record = {
      seq: this.state.next(),
      url,
      field,
      attempt,
      status: null as number | null,
      error: null as string | null,
      at: Date.now(),
      body,
    };
    this.state.deliveries.push(record);
    if (this.state.deliveries.length > 10_000) this.state.deliveries.shift();
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then(async (res) => {
        record.status = res.status;
        await res.arrayBuffer().catch(() => undefined);
        if (res.status < 200 || res.status > 299) this.retry(url, body, field, headers, attempt);
      })
      .catch((err: Error) => {
        record.error = err.message;
        this.retry(url, body, field, headers, attempt);
      });
  }

  private retry(url: string, body: string, field: string, headers: Record<string, string>, attempt: number): void {
    const wait = this.state.opts.webhookRetryMs[attempt - 1];
    if (wait === undefined) return;
    this.state.later(wait, () => this.post(url, body, field, headers, attempt + 1));
  }
}
