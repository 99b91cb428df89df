import { instanceExamples } from "./define.ts";
import {
  avatarLink,
  DELIVERY_ID,
  EVENT_ID,
  INSTANCE_ID,
  iso,
  MARIA,
  ME,
  NOW,
  NOW_S,
  RECEIVED_MESSAGE_ID,
  RECEIVED_NETWORK_ID,
  SENT_MESSAGE_ID,
  WEBHOOK_ID,
} from "./samples.ts";

const URL = "https://api.lojacentro.com.br/whatsapp/webhook";
const WEBHOOK = {
  id: WEBHOOK_ID,
  url: URL,
  events: ["message", "message.ack", "session.status"],
  active: true,
  deactivatedAt: null,
  deactivationReason: null,
  failingSince: null,
  responseTime: { medianMs: 84, p95Ms: 212 },
  createdAt: iso(NOW_S - 20 * 86_400),
  updatedAt: iso(NOW_S - 20 * 86_400),
};
const SECRET = "whsec_Qm3xT8vK1pZ6rN9bW2cL5yH7dF0gJ4sA";
const DELIVERY = {
  id: DELIVERY_ID,
  webhookId: WEBHOOK_ID,
  eventId: EVENT_ID,
  event: "message",
  status: "succeeded" as const,
  attempt: 1,
  httpStatus: 200,
  error: null,
  durationMs: 87,
  nextAttemptAt: null,
  manual: false,
  createdAt: NOW,
  lastAttemptAt: NOW,
};
const FAILED_DELIVERY = {
  ...DELIVERY,
  id: "dlv_01kf0t2b4d6f8h0k2m4p6r8t0w",
  eventId: "evt_01kf0t2b4d6f8h0k2m4p6r8t0w",
  event: "message.ack",
  status: "retrying" as const,
  attempt: 2,
  httpStatus: 503,
  error: "HTTP 503",
  durationMs: 1_204,
  nextAttemptAt: iso(NOW_S - 3_000 + 300),
  createdAt: iso(NOW_S - 3_070),
  lastAttemptAt: iso(NOW_S - 3_000),
};
const notFound = { not_found: { message: "Webhook não encontrado." } };
const refused = {
  url_not_allowed: {
    message: "URL não permitida: porta diferente de 80/443.",
    details: { url: "porta 8080 não permitida; use 80 ou 443" },
  },
};

/** A message event as webhooks and GET /events carry it (spec 2.11). */
const MESSAGE_EVENT = {
  id: EVENT_ID,
  event: "message" as const,
  instanceId: INSTANCE_ID,
  provider: "baileys",
  timestamp: NOW_S * 1000 - 2_000,
  payload: {
    id: RECEIVED_MESSAGE_ID,
    chatId: MARIA.id,
    chatLid: MARIA.lid,
    isGroup: false,
    chatName: MARIA.pushName,
    chatPicture: avatarLink(MARIA.id),
    fromMe: false,
    from: { id: MARIA.id, phone: MARIA.phone, lid: MARIA.lid, pushName: MARIA.pushName, picture: avatarLink(MARIA.id) },
    timestamp: NOW_S - 2,
    type: "text",
    text: "Oi! O tênis azul ainda tem no tamanho 38?",
    quotedId: null,
    referral: null,
    raw: {
      key: { remoteJid: `${MARIA.phone}@s.whatsapp.net`, fromMe: false, id: RECEIVED_NETWORK_ID },
      messageTimestamp: NOW_S - 2,
      pushName: MARIA.pushName,
      message: { conversation: "Oi! O tênis azul ainda tem no tamanho 38?" },
    },
  },
  me: { id: ME.id, phone: ME.phone, pushName: ME.pushName },
};

/** Spec 4.13 webhooks and 4.14 recent events (routers/webhooks.ts; test/e2e/webhooks.test.ts; docs/webhooks.md). */
export const webhooksExamples = instanceExamples({
  createWebhook: {
    body: { url: URL, events: ["message", "message.ack", "session.status"] },
    response: {
      ...WEBHOOK,
      responseTime: { medianMs: null, p95Ms: null },
      createdAt: NOW,
      updatedAt: NOW,
      secret: SECRET,
    },
    errors: {
      ...refused,
      validation_error: {
        message: "Limite de 5 webhooks por instância.",
        details: { webhooks: "no máximo 5 por instância" },
      },
    },
  },
  listWebhooks: { response: { data: [WEBHOOK] } },
  getWebhook: { response: WEBHOOK, errors: notFound },
  updateWebhook: {
    summary: "Reactivate a webhook deactivated by delivery failures",
    body: { active: true },
    response: { ...WEBHOOK, updatedAt: NOW },
    errors: {
      ...notFound,
      ...refused,
      validation_error: {
        message: "Campos inválidos.",
        details: { events: 'informe ao menos um evento, ou "*" para todos' },
      },
    },
  },
  deleteWebhook: { response: { success: true }, errors: notFound },
  rotateWebhookSecret: {
    response: { ...WEBHOOK, updatedAt: NOW, secret: "whsec_Vb7nM2qW5rT8yL1cF4hJ7kP0sA3eU6iO" },
    errors: notFound,
  },
  testWebhook: {
    response: { ...DELIVERY, eventId: "evt_01kf0v9c1e3g5j7m9p1s3v5x7z", event: "webhook.test", manual: true },
    errors: notFound,
  },
  listDeliveries: {
    query: { limit: 2 },
    response: { data: [DELIVERY, FAILED_DELIVERY], nextCursor: "1768484455000" },
    errors: { ...notFound, validation_error: { message: "Campos inválidos.", details: { cursor: "cursor inválido" } } },
  },
  retryDelivery: {
    path: { deliveryId: FAILED_DELIVERY.id },
    summary: "A resend is a new delivery (a new X-Service-Delivery) of the same event",
    response: {
      ...DELIVERY,
      id: "dlv_01kf0v9d2f4h6k8m0p2r4t6v8x",
      eventId: FAILED_DELIVERY.eventId,
      event: "message.ack",
      manual: true,
    },
    errors: { not_found: { message: "Entrega não encontrada." } },
  },
  listEvents: {
    query: { kind: "message,message.ack", since: (NOW_S - 3_600) * 1000, limit: 2 },
    response: {
      data: [
        MESSAGE_EVENT,
        {
          id: "evt_01kf0v6q8s0v2x4z6b8d0f2h4k",
          event: "message.ack",
          instanceId: INSTANCE_ID,
          provider: "baileys",
          timestamp: NOW_S * 1000 - 65_000,
          payload: { id: SENT_MESSAGE_ID, chatId: MARIA.id, status: "read", timestamp: NOW_S - 65 },
          me: { id: ME.id, phone: ME.phone, pushName: ME.pushName },
        },
      ],
      nextCursor: "1768487460000-0",
    },
    errors: { validation_error: { message: "Campos inválidos.", details: { cursor: "cursor inválido" } } },
  },
});
