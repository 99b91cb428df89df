// Conversations (Api::V1::Accounts::ConversationsController): create (ConversationBuilder over a
// contact inbox, with an optional first message), show, and toggle_status.
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Access, access, idParam } from "./auth.ts";
import type { Desk } from "./desk.ts";
import { couldNotCreate, notFound } from "./errors.ts";
import { messageInput } from "./message-input.ts";
import { conversationView } from "./message-views.ts";
import { type ContactInbox, type Conversation, type ConversationStatus, type Obj, STATUSES } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import { conversationWebhook } from "./webhook-data.ts";

const base = "/api/v1/accounts/:accountId/conversations";
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const given = (v: unknown): v is string | number => (typeof v === "string" && v !== "") || typeof v === "number";

/** A status as the enum takes it; Chatwoot answers an unknown one with a 500 (ArgumentError), the mock with a 422. */
export function parseStatus(v: unknown): ConversationStatus {
  if (STATUSES.includes(v as ConversationStatus)) return v as ConversationStatus;
  throw couldNotCreate(`'${String(v)}' is not a valid status`);
}

export function conversationOf(state: ChatwootMockState, a: Access, displayId: number): Conversation {
  const c = state.conversation(a.account.id, displayId);
  if (!c) throw notFound();
  return c;
}

/** The contact inbox a create names: `contact_id` + `inbox_id` (+ `source_id`), or `source_id` alone. */
function contactInboxFor(state: ChatwootMockState, a: Access, b: Obj): ContactInbox {
  const sourceId = given(b.source_id) ? String(b.source_id) : undefined;
  if (given(b.contact_id) && given(b.inbox_id)) {
    const contact = state.contacts.get(Number(b.contact_id));
    const inbox = state.inboxes.get(Number(b.inbox_id));
    if (!contact || contact.accountId !== a.account.id || !inbox || inbox.accountId !== a.account.id) throw notFound();
    return state.contactInbox(contact.id, inbox.id, sourceId);
  }
  const found = [...state.contactInboxes.values()].find(
    (ci) =>
      sourceId !== undefined && ci.sourceId === sourceId && state.inboxes.get(ci.inboxId)?.accountId === a.account.id,
  );
  if (!found) throw notFound();
  return found;
}

export function registerConversations(app: FastifyInstance, state: ChatwootMockState, desk: Desk): void {
  app.post(base, async (req) => {
    const a = access(state, req);
    const b = obj(req.body);
    const status = b.status === undefined || b.status === null || b.status === "" ? "open" : parseStatus(b.status);
    const ci = contactInboxFor(state, a, b);
    const inbox = state.inboxes.get(ci.inboxId)!;
    if (inbox.lockToSingleConversation) {
      const last = [...state.conversations.values()].filter((c) => c.contactInboxId === ci.id).at(-1);
      if (last) return conversationView(state, last);
    }
    const now = new Date();
    const conv: Conversation = {
      key: state.next("conversation"),
      displayId: a.account.nextDisplayId++,
      accountId: a.account.id,
      inboxId: ci.inboxId,
      contactId: ci.contactId,
      contactInboxId: ci.id,
      uuid: randomUUID(),
      status,
      additionalAttributes: obj(b.additional_attributes),
      customAttributes: obj(b.custom_attributes),
      assigneeId: null,
      createdAt: now,
      updatedAt: now,
      lastActivityAt: now,
      agentLastSeenAt: null,
      firstReplyCreatedAt: null,
      waitingSince: null,
    };
    state.conversations.set(conv.key, conv);
    desk.hooks.send(inbox, { ...conversationWebhook(state, conv), event: "conversation_created" });
    const first = obj(b.message);
    if (Object.keys(first).length > 0) desk.createMessage(conv, messageInput(first, []), a.user);
    return conversationView(state, conv);
  });

  app.get(`${base}/:id`, async (req) => {
    const a = access(state, req);
    return conversationView(state, conversationOf(state, a, idParam(req, "id")));
  });

  app.post(`${base}/:id/toggle_status`, async (req) => {
    const a = access(state, req);
    const conv = conversationOf(state, a, idParam(req, "id"));
    const b = obj(req.body);
    // With a status: that status; without: open ⇄ resolved (Conversation#toggle_status).
    const status = given(b.status) ? parseStatus(b.status) : conv.status === "open" ? "resolved" : "open";
    desk.setStatus(conv, status, a.user);
    return {
      meta: {},
      payload: { success: true, conversation_id: conv.displayId, current_status: conv.status, snoozed_until: null },
    };
  });
}
