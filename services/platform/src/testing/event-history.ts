// Envelopes as producers publish them, for the tests of the 7-day history's stored form
// (events/history-codec.test.ts, events/bus-history.test.ts): a standard instance (its push name
// with quotes, a backslash and an emoji), an official one, one not yet paired (`me` null), and
// the kinds a message makes and a few others, in the payload shapes of services/session/src/events/.
import type { EventEnvelope, EventKind } from "@gw/contracts";
import { eventEnvelope, stableEventId } from "../events/bus.ts";

export const STANDARD = {
  id: "i4w2kq9xz0c7h5m3n8p1r6t2v",
  provider: "baileys" as const,
  phone: "5511999990001",
  pushName: 'Loja "Central" \\ 🛒',
};
export const OFFICIAL = {
  id: "i7d3f0g9h2j5k8m1n4p6q0r3s",
  provider: "cloud" as const,
  phone: "5511988887777",
  pushName: "Acme",
};
export const UNPAIRED = { id: "i0a1b2c3d4e5f6g7h8j9k0m1n", provider: "sim" as const, phone: "", pushName: "" };

type Source = typeof STANDARD | typeof OFFICIAL | typeof UNPAIRED;

const CONTACT = "5511900000001";
const CHAT = `${CONTACT}@c.us`;
const GROUP = "120363041234567890@g.us";
const SIG = "r5qtWN1xpnjXfLavKZ1MH8S00uNcysWgfI8arDPDP9s";
/** Payload seconds: now, as producers stamp them. */
const S = Math.floor(Date.now() / 1000);

const avatar = (src: Source, id: string) => `https://gw.example.com/v1/avatars/${src.id}/${id}.jpg?exp=${S}&sig=${SIG}`;
const me = (src: Source) => ({
  id: `${src.phone}@c.us`,
  phone: src.phone,
  lid: null,
  pushName: src.pushName,
  picture: src.provider === "cloud" ? null : avatar(src, `${src.phone}@c.us`),
});

/** `message.any` of a text sent through the API (services/session/src/events/sent.ts's key order). */
function sentText(src: Source, text: string) {
  return {
    id: `true_${CHAT}_3EB0C4F1D2A3B4C5D6E7`,
    chatId: CHAT,
    isGroup: false,
    fromMe: true,
    from: me(src),
    timestamp: S,
    source: "api",
    chatLid: null,
    chatName: null,
    chatPicture: src.provider === "cloud" ? null : avatar(src, CHAT),
    type: "text",
    text,
    status: "sent",
    quotedId: null,
    raw: src.provider === "cloud" ? { messaging_product: "whatsapp", to: CONTACT, text: { body: text } } : { text },
  };
}

/** A received group image (inbound.ts's key order): a lid, mentions, a media link, the network's raw message. */
function receivedGroupImage(src: Source) {
  return {
    id: `false_${GROUP}_3EB0ABCDEF_${CHAT}`,
    chatId: GROUP,
    chatLid: null,
    isGroup: true,
    chatName: "Família 👪",
    chatPicture: avatar(src, GROUP),
    fromMe: false,
    from: { id: CHAT, phone: CONTACT, lid: "98765432101234@lid", pushName: "Ana", picture: avatar(src, CHAT) },
    timestamp: S - 5,
    type: "image",
    text: "olha isso @5511999990001",
    media: {
      url: `https://gw.example.com/v1/files/${src.id}/false_${GROUP}_3EB0ABCDEF.jpeg?exp=${S}&sig=${SIG}`,
      mimetype: "image/jpeg",
      filename: null,
    },
    quotedId: null,
    mentions: [`${src.phone}@c.us`],
    referral: null,
    raw: { imageMessage: { caption: "olha isso", mimetype: "image/jpeg", fileLength: "48213", jpegThumbnail: "" } },
  };
}

