// Webhooks out, as Chatwoot sends an API inbox's events (Webhooks::Trigger): a JSON POST to the
// inbox's `webhook_url`, 5 s timeout, never retried. On a message event that fails, Chatwoot marks
// the message `failed` with the error in `content_attributes.external_error`; `onFailure` does that.
// Chatwoot posts from Sidekiq jobs; the mock posts one inbox URL's events one after the other, in the
// order they happened, so a test can rely on the order (Chatwoot itself does not promise it).
import type { FastifyBaseLogger } from "fastify";
import type { DeliveryRecord, Inbox, Obj } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";

const MESSAGE_EVENTS = new Set(["message_created", "message_updated"]);
/** What Chatwoot's RestClient announces itself as. */
const USER_AGENT = "rest-client/2.1.0 (linux x86_64) ruby/3.3.3p89";

export class WebhookSender {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly aborter = new AbortController();
  /** Called when a message event could not be delivered. */
  onFailure: ((messageId: number, error: string) => void) | null = null;

  constructor(
    private readonly state: ChatwootMockState,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Queues one event for the inbox's `webhook_url` (nothing when it has none, as Chatwoot). */
  send(inbox: Inbox, payload: Obj): void {
    const url = inbox.webhookUrl;
    if (!url) return;
    const event = String(payload.event);
    const record: DeliveryRecord = {
      seq: this.state.next("delivery"),
      url,
      event,
      messageId: MESSAGE_EVENTS.has(event) && typeof payload.id === "number" ? payload.id : null,
      status: null,
      error: null,
      at: Date.now(),
      body: JSON.stringify(payload),
    };
    this.state.deliveries.push(record);
    if (this.state.deliveries.length > 10_000) this.state.deliveries.shift();
    const next = (this.chains.get(url) ?? Promise.resolve()).then(() => this.deliver(record));
    this.chains.set(url, next);
    void next.then(() => {
      if (this.chains.get(url) === next) this.chains.delete(url);
    });
  }

  /** Resolves once every queued event has been answered or has failed. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  close(): void {
    this.aborter.abort();
  }

  private async deliver(record: DeliveryRecord): Promise<void> {
    if (this.aborter.signal.aborted) return;
    let error: string | null = null;
    try {
      const res = await fetch(record.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "user-agent": USER_AGENT },
        body: record.body,
        redirect: "manual",
        signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.state.opts.webhookTimeoutMs)]),
      });
      record.status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      // RestClient raises on anything but 2xx, with the status line as its message.
      if (res.status < 200 || res.status > 299) error = `${res.status} ${res.statusText}`.trim();
    } catch (err) {
      if (this.aborter.signal.aborted) return;
      const e = err as Error & { cause?: { code?: string } };
      error = e.name === "TimeoutError" ? "Timed out reading data from server" : (e.cause?.code ?? e.message);
    }
    if (error === null) return;
    record.error = error;
    this.log.warn({ url: record.url, event: record.event, error }, "webhook not delivered (not retried)");
    if (record.messageId !== null) this.onFailure?.(record.messageId, error);
  }
}
