// Messages, attachments and conversations as Chatwoot renders them: the API's partials
// (`api/v1/models/_message`, `api/v1/conversations/partials/_conversation`) and the models'
// `push_event_data` (a conversation's `messages`, `last_non_activity_message`).
import type { Attachment, Conversation, Message, Obj } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import { contactPush, contactView, unix, userPush } from "./views.ts";

/** Active Storage's redirect link of the blob; the mock serves it (attachments.ts). */
export function dataUrl(state: ChatwootMockState, a: Attachment): string {
  return `${state.publicUrl()}/rails/active_storage/blobs/redirect/${a.signedId}/${encodeURIComponent(a.filename)}`;
}

/** `Attachment#push_event_data` for uploaded files. */
export function attachmentView(state: ChatwootMockState, a: Attachment): Obj {
  const url = dataUrl(state, a);
  return {
    id: a.id,
    message_id: a.messageId,
    file_type: a.fileType,
    account_id: a.accountId,
    extension: null,
    data_url: url,
    // Chatwoot links a 250×250 representation of images; the mock links the image itself.
    thumb_url: a.fileType === "image" ? url : "",
    file_size: a.data.length,
    width: null,
    height: null,
  };
}

function senderPush(state: ChatwootMockState, m: Message): Obj | null {
  if (!m.sender) return null;
  if (m.sender.type === "Contact") {
    const c = state.contacts.get(m.sender.id);
    return c ? contactPush(c) : null;
  }
  const u = state.users.get(m.sender.id);
  return u ? userPush(u) : null;
}

const conversationOf = (state: ChatwootMockState, m: Message) => state.conversations.get(m.conversationKey)!;

/** The API's message (list, create, delete, status update). */
export function messageView(state: ChatwootMockState, m: Message): Obj {
  const sender = senderPush(state, m);
  return {
    id: m.id,
    content: m.content,
    inbox_id: m.inboxId,
    conversation_id: conversationOf(state, m).displayId,
    message_type: m.messageType,
    content_type: m.contentType,
    status: m.status,
    content_attributes: m.contentAttributes,
    created_at: unix(m.createdAt),
    private: m.private,
    source_id: m.sourceId,
    ...(sender ? { sender } : {}),
    ...(m.attachments.length ? { attachments: m.attachments.map((a) => attachmentView(state, a)) } : {}),
  };
}

/** Incoming messages the agents have not seen: after `agent_last_seen_at`. */
export function unreadCount(state: ChatwootMockState, c: Conversation): number {
  const seen = c.agentLastSeenAt?.getTime() ?? 0;
  return state.messagesOf(c).filter((m) => m.messageType === 0 && m.createdAt.getTime() > seen).length;
}

/** `Message#push_event_data`: the record's columns, with integer `message_type` and `created_at`. */
export function messagePush(state: ChatwootMockState, m: Message): Obj {
  const c = conversationOf(state, m);
  const sender = senderPush(state, m);
  return {
    id: m.id,
    content: m.content,
    account_id: m.accountId,
    inbox_id: m.inboxId,
    conversation_id: c.displayId,
    message_type: m.messageType,
    created_at: unix(m.createdAt),
    updated_at: m.updatedAt.toISOString(),
    private: m.private,
    status: m.status,
    source_id: m.sourceId,
    content_type: m.contentType,
    content_attributes: m.contentAttributes,
    sender_type: m.sender?.type ?? null,
    sender_id: m.sender?.id ?? null,
    external_source_ids: {},
    additional_attributes: m.additionalAttributes,
    processed_message_content: m.content,
    sentiment: {},
    conversation: {
      assignee_id: c.assigneeId,
      unread_count: unreadCount(state, c),
      last_activity_at: unix(c.lastActivityAt),
      contact_inbox: { source_id: state.contactInboxes.get(c.contactInboxId)?.sourceId ?? null },
    },
    ...(m.attachments.length ? { attachments: m.attachments.map((a) => attachmentView(state, a)) } : {}),
    ...(sender ? { sender } : {}),
  };
}

/** The API's conversation (create, a contact's conversations). */
export function conversationView(state: ChatwootMockState, c: Conversation): Obj {
  const messages = state.messagesOf(c);
  const last = messages.at(-1);
  const lastNonActivity = messages.filter((m) => m.messageType !== 2).at(-1);
  const assignee = c.assigneeId ? state.users.get(c.assigneeId) : undefined;
  return {
    meta: {
      sender: contactView(state, state.contacts.get(c.contactId)!, false),
      channel: "Channel::Api",
      ...(assignee ? { assignee: userPush(assignee) } : {}),
      hmac_verified: false,
    },
    id: c.displayId,
    messages: last ? [messagePush(state, last)] : [],
    account_id: c.accountId,
    uuid: c.uuid,
    additional_attributes: c.additionalAttributes,
    agent_last_seen_at: unix(c.agentLastSeenAt),
    assignee_last_seen_at: 0,
    can_reply: true,
    contact_last_seen_at: 0,
    custom_attributes: c.customAttributes,
    inbox_id: c.inboxId,
    labels: [],
    muted: false,
    snoozed_until: null,
    status: c.status,
    created_at: unix(c.createdAt),
    updated_at: c.updatedAt.getTime() / 1000,
    timestamp: unix(c.lastActivityAt),
    first_reply_created_at: unix(c.firstReplyCreatedAt),
    unread_count: unreadCount(state, c),
    last_non_activity_message: lastNonActivity ? messagePush(state, lastNonActivity) : null,
    last_activity_at: unix(c.lastActivityAt),
    priority: null,
    waiting_since: unix(c.waitingSince),
    sla_policy_id: null,
  };
}
