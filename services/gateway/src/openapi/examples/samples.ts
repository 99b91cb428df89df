import type { Instance, QueueItem } from "@gw/contracts";

/**
 * The one small world every example of the OpenAPI document lives in: an instance of a shop in
 * São Paulo, its customers, a group and a channel. The same ids everywhere, so the examples of
 * different routes tell one story (the message sent in one is read in another).
 */

export const BASE_URL = "https://gateway.example.com";

export const INSTANCE_ID = "i3k9m2x7q4w8e1r5t6y0u2";
/** An official-gateway instance of the same shop (the operator's number). */
export const OFFICIAL_INSTANCE_ID = "i8w2e5r7t1y4u6o9p3a0s5d7";
export const OFFICIAL_PHONE = "551130304040";
export const ACCOUNT_ID = "acc_7hq2m9x4k8c1v5b3n6d0j2wt";

/** The connected account (the instance's own number). */
export const ME = {
  phone: "5511977776666",
  id: "5511977776666@c.us",
  lid: "104856201937411@lid",
  pushName: "Loja Centro",
} as const;

/** Customers. */
export const MARIA = {
  phone: "5511988887777",
  id: "5511988887777@c.us",
  lid: "187743636676218@lid",
  pushName: "Maria Souza",
} as const;
export const JOAO = {
  phone: "5521999998888",
  id: "5521999998888@c.us",
  lid: "26051843312750@lid",
  pushName: "João Pereira",
} as const;
/** Someone whose number the network hides: known only by privacy id. */
export const HIDDEN_LID = "93620158847302@lid";

export const GROUP_ID = "120363012345678901@g.us";
export const GROUP_SUBJECT = "Equipe de Vendas";
export const CHANNEL_ID = "120363098765432109@newsletter";

/** Network ids of messages and their API ids (spec 2.6: `{fromMe}_{chatId}_{id}`). */
export const SENT_NETWORK_ID = "3EB0C431C26A1916";
export const SENT_MESSAGE_ID = `true_${MARIA.id}_${SENT_NETWORK_ID}`;
export const RECEIVED_NETWORK_ID = "3A6F1B2C9D8E7F60A1B2";
export const RECEIVED_MESSAGE_ID = `false_${MARIA.id}_${RECEIVED_NETWORK_ID}`;
export const GROUP_MESSAGE_ID = `false_${GROUP_ID}_3AB9D2E47F1C05A6B3E8_${JOAO.id}`;

export const QUEUE_ID = "qm_01kf0v7x2m8q4w6e1r5t9y3h7a";
export const WEBHOOK_ID = "wh_5n8q2w4e6r1t3y7h9k0m2x4c";
export const DELIVERY_ID = "dlv_01kf0v8a3c5e7g9j1m3p5r7t9w";
export const EVENT_ID = "evt_01kf0v7x9d2f4h6k8m0p2r4t6v";
export const APP_ID = "app_4k7m2q9x5c8v1b3n6h0j";

/** "Now" of the examples: 2026-01-15 14:32:05 UTC. */
export const NOW_S = 1_768_487_525;
export const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
export const NOW = iso(NOW_S);
const DAY_S = 86_400;

/** A signed link as the gateway makes them (valid 24 h; no token needed). */
const signed = (path: string) =>
  `${BASE_URL}${path}?exp=${NOW_S + DAY_S}&sig=Yk3r0Q9mVx2bT7nH4sLc8pWd1eFa6uJg5zKq0iNo3RE`;
export const avatarLink = (chatId: string) => signed(`/v1/avatars/${INSTANCE_ID}/${chatId}.jpg`);
export const fileLink = (messageId: string, ext: string) => signed(`/v1/files/${INSTANCE_ID}/${messageId}.${ext}`);

/** A public file to send, and a base64 one (a 1×1 PNG). */
export const IMAGE_URL = "https://cdn.lojacentro.com.br/produtos/tenis-corrida-azul.jpg";
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const INSTANCE: Instance = {
  id: INSTANCE_ID,
  name: "Atendimento Loja Centro",
  accountId: ACCOUNT_ID,
  kind: "standard",
  phone: ME.phone,
  pushName: ME.pushName,
  provider: "baileys",
  connectionStatus: "WORKING",
  billingStatus: "active",
  cancelAtPeriodEnd: false,
  currentPeriodEnd: "2026-02-01T00:00:00.000Z",
  graceUntil: null,
  provisionedAt: "2025-11-03T12:00:00.000Z",
  createdAt: "2025-11-03T12:00:00.000Z",
  suspendedAt: null,
  trialEndsAt: null,
  settings: {
    client: { browserName: "Chrome", deviceName: "Messaging Gateway" },
    ignore: { broadcast: false, channels: false, groups: false, status: false },
    storage: { chats: true, contacts: true, groups: true, labels: true, messageSecrets: true, messages: true },
  },
};

/** A send just queued (HTTP 202): its place in line, nothing planned yet. */
export const queuedItem = (route: string, chatId: string = MARIA.id): QueueItem => ({
  id: QUEUE_ID,
  status: "queued",
  route,
  chatId,
  messageId: null,
  attempts: 0,
  position: 0,
  delayMs: null,
  typingMs: null,
  error: null,
  createdAt: NOW,
  expiresAt: iso(NOW_S + DAY_S),
  finishedAt: null,
});

/** A `file.url` the URL guard refuses (spec 4.13, 7). */
export const fileUrlRefused = {
  message: "URL não permitida: endereço interno.",
  details: { "file.url": "endereço interno (10.0.0.12)" },
};
