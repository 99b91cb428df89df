import type { OutboundContent } from "@gw/contracts";
import { normalizeMessageContent, proto } from "@whiskeysockets/baileys";

// A Baileys message's content → its kind and fields (the table in inbound.ts).

export type IMessage = proto.IMessage;
export type IContextInfo = proto.IContextInfo;
type IPollCreation = proto.Message.IPollCreationMessage;

/** Message parts that are never a message of their own. */
const SILENT_PARTS = new Set([
  "senderKeyDistributionMessage",
  "fastRatchetKeySenderKeyDistributionMessage",
  "messageContextInfo",
  "protocolMessage",
  "keepInChatMessage",
  "pinInChatMessage",
  "encReactionMessage",
  "encCommentMessage",
  "secretEncryptedMessage",
  "stickerSyncRmrMessage",
  "albumMessage",
  "messageHistoryBundle",
  "messageHistoryNotice",
  "placeholderMessage",
  "deviceSentMessage",
  "callLogMesssage",
  "call",
  "chat",
]);

export const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/** The text a content shows: body, else caption. */
function textOfContent(m: IMessage | null | undefined): string | null {
  const c = normalizeMessageContent(m);
  if (!c) return null;
  return (
    str(c.conversation) ??
    str(c.extendedTextMessage?.text) ??
    str(c.imageMessage?.caption) ??
    str(c.videoMessage?.caption) ??
    str(c.ptvMessage?.caption) ??
    str(c.documentMessage?.caption) ??
    null
  );
}

export function pollOf(c: IMessage | null | undefined, depth = 0): IPollCreation | null {
  if (!c) return null;
  const direct = c.pollCreationMessage ?? c.pollCreationMessageV2 ?? c.pollCreationMessageV3 ?? c.pollCreationMessageV5;
  if (direct) return direct;
  // V4 is a future-proof wrapper around one of the others.
  return depth < 2 ? pollOf(c.pollCreationMessageV4?.message, depth + 1) : null;
}

export function referralOf(ctx: IContextInfo | null | undefined): Record<string, string> | null {
  const ad = ctx?.externalAdReply;
  if (!ad || !(ad.sourceId || ad.ctwaClid || ad.sourceType)) return null;
  const mediaType =
    ad.mediaType === proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE
      ? "image"
      : ad.mediaType === proto.ContextInfo.ExternalAdReplyInfo.MediaType.VIDEO
        ? "video"
        : "";
  return {
    sourceType: ad.sourceType ?? "",
    sourceId: ad.sourceId ?? "",
    sourceUrl: ad.sourceUrl ?? "",
    headline: ad.title ?? "",
    body: ad.body ?? "",
    mediaType,
    clickId: ad.ctwaClid ?? "",
  };
}

/** vCard `FN` and first `TEL` (with its `waid`), as the contract's contact. */
function contactOfVCard(vcard: string | null | undefined, displayName: string | null | undefined) {
  const lines = (vcard ?? "").split(/\r?\n/);
  const unescapeText = (v: string) => v.replace(/\\n/gi, "\n").replace(/\\([,;\\])/g, "$1");
  const fn = lines.find((l) => /^FN[:;]/i.test(l));
  const fullName = (fn ? unescapeText(fn.slice(fn.indexOf(":") + 1)).trim() : "") || displayName?.trim() || "";
  const tel = lines.find((l) => /^(item\d+\.)?TEL[:;]/i.test(l));
  const phoneNumber = tel ? tel.slice(tel.indexOf(":") + 1).trim() : "";
  const waid = tel ? /waid=(\d+)/i.exec(tel)?.[1] : undefined;
  const org = lines.find((l) => /^ORG[:;]/i.test(l));
  const organization = org
    ? unescapeText(org.slice(org.indexOf(":") + 1))
        .replace(/;+$/, "")
        .trim()
    : "";
  if (!fullName || !phoneNumber) return null;
  return {
    fullName,
    phoneNumber,
    ...(organization ? { organization } : {}),
    ...(waid ? { whatsappId: `${waid}@c.us` } : {}),
  };
}

// ── content ──────────────────────────────────────────────────────────────────

export interface Body {
  type: string;
  text: string | null;
  media?: { mimetype: string; filename?: string | null } | null;
  contextInfo?: IContextInfo | null;
  targetId?: string | null;
  emoji?: string;
  pollVote?: proto.Message.IPollUpdateMessage;
  eventResponse?: proto.Message.IEncEventResponseMessage;
  content?: OutboundContent;
  /** Edits: when the edit was made (seconds), if the edit says. */
  editedAt?: number | null;
}

function media(mimetype: string | null | undefined, fallback: string, filename?: string | null) {
  return { mimetype: str(mimetype) ?? fallback, filename: filename ?? null };
}

