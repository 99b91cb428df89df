// `GET /_control/state`: everything the mock holds, flat and camelCased, for test assertions
// (attachments by size and type, not bytes; their bytes are at `dataUrl`).
import { dataUrl } from "./message-views.ts";
import { MESSAGE_TYPES } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";

export function snapshot(state: ChatwootMockState) {
  return {
    accounts: [...state.accounts.values()].map((a) => ({ id: a.id, name: a.name })),
    users: [...state.users.values()].map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      accountIds: [...u.accountIds],
      token: u.token,
    })),
    inboxes: [...state.inboxes.values()].map((i) => ({
      id: i.id,
      accountId: i.accountId,
      name: i.name,
      webhookUrl: i.webhookUrl,
      lockToSingleConversation: i.lockToSingleConversation,
    })),
    contacts: [...state.contacts.values()].map((c) => ({
      id: c.id,
      accountId: c.accountId,
      name: c.name,
      phoneNumber: c.phoneNumber,
      identifier: c.identifier,
      email: c.email,
      avatarUrl: c.avatarUrl,
    })),
    contactInboxes: [...state.contactInboxes.values()].map((ci) => ({
      id: ci.id,
      contactId: ci.contactId,
      inboxId: ci.inboxId,
      sourceId: ci.sourceId,
    })),
    conversations: [...state.conversations.values()].map((c) => ({
      id: c.displayId,
      accountId: c.accountId,
      inboxId: c.inboxId,
      contactId: c.contactId,
      sourceId: state.contactInboxes.get(c.contactInboxId)?.sourceId ?? null,
      status: c.status,
    })),
    messages: [...state.messages.values()].map((m) => ({
      id: m.id,
      accountId: m.accountId,
      conversationId: state.conversations.get(m.conversationKey)?.displayId ?? null,
      messageType: MESSAGE_TYPES[m.messageType],
      content: m.content,
      contentType: m.contentType,
      private: m.private,
      status: m.status,
      sourceId: m.sourceId,
      contentAttributes: m.contentAttributes,
      sender: m.sender,
      createdAt: m.createdAt.toISOString(),
      attachments: m.attachments.map((a) => ({
        id: a.id,
        fileType: a.fileType,
        filename: a.filename,
        mimetype: a.mimetype,
        size: a.data.length,
        dataUrl: dataUrl(state, a),
      })),
    })),
    deliveries: state.deliveries,
    requestCounts: Object.fromEntries(state.requestCounts),
    outageUntil: state.outageUntil > Date.now() ? state.outageUntil : null,
  };
}