/** A received official message: an ad's referral, an interactive reply, the operator's raw message. */
function receivedOfficial() {
  return {
    id: `false_${CHAT}_wamid.HBgNNTUxMTkwMDAwMDAwMRUCABIYFjNFQjA=`,
    chatId: CHAT,
    chatLid: null,
    isGroup: false,
    chatName: null,
    chatPicture: null,
    fromMe: false,
    from: { id: CHAT, phone: CONTACT, lid: null, pushName: "Ana", picture: null },
    timestamp: S,
    type: "button_reply",
    text: "Sim, quero",
    quotedId: `true_${CHAT}_wamid.HBgNNTUxMTkwMDAwMDAwMRUCABEYEjk=`,
    referral: {
      sourceType: "ad",
      sourceId: "120210000000000",
      sourceUrl: "https://fb.me/abc",
      headline: "Promo",
      body: "Só hoje",
      mediaType: "image",
      clickId: "ARAkLk",
    },
    interactive: { type: "button_reply", id: "yes", title: "Sim, quero" },
    raw: { from: CONTACT, id: "wamid.HBgN", type: "interactive", interactive: { button_reply: { id: "yes" } } },
  };
}

const ack = (status: string, seconds = S) => ({
  id: `true_${CHAT}_3EB0C4F1D2A3B4C5D6E7`,
  chatId: CHAT,
  status,
  timestamp: seconds,
});

/** Envelopes of the three instances, published now. */
export function historyCases(): EventEnvelope[] {
  const cases: [Source, EventKind, Record<string, unknown>, string?][] = [
    [STANDARD, "message.any", sentText(STANDARD, 'Olá! 👋 "aspas", \\barra\\ e\nnova linha — null true')],
    [STANDARD, "message.ack", ack("sent")],
    [STANDARD, "message.ack", ack("delivered")],
    [STANDARD, "message.ack", ack("read", S + 40)],
    [STANDARD, "message", receivedGroupImage(STANDARD)],
    [STANDARD, "message.any", receivedGroupImage(STANDARD)],
    [
      STANDARD,
      "message.ack.group",
      { id: `true_${GROUP}_3EB0FF`, chatId: GROUP, participant: me(STANDARD), status: "read", timestamp: S },
    ],
    [STANDARD, "message.reaction", { ...receivedGroupImage(STANDARD), type: "reaction", messageId: null, emoji: "❤️" }],
    [STANDARD, "presence.update", { chatId: CHAT, presences: [{ participant: CHAT, lastKnownPresence: "typing" }] }],
    [STANDARD, "group.update", { group: { id: GROUP, name: "Família 👪" }, subject: "Família 👪", by: CHAT }],
    [STANDARD, "call.received", { id: "CALL1", from: CHAT, isVideo: false, isGroup: false, timestamp: S }],
    [
      STANDARD,
      "session.status",
      { status: "WORKING", previousStatus: "STARTING", reason: null, detail: null, retryAt: null, timestamp: S },
    ],
    [OFFICIAL, "message", receivedOfficial()],
    [OFFICIAL, "message.any", receivedOfficial()],
    [
      OFFICIAL,
      "message.any",
      { ...sentText(OFFICIAL, "Seu pedido saiu"), template: { name: "pedido", language: "pt_BR" } },
    ],
    [OFFICIAL, "message.ack", ack("sent")],
    [
      OFFICIAL,
      "message.ack",
      {
        ...ack("delivered"),
        pricing: { category: "utility", type: "regular", billable: true, pricingModel: "PMP", conversation: undefined },
      },
    ],
    [OFFICIAL, "message.ack", { ...ack("failed"), error: { code: 131026, message: "Message undeliverable" } }],
    // Derived ids (services/session/src/providers/cloud/process.ts): their ULID's time is the item's.
    [OFFICIAL, "message.ack", ack("read"), stableEventId(`${OFFICIAL.id}|wamid.X|read`, (S - 3) * 1000)],
    [OFFICIAL, "template.status", { name: "pedido", language: "pt_BR", status: "APPROVED", reason: null }],
    [OFFICIAL, "phone.quality", { quality: "GREEN", limit: "TIER_1K" }],
    [OFFICIAL, "webhook.test", { webhookId: "wh_1", message: "test" }],
    [
      UNPAIRED,
      "session.status",
      { status: "SCAN_QR_CODE", previousStatus: "STARTING", reason: null, detail: null, retryAt: null, timestamp: S },
    ],
  ];
  return cases.map(([src, kind, payload, id]) => eventEnvelope(src, kind, payload, id));
}