/** The message kind and its fields; null when the content is not a message of its own. */
export function bodyOf(c: IMessage): Body | null {
  if (str(c.conversation)) {
    const text = c.conversation!;
    return { type: "text", text, content: { type: "text", text } };
  }
  if (c.extendedTextMessage) {
    const m = c.extendedTextMessage;
    const text = str(m.text);
    return {
      type: "text",
      text,
      contextInfo: m.contextInfo,
      ...(text ? { content: { type: "text", text } as OutboundContent } : {}),
    };
  }
  if (c.imageMessage) {
    const m = c.imageMessage;
    return { type: "image", text: str(m.caption), media: media(m.mimetype, "image/jpeg"), contextInfo: m.contextInfo };
  }
  if (c.videoMessage || c.ptvMessage) {
    const m = (c.videoMessage ?? c.ptvMessage)!;
    return { type: "video", text: str(m.caption), media: media(m.mimetype, "video/mp4"), contextInfo: m.contextInfo };
  }
  if (c.audioMessage) {
    const m = c.audioMessage;
    return {
      type: m.ptt ? "voice" : "audio",
      text: null,
      media: media(m.mimetype, m.ptt ? "audio/ogg; codecs=opus" : "audio/mpeg"),
      contextInfo: m.contextInfo,
    };
  }
  if (c.documentMessage) {
    const m = c.documentMessage;
    return {
      type: "document",
      text: str(m.caption),
      media: media(m.mimetype, "application/octet-stream", str(m.fileName) ?? str(m.title)),
      contextInfo: m.contextInfo,
    };
  }
  const sticker = c.stickerMessage ?? c.lottieStickerMessage?.message?.stickerMessage;
  if (sticker) {
    return {
      type: "sticker",
      text: null,
      media: media(sticker.mimetype, "image/webp"),
      contextInfo: sticker.contextInfo,
    };
  }
  if (c.locationMessage || c.liveLocationMessage) {
    const loc = c.locationMessage;
    const live = c.liveLocationMessage;
    const lat = loc?.degreesLatitude ?? live?.degreesLatitude;
    const lng = loc?.degreesLongitude ?? live?.degreesLongitude;
    const name = str(loc?.name);
    const address = str(loc?.address);
    const url = str(loc?.url);
    const content: OutboundContent | undefined =
      typeof lat === "number" && typeof lng === "number"
        ? {
            type: "location",
            latitude: lat,
            longitude: lng,
            ...(name ? { name } : {}),
            ...(address ? { address } : {}),
            ...(url ? { url } : {}),
          }
        : undefined;
    return {
      type: "location",
      text: name ?? address ?? str(loc?.comment) ?? str(live?.caption),
      contextInfo: (loc ?? live)?.contextInfo,
      ...(content ? { content } : {}),
    };
  }
  if (c.contactMessage || c.contactsArrayMessage) {
    const list = c.contactMessage ? [c.contactMessage] : (c.contactsArrayMessage?.contacts ?? []);
    const contacts = list.map((x) => contactOfVCard(x.vcard, x.displayName));
    const text = str(c.contactMessage?.displayName) ?? str(c.contactsArrayMessage?.displayName) ?? null;
    return {
      type: "contact",
      text,
      contextInfo: (c.contactMessage ?? c.contactsArrayMessage)?.contextInfo,
      ...(contacts.length && contacts.every(Boolean)
        ? { content: { type: "contacts", contacts: contacts as NonNullable<(typeof contacts)[number]>[] } }
        : {}),
    };
  }
  const poll = pollOf(c);
  if (poll) {
    const name = str(poll.name);
    const options = (poll.options ?? []).map((o) => o.optionName ?? "").filter(Boolean);
    return {
      type: "poll",
      text: name,
      contextInfo: poll.contextInfo,
      ...(name && options.length >= 2
        ? {
            content: {
              type: "poll",
              name,
              options,
              multipleAnswers: (poll.selectableOptionsCount ?? 0) !== 1,
            } as OutboundContent,
          }
        : {}),
    };
  }
  if (c.pollUpdateMessage) {
    return {
      type: "poll_vote",
      text: null,
      targetId: c.pollUpdateMessage.pollCreationMessageKey?.id ?? null,
      pollVote: c.pollUpdateMessage,
    };
  }
  if (c.encEventResponseMessage) {
    return {
      type: "event_response",
      text: null,
      targetId: c.encEventResponseMessage.eventCreationMessageKey?.id ?? null,
      eventResponse: c.encEventResponseMessage,
    };
  }
  if (c.reactionMessage) {
    return {
      type: "reaction",
      text: null,
      targetId: c.reactionMessage.key?.id ?? null,
      emoji: c.reactionMessage.text ?? "",
    };
  }
  if (c.protocolMessage) {
    const p = c.protocolMessage;
    const target = p.key?.id ?? null;
    if (p.type === proto.Message.ProtocolMessage.Type.REVOKE && target) {
      return { type: "revoke", text: null, targetId: target };
    }
    if (p.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT && target) {
      return {
        type: "edit",
        text: textOfContent(p.editedMessage),
        targetId: target,
        editedAt: p.timestampMs ? Math.floor(Number(String(p.timestampMs)) / 1000) || null : null,
      };
    }
    return null;
  }
  if (c.buttonsResponseMessage) {
    const m = c.buttonsResponseMessage;
    return {
      type: "button_reply",
      text: str(m.selectedDisplayText) ?? str(m.selectedButtonId),
      contextInfo: m.contextInfo,
    };
  }
  if (c.templateButtonReplyMessage) {
    const m = c.templateButtonReplyMessage;
    return { type: "button_reply", text: str(m.selectedDisplayText) ?? str(m.selectedId), contextInfo: m.contextInfo };
  }
  if (c.interactiveResponseMessage) {
    const m = c.interactiveResponseMessage;
    return { type: "button_reply", text: str(m.body?.text), contextInfo: m.contextInfo };
  }
  if (c.listResponseMessage) {
    const m = c.listResponseMessage;
    return {
      type: "list_reply",
      text: str(m.title) ?? str(m.singleSelectReply?.selectedRowId),
      contextInfo: m.contextInfo,
    };
  }
  // Anything else that is a message part of its own: "unknown", with whatever it names.
  const parts = Object.keys(c).filter((k) => (c as Record<string, unknown>)[k] != null && !SILENT_PARTS.has(k));
  const part = parts.find((k) => k.endsWith("Message"));
  if (!part) return null;
  const inner = (c as Record<string, { name?: unknown; caption?: unknown; contextInfo?: IContextInfo } | undefined>)[
    part
  ];
  return {
    type: "unknown",
    text: str(inner?.name) ?? str(inner?.caption),
    contextInfo: inner?.contextInfo ?? null,
  };
}
