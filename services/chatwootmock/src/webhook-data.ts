// Webhook payloads as Chatwoot builds them: `Message#webhook_data` and `Conversation#webhook_data`
// (Conversations::EventDataPresenter#push_data), each merged with `event` by the WebhookListener.
import { attachmentView, messagePush, unreadCount } from "./message-views.ts";
import { type Conversation, MESSAGE_TYPES, type Message, type Obj } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import {
  accountWebhook,
  contactInboxRecord,
  contactPush,
  contactWebhook,
  unix,
  userPush,
  userWebhook,
} from "./views.ts";

export function conversationWebhook(state: ChatwootMockState, c: Conversation): Obj {
  // `messages`: the last message of the `chat` scope (neither an activity nor a private note).
  const chat = state.messagesOf(c).filter((m) => m.messageType !== 2 && !m.private);
  const last = chat.at(-1);
  const assignee = c.assigneeId ? state.users.get(c.assigneeId) : undefined;
  return {
    additional_attributes: c.additionalAttributes,
    can_reply: true,
    channel: "Channel::Api",
    contact_inbox: contactInboxRecord(state.contactInboxes.get(c.contactInboxId)!),
    id: c.displayId,
    inbox_id: c.inboxId,
    messages: last ? [messagePush(state, last)] : [],
    labels: [],
    meta: {
      sender: contactPush(state.contacts.get(c.contactId)!),
      assignee: assignee ? userPush(assignee) : null,
      team: null,
      hmac_verified: false,
    },
    status: c.status,
    custom_attributes: c.customAttributes,
    snoozed_until: null,
    unread_count: unreadCount(state, c),
    first_reply_created_at: c.firstReplyCreatedAt?.toISOString() ?? null,
    priority: null,
    waiting_since: unix(c.waitingSince),
    agent_last_seen_at: unix(c.agentLastSeenAt),
    contact_last_seen_at: 0,
    last_activity_at: unix(c.lastActivityAt),
    timestamp: unix(c.lastActivityAt),
    created_at: unix(c.createdAt),
    updated_at: c.updatedAt.getTime() / 1000,
  };
}

function senderWebhook(state: ChatwootMockState, m: Message): Obj | null {
  if (!m.sender) return null;
  if (m.sender.type === "Contact") {
    const c = state.contacts.get(m.sender.id);
    return c ? contactWebhook(state, c) : null;
  }
  const u = state.users.get(m.sender.id);
  return u ? userWebhook(u) : null;
}

/** `message_created` / `message_updated`: `message_type` by name, `created_at` as an ISO time. */
export function messageWebhook(state: ChatwootMockState, m: Message, event: string): Obj {
  const c = state.conversations.get(m.conversationKey)!;
  return {
    account: accountWebhook(state.accounts.get(m.accountId)!),
    additional_attributes: m.additionalAttributes,
    content_attributes: m.contentAttributes,
    content_type: m.contentType,
    content: m.content,
    conversation: conversationWebhook(state, c),
    created_at: m.createdAt.toISOString(),
    id: m.id,
    inbox: { id: m.inboxId, name: state.inboxes.get(m.inboxId)!.name },
    message_type: MESSAGE_TYPES[m.messageType],
    private: m.private,
    sender: senderWebhook(state, m),
    source_id: m.sourceId,
    ...(m.attachments.length ? { attachments: m.attachments.map((a) => attachmentView(state, a)) } : {}),
    event,
  };
}
