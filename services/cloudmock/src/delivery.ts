// What happens to an accepted message (reference cloud-api.md §3.5, §6, §7 item 3): the status
// webhooks `sent` → `delivered` → `read`, one `ackDelayMs` apart, with `pricing` on `sent` and on
// `delivered`; the 24 h window and undeliverable numbers as asynchronous `failed` statuses.
import { GraphFault, webhookError } from "./graph-errors.ts";
import type { Accepted } from "./messages.ts";
import type { BusinessNumber, CloudMockState, Customer } from "./state.ts";
import { metadataOf, type WebhookSender } from "./webhooks.ts";

const WINDOW_S = 24 * 3600;
const PAIR_WINDOW_MS = 6_000;
const nowS = () => Math.floor(Date.now() / 1000);

export function windowOpen(c: Customer): boolean {
  return c.lastInbound > 0 && nowS() - c.lastInbound < WINDOW_S;
}

/** Synchronous refusals that depend on the conversation (sync window mode, pair rate). */
export function checkConversation(n: BusinessNumber, m: Accepted): void {
  if (!m.template && m.type !== "reaction" && !windowOpen(m.customer) && n.windowMode === "sync") {
    throw new GraphFault(
      131047,
      "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
    );
  }
  if (n.pairRate > 0) {
    const now = Date.now();
    m.customer.recentSends = m.customer.recentSends.filter((t) => now - t < PAIR_WINDOW_MS);
    if (m.customer.recentSends.length >= n.pairRate) {
      throw new GraphFault(
        131056,
        "Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.",
      );
    }
    m.customer.recentSends.push(now);
  }
}

function statusValue(n: BusinessNumber, c: Customer, status: Record<string, unknown>) {
  const contacts =
    status.status === "failed" ? {} : { contacts: [{ wa_id: c.waId, ...(c.userId ? { user_id: c.userId } : {}) }] };
  return { messaging_product: "whatsapp", metadata: metadataOf(n), ...contacts, statuses: [status] };
}

export function sendStatus(
  state: CloudMockState,
  hooks: WebhookSender,
  n: BusinessNumber,
  m: { id: string; customer: Customer; callback?: unknown },
  status: string,
  extra: Record<string, unknown> = {},
): void {
  const c = m.customer;
  const value = statusValue(n, c, {
    id: m.id,
    status,
    timestamp: String(nowS()),
    recipient_id: c.waId,
    ...(c.userId ? { recipient_user_id: c.userId } : {}),
    ...(typeof m.callback === "string" ? { biz_opaque_callback_data: m.callback } : {}),
    ...extra,
  });
  const out = state.outbox.get(m.id);
  if (out) out.statuses.push({ status, timestamp: nowS() });
  hooks.change(n, "messages", value);
}

/** The statuses of an accepted message, on the clock. */
export function deliver(state: CloudMockState, hooks: WebhookSender, n: BusinessNumber, m: Accepted): void {
  const step = state.opts.ackDelayMs;
  const c = m.customer;
  const ref = { id: m.id, customer: c, callback: m.body.biz_opaque_callback_data };
  const inWindow = windowOpen(c);
  const failed = (code: number, details: string) =>
    state.later(step, () => sendStatus(state, hooks, n, ref, "failed", { errors: [webhookError(code, details)] }));
  if (!m.template && m.type !== "reaction" && !inWindow) {
    failed(
      131047,
      "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
    );
    return;
  }
  if (!c.onWhatsApp) {
    failed(131026, "Message Undeliverable.");
    return;
  }
  if (!c.autoStatus) return;
  const category = m.template ? m.template.category.toLowerCase() : "service";
  const pricing = {
    billable: !inWindow || Boolean(m.template && m.template.category !== "UTILITY"),
    pricing_model: "PMP",
    type: inWindow && (!m.template || m.template.category === "UTILITY") ? "free_customer_service" : "regular",
    category,
  };
  state.later(step, () => {
    sendStatus(state, hooks, n, ref, "sent", { pricing });
    if (m.type === "reaction") return; // reactions only get `sent` (reference §1.2)
    state.later(step, () => {
      sendStatus(state, hooks, n, ref, "delivered", { pricing });
      if (!c.autoRead) return;
      state.later(step, () => sendStatus(state, hooks, n, ref, "read"));
    });
  });
}
