// A conversation's messages (Api::V1::Accounts::Conversations::MessagesController): the list with
// MessageFinder's paging, create (JSON or multipart with files), delete, and the status update an
// API inbox may make.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type Access, access, idParam } from "./auth.ts";
import { conversationOf } from "./conversations.ts";
import type { Desk } from "./desk.ts";
import { notFound } from "./errors.ts";
import { messageInput, readBody } from "./message-input.ts";
import { messageView } from "./message-views.ts";
import type { Message, MessageStatus, Obj } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import { contactPush, userPush } from "./views.ts";

const base = "/api/v1/accounts/:accountId/conversations/:conversationId/messages";
const MESSAGE_STATUSES: MessageStatus[] = ["sent", "delivered", "read", "failed"];

/** MessageFinder: the latest 20; `before` the 20 before an id; `after` up to 100 after; both, up to 1000 between. */
function page(list: readonly Message[], q: Record<string, string | undefined>): Message[] {
  const before = q.before ? Number.parseInt(q.before, 10) : Number.NaN;
  const after = q.after ? Number.parseInt(q.after, 10) : Number.NaN;
  if (!Number.isNaN(after) && !Number.isNaN(before)) {
    return list.filter((m) => m.id >= after && m.id < before).slice(0, 1000);
  }
  if (!Number.isNaN(before)) return list.filter((m) => m.id < before).slice(-20);
  if (!Number.isNaN(after)) return list.filter((m) => m.id > after).slice(0, 100);
  return list.slice(-20);
}

export function registerMessages(app: FastifyInstance, state: ChatwootMockState, desk: Desk): void {
  const target = (req: FastifyRequest): { a: Access; conv: ReturnType<typeof conversationOf> } => {
    const a = access(state, req);
    return { a, conv: conversationOf(state, a, idParam(req, "conversationId")) };
  };
  const messageOf = (req: FastifyRequest): Message => {
    const { conv } = target(req);
    const m = state.messages.get(idParam(req, "messageId"));
    if (!m || m.conversationKey !== conv.key) throw notFound();
    return m;
  };

  app.get(base, async (req) => {
    const { conv } = target(req);
    const assignee = conv.assigneeId ? state.users.get(conv.assigneeId) : undefined;
    return {
      meta: {
        labels: [],
        additional_attributes: conv.additionalAttributes,
        contact: contactPush(state.contacts.get(conv.contactId)!),
        ...(assignee ? { assignee: userPush(assignee) } : {}),
        agent_last_seen_at: conv.agentLastSeenAt?.toISOString() ?? null,
        assignee_last_seen_at: null,
      },
      payload: page(state.messagesOf(conv), req.query as Record<string, string | undefined>).map((m) =>
        messageView(state, m),
      ),
    };
  });

  app.post(base, async (req) => {
    const { a, conv } = target(req);
    const { fields, files } = readBody(req);
    const m = desk.createMessage(conv, messageInput(fields, files), a.user);
    // `echo_id` is not stored: Chatwoot only echoes it back to the caller.
    const echo = fields.echo_id;
    return { ...messageView(state, m), ...(echo !== undefined && echo !== null ? { echo_id: echo } : {}) };
  });

  app.delete(`${base}/:messageId`, async (req) => {
    const m = messageOf(req);
    desk.deleteMessage(m);
    return messageView(state, m);
  });

  // An API channel reports what became of a message it was given (delivered, read, failed + external_error).
  app.patch(`${base}/:messageId`, async (req) => {
    const m = messageOf(req);
    const b = (typeof req.body === "object" && req.body !== null ? req.body : {}) as Obj;
    const status = String(b.status ?? "") as MessageStatus;
    if (MESSAGE_STATUSES.includes(status)) {
      desk.updateStatus(m, status, typeof b.external_error === "string" ? b.external_error : null);
    }
    return messageView(state, m);
  });
}
