import { instanceExamples } from "./define.ts";
import {
  avatarLink,
  fileLink,
  GROUP_ID,
  GROUP_SUBJECT,
  JOAO,
  MARIA,
  ME,
  NOW_S,
  RECEIVED_MESSAGE_ID,
  RECEIVED_NETWORK_ID,
  SENT_MESSAGE_ID,
  SENT_NETWORK_ID,
} from "./samples.ts";

const RECEIVED = {
  id: RECEIVED_MESSAGE_ID,
  chatId: MARIA.id,
  from: MARIA.id,
  to: ME.id,
  author: null,
  participant: null,
  body: "Oi! O tênis azul ainda tem no tamanho 38?",
  type: "text",
  fromMe: false,
  hasMedia: false,
  ack: 2,
  ackName: "DEVICE" as const,
  timestamp: NOW_S - 120,
  source: null,
  lid: MARIA.lid,
  vCards: [],
  media: null,
  location: null,
  quotedId: null,
  replyTo: null,
  edited: false,
  revoked: false,
  _data: {
    key: { remoteJid: `${MARIA.phone}@s.whatsapp.net`, fromMe: false, id: RECEIVED_NETWORK_ID },
    messageTimestamp: NOW_S - 120,
    pushName: MARIA.pushName,
    message: { conversation: "Oi! O tênis azul ainda tem no tamanho 38?" },
  },
};
const SENT = {
  ...RECEIVED,
  id: SENT_MESSAGE_ID,
  from: ME.id,
  to: MARIA.id,
  body: "Temos sim! Segue a foto do modelo.",
  type: "image",
  fromMe: true,
  hasMedia: true,
  ack: 3,
  ackName: "READ" as const,
  timestamp: NOW_S - 60,
  source: "api" as const,
  mediaUrl: fileLink(SENT_MESSAGE_ID, "jpg"),
  media: { url: fileLink(SENT_MESSAGE_ID, "jpg"), mimetype: "image/jpeg", filename: null, error: null },
  quotedId: RECEIVED_MESSAGE_ID,
  replyTo: {
    id: RECEIVED_MESSAGE_ID,
    body: "Oi! O tênis azul ainda tem no tamanho 38?",
    hasMedia: false,
    media: null,
    participant: null,
    _data: null,
  },
  _data: {
    key: { remoteJid: `${MARIA.phone}@s.whatsapp.net`, fromMe: true, id: SENT_NETWORK_ID },
    messageTimestamp: NOW_S - 60,
    message: { imageMessage: { mimetype: "image/jpeg", caption: "Temos sim! Segue a foto do modelo." } },
  },
};
const GROUP_LAST = {
  id: "3AB9D2E47F1C05A6B3E8",
  body: "Bati a meta da semana! 🎉",
  type: "text",
  fromMe: false,
  hasMedia: false,
  timestamp: NOW_S - 900,
};
const MARIA_CHAT = {
  id: MARIA.id,
  name: MARIA.pushName,
  lid: MARIA.lid,
  isGroup: false,
  picture: avatarLink(MARIA.id),
  timestamp: NOW_S - 60,
  unreadCount: 0,
  markedUnread: false,
  lastMessage: SENT,
};
const GROUP_CHAT = {
  id: GROUP_ID,
  name: GROUP_SUBJECT,
  lid: null,
  isGroup: true,
  picture: avatarLink(GROUP_ID),
  timestamp: NOW_S - 900,
  unreadCount: 3,
  markedUnread: false,
  lastMessage: GROUP_LAST,
};
const overview = (c: typeof MARIA_CHAT | typeof GROUP_CHAT) => ({
  id: c.id,
  name: c.name,
  picture: c.picture,
  lastMessage: c.lastMessage,
  unreadCount: c.unreadCount,
  isGroup: c.isGroup,
  lid: c.lid,
  _chat: c,
});
const notFound = { message: "Mensagem não encontrada." };

/** Spec 4.5 chats (routers/chats.ts; test/e2e/chats.test.ts; docs/read-model.md). */
export const chatsExamples = instanceExamples({
  chatsList: {
    query: { sortBy: "lastMessageAt", sortOrder: "desc", merge: true, limit: 20, offset: 0 },
    errors: {
      validation_error: { message: "Campos inválidos.", details: { sortBy: "sortBy: lastMessageAt, name ou id" } },
    },
    response: [MARIA_CHAT, GROUP_CHAT],
  },
  chatsOverview: {
    query: { limit: 20, offset: 0, ids: `${MARIA.id},${GROUP_ID}` },
    response: [overview(MARIA_CHAT), overview(GROUP_CHAT)],
    errors: { validation_error: { message: "Campos inválidos.", details: { ids: "chatId inválido: maria" } } },
  },
  chatsOverviewPost: {
    body: { pagination: { limit: 20, offset: 0, merge: true }, filter: { ids: [MARIA.id, GROUP_ID] } },
    response: [overview(MARIA_CHAT), overview(GROUP_CHAT)],
  },
  chatPicture: {
    path: { chatId: GROUP_ID },
    query: { refresh: false },
    response: { url: avatarLink(GROUP_ID) },
    errors: { not_found: { message: "Conversa sem foto visível." } },
  },
  chatMessages: {
    query: { limit: 2, offset: 0, downloadMedia: true, "filter.timestamp.gte": NOW_S - 86_400 },
    response: [SENT, { ...RECEIVED, ack: 3, ackName: "READ" }],
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { "filter.ack": "use ERROR, PENDING, SERVER, DEVICE, READ ou PLAYED" },
      },
    },
  },
  chatMessagesRead: {
    path: { chatId: JOAO.id },
    body: { messages: 10, days: 2 },
    response: {
      ids: [`false_${JOAO.id}_3A1C7E5B9D2F40A6C8E1`, `false_${JOAO.id}_3A0B6D4F8E1C37A5B9D2`],
    },
  },
  chatMessage: {
    path: { messageId: RECEIVED_MESSAGE_ID },
    query: { downloadMedia: false },
    response: { ...RECEIVED, ack: 3, ackName: "READ" },
    errors: { not_found: notFound },
  },
  chatMessageEdit: {
    body: { text: "Temos sim! Segue a foto do modelo azul." },
    response: { success: true },
    errors: {
      not_found: notFound,
      validation_error: {
        message: "Campos inválidos.",
        details: { messageId: "só mensagens enviadas por esta instância podem ser editadas" },
      },
    },
  },
  chatMessageDelete: {
    response: { success: true },
    errors: {
      not_found: notFound,
      validation_error: {
        message: "Campos inválidos.",
        details: { messageId: "só mensagens enviadas por esta instância podem ser apagadas" },
      },
    },
  },
  chatUnread: { response: {} },
});
