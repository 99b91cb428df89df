import { createHash } from "node:crypto";
import type { InboundMessage, InboundParty, OutboundContent } from "@gw/contracts";
import {
  areJidsSameUser,
  BufferJSON,
  decryptEventResponse,
  decryptPollVote,
  getDevice,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isJidStatusBroadcast,
  jidDecode,
  normalizeMessageContent,
  proto,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";

/**
 * Baileys 7 (rc14) received messages → the provider contract's {@link InboundMessage}.
 *
 * | Baileys content (after `normalizeMessageContent`: ephemeral, view-once, documentWithCaption, edited wrappers) | `type` |
 * |---|---|
 * | `conversation`, `extendedTextMessage` (quote, mentions, forwarded, `externalAdReply` → `referral`) | text |
 * | `imageMessage` / `videoMessage` (gif too) / `ptvMessage` (round note) | image / video |
 * | `audioMessage` (`ptt` → voice) / `documentMessage` / `stickerMessage` (+ lottie) | audio, voice / document / sticker |
 * | `locationMessage`, `liveLocationMessage` | location (text: name, else address, else caption) |
 * | `contactMessage`, `contactsArrayMessage` | contact (text: display name) |
 * | `pollCreationMessage` V1–V5 | poll (text: the question) |
 * | `pollUpdateMessage` | poll_vote: decrypted here with the stored poll's `messageSecret` (rc14 does not) |
 * | `encEventResponseMessage` | event_response: `response` going / not_going / maybe, decrypted the same way |
 * | `reactionMessage` | reaction (`emoji` "" = removed) |
 * | `protocolMessage` REVOKE / MESSAGE_EDIT | revoke / edit (`targetId` = the named message) |
 * | `buttonsResponseMessage`, `templateButtonReplyMessage`, `interactiveResponseMessage` / `listResponseMessage` | button_reply / list_reply |
 * | anything else with content | unknown |
 *
 * Skipped (null): `status@broadcast`, our own broadcast-list copies, stubs without content
 * (decryption failures, group notices, call logs), and messages that carry only protocol /
 * key-distribution / bookkeeping parts.
 *
 * Addressing (reference §3): ids come out as `<digits>@c.us` whenever Baileys reveals the number
 * (`remoteJidAlt` / `participantAlt`, else the local LID store through `pnForLid`), with the LID
 * kept in `chatLid` / `from.lid` so the session pod learns the pair; `@lid` only when the number
 * is unknown. Media is not downloaded here (`mediaData` null).
 */

export interface InboundLookups {
  /** Our account (`creds.me`): `from` of our own messages, and who created / voted in polls. */
  me?: { id?: string | null; lid?: string | null; name?: string | null } | null;
  /** The PN JID behind a LID, from Baileys' local mapping store (`lidMapping.getPNForLID`); null when unknown. */
  pnForLid?(lidJid: string): Promise<string | null>;
  /** A stored message by network id (poll votes need the poll's secret). */
  loadMessage?(id: string): Promise<WAMessage | undefined>;
  /** The conversation's name: group subject, contact name. Null when unknown. */
  chatName?(chat: { jid: string; pn: string | null; lid: string | null; isGroup: boolean }): Promise<string | null>;
  /** Told when a poll vote or event response could not be decrypted (diagnostics only). */
  onUndecrypted?(reason: string, key: WAMessageKey): void;
}

type IMessage = proto.IMessage;
type IContextInfo = proto.IContextInfo;
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

// ── ids ──────────────────────────────────────────────────────────────────────

interface Jids {
  /** `<digits>@s.whatsapp.net`, without device. */
  pn: string | null;
  /** `<id>@lid`, without device. */
  lid: string | null;
  /** Anything else (group, newsletter, bot), normalized. */
  other: string | null;
}

function decode(jid: string | null | undefined): { user: string; server: string } | null {
  if (!jid) return null;
  const d = jidDecode(jid);
  if (!d?.user) return null;
  return { user: d.user, server: d.server };
}

function pnJid(jid: string | null | undefined): string | null {
  const d = decode(jid);
  if (!d) return null;
  return d.server === "s.whatsapp.net" || d.server === "c.us" || d.server === "hosted"
    ? `${d.user}@s.whatsapp.net`
    : null;
}

function lidJid(jid: string | null | undefined): string | null {
  const d = decode(jid);
  if (!d) return null;
  return d.server === "lid" || d.server === "hosted.lid" ? `${d.user}@lid` : null;
}

const toCus = (pn: string) => `${pn.split("@")[0]}@c.us`;
const digitsOf = (pn: string) => pn.split("@")[0]!;

/** The PN / LID pair of a user JID and its alternative, asking the LID store when the number is not in the message. */
async function resolveUser(
  jid: string | null | undefined,
  alt: string | null | undefined,
  lookups: InboundLookups,
): Promise<Jids> {
  const pn = pnJid(jid) ?? pnJid(alt);
  const lid = lidJid(jid) ?? lidJid(alt);
  let resolved = pn;
  if (!resolved && lid && lookups.pnForLid) {
    try {
      resolved = pnJid(await lookups.pnForLid(lid));
    } catch {
      resolved = null;
    }
  }
  const other = !pn && !lid && jid ? jid : null;
  return { pn: resolved, lid, other };
}

function partyOf(j: Jids, pushName: string | null): InboundParty {
  return {
    id: j.pn ? toCus(j.pn) : (j.lid ?? j.other ?? ""),
    phone: j.pn ? digitsOf(j.pn) : null,
    lid: j.lid,
    pushName,
  };
}

function isMe(jid: string | null | undefined, lookups: InboundLookups): boolean {
  if (!jid) return false;
  const me = lookups.me;
  return Boolean((me?.id && areJidsSameUser(jid, me.id)) || (me?.lid && areJidsSameUser(jid, me.lid)));
}

function meJids(lookups: InboundLookups): Jids {
  return { pn: pnJid(lookups.me?.id), lid: lidJid(lookups.me?.lid), other: null };
}

// ── small readers ────────────────────────────────────────────────────────────

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/** Seconds from a protobuf Long / number / numeric string; null when absent. */
export function secondsOf(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === "number" ? v : Number(typeof v === "object" ? String(v) : v);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
}

/** The text a content shows: body, else caption. */
export function textOfContent(m: IMessage | null | undefined): string | null {
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

function pollOf(c: IMessage | null | undefined, depth = 0): IPollCreation | null {
  if (!c) return null;
  const direct = c.pollCreationMessage ?? c.pollCreationMessageV2 ?? c.pollCreationMessageV3 ?? c.pollCreationMessageV5;
  if (direct) return direct;
  // V4 is a future-proof wrapper around one of the others.
  return depth < 2 ? pollOf(c.pollCreationMessageV4?.message, depth + 1) : null;
}

function referralOf(ctx: IContextInfo | null | undefined): Record<string, string> | null {
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

interface Body {
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
function bodyOf(c: IMessage): Body | null {
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

// ── poll votes and event responses ───────────────────────────────────────────

const sha256Hex = (v: string | Uint8Array) => createHash("sha256").update(v).digest("hex");

function bytesOf(v: unknown): Uint8Array | null {
  if (v instanceof Uint8Array) return v.length ? v : null;
  if (typeof v === "string" && v.length) return Buffer.from(v, "base64");
  return null;
}

function uniq(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => Boolean(v)))];
}

/**
 * Decrypts an add-on (poll vote, event response) of a stored message. Both are AES-GCM under a
 * key derived from the original's `messageContextInfo.messageSecret`, its id, and the creator's
 * and the responder's JIDs as the responder's client wrote them — PN or LID (reference §4) — so
 * each combination is tried until the tag verifies. Null when the original is not stored, has no
 * secret, or nothing verifies (`onUndecrypted` says which).
 */
async function decryptAddOn<T>(
  originalId: string | null | undefined,
  enc: { encPayload?: Uint8Array | null; encIv?: Uint8Array | null } | null | undefined,
  responder: Jids,
  responderIsMe: boolean,
  lookups: InboundLookups,
  addOnKey: WAMessageKey,
  decrypt: (
    enc: { encPayload: Uint8Array; encIv: Uint8Array },
    ids: { msgId: string; creatorJid: string; responderJid: string; secret: Uint8Array },
    original: IMessage,
  ) => T,
): Promise<T | null> {
  const payload = bytesOf(enc?.encPayload);
  const iv = bytesOf(enc?.encIv);
  if (!originalId || !payload || !iv) {
    lookups.onUndecrypted?.("no original key or payload", addOnKey);
    return null;
  }
  const stored = lookups.loadMessage ? await lookups.loadMessage(originalId) : undefined;
  const content = normalizeMessageContent(stored?.message);
  const secret = bytesOf(
    stored?.message?.messageContextInfo?.messageSecret ?? content?.messageContextInfo?.messageSecret,
  );
  if (!stored || !content || !secret) {
    lookups.onUndecrypted?.(stored ? "original has no secret" : "original not stored", addOnKey);
    return null;
  }
  // The stored key is from our perspective (the add-on's copy of it is from the responder's).
  const me = meJids(lookups);
  const k = stored.key ?? {};
  const creator = k.fromMe
    ? me
    : await resolveUser(k.participant || k.remoteJid, k.participantAlt || k.remoteJidAlt, lookups);
  const respondent = responderIsMe ? me : responder;
  for (const creatorJid of uniq([creator.pn, creator.lid])) {
    for (const responderJid of uniq([respondent.pn, respondent.lid])) {
      try {
        return decrypt(
          { encPayload: payload, encIv: iv },
          { msgId: originalId, creatorJid, responderJid, secret },
          content,
        );
      } catch {
        // the tag did not verify with this pair: next
      }
    }
  }
  lookups.onUndecrypted?.("no creator/responder id pair decrypts it", addOnKey);
  return null;
}

/** The option names a vote selected; empty when it cannot be decrypted (or cleared the vote). */
async function pollVoteOptions(
  vote: proto.Message.IPollUpdateMessage,
  voter: Jids,
  voterIsMe: boolean,
  lookups: InboundLookups,
  voteKey: WAMessageKey,
): Promise<string[]> {
  const names = await decryptAddOn(
    vote.pollCreationMessageKey?.id,
    vote.vote,
    voter,
    voterIsMe,
    lookups,
    voteKey,
    (enc, ids, original) => {
      const poll = pollOf(original);
      if (!poll) throw new Error("not a poll");
      const selected = decryptPollVote(enc, {
        pollCreatorJid: ids.creatorJid,
        pollMsgId: ids.msgId,
        pollEncKey: ids.secret,
        voterJid: ids.responderJid,
      }).selectedOptions;
      const byHash = new Map((poll.options ?? []).map((o) => [sha256Hex(o.optionName ?? ""), o.optionName ?? ""]));
      return selected
        .map((h) => byHash.get(Buffer.from(h).toString("hex")))
        .filter((n): n is string => n !== undefined);
    },
  );
  return names ?? [];
}

const EVENT_RESPONSE_NAMES: Record<number, string> = {
  [proto.Message.EventResponseMessage.EventResponseType.GOING]: "going",
  [proto.Message.EventResponseMessage.EventResponseType.NOT_GOING]: "not_going",
  [proto.Message.EventResponseMessage.EventResponseType.MAYBE]: "maybe",
};

/** `going` / `not_going` / `maybe`; "" when it cannot be decrypted. */
async function eventResponseOf(
  enc: proto.Message.IEncEventResponseMessage,
  responder: Jids,
  responderIsMe: boolean,
  lookups: InboundLookups,
  key: WAMessageKey,
): Promise<string> {
  const response = await decryptAddOn(
    enc.eventCreationMessageKey?.id,
    enc,
    responder,
    responderIsMe,
    lookups,
    key,
    (e, ids, original) => {
      if (!original.eventMessage) throw new Error("not an event");
      return decryptEventResponse(e, {
        eventCreatorJid: ids.creatorJid,
        eventMsgId: ids.msgId,
        eventEncKey: ids.secret,
        responderJid: ids.responderJid,
      }).response;
    },
  );
  return (typeof response === "number" ? EVENT_RESPONSE_NAMES[response] : undefined) ?? "";
}

// ── the mapping ──────────────────────────────────────────────────────────────

/**
 * One Baileys message as the contract's inbound message, or null when it is not one (see the
 * table above). Never throws for odd content; lookups that fail count as "unknown".
 */
export async function toInboundMessage(msg: WAMessage, lookups: InboundLookups = {}): Promise<InboundMessage | null> {
  const key = msg.key;
  const remote = key?.remoteJid;
  const id = key?.id;
  if (!key || !remote || !id) return null;
  if (isJidStatusBroadcast(remote)) return null;
  const fromMe = Boolean(key.fromMe);
  const content = normalizeMessageContent(msg.message);
  if (!content) return null;
  const body = bodyOf(content);
  if (!body) return null;

  // Broadcast lists reach each recipient as the sender's 1:1 chat; our own copies are skipped.
  const broadcast = isJidBroadcast(remote);
  if (broadcast && (fromMe || !key.participant)) return null;
  const chatJid = broadcast ? key.participant! : remote;
  const isGroup = Boolean(isJidGroup(chatJid));
  const isChannel = Boolean(isJidNewsletter(chatJid));

  let chat: Jids;
  if (isGroup || isChannel) {
    chat = { pn: null, lid: null, other: chatJid };
  } else {
    // On our own copies remoteJidAlt may be our own alternative id (the sender's), not the chat's.
    const alt = fromMe && isMe(key.remoteJidAlt, lookups) ? null : key.remoteJidAlt;
    chat = await resolveUser(chatJid, alt, lookups);
  }
  const chatId = chat.pn ? toCus(chat.pn) : (chat.lid ?? chat.other ?? chatJid);

  const pushName = str(msg.pushName);
  let sender: Jids;
  let from: InboundParty;
  if (fromMe) {
    sender = meJids(lookups);
    from = partyOf(sender, pushName ?? str(lookups.me?.name));
  } else if (isGroup) {
    sender = await resolveUser(key.participant ?? key.participantAlt, key.participantAlt, lookups);
    from = partyOf(sender, pushName);
  } else if (isChannel) {
    sender = chat;
    from = { id: chatJid, phone: null, lid: null, pushName: null };
  } else {
    sender = chat;
    from = partyOf(chat, pushName);
  }

  let chatName: string | null = null;
  if (lookups.chatName) {
    try {
      chatName = await lookups.chatName({ jid: chatJid, pn: chat.pn, lid: chat.lid, isGroup });
    } catch {
      chatName = null;
    }
  }
  if (!chatName && !isGroup && !isChannel && !fromMe) chatName = pushName;

  const ctxInfo = body.contextInfo;
  const mentions = await mentionsOf(ctxInfo, lookups);
  const referral = referralOf(ctxInfo);
  const timestamp =
    (body.type === "edit" ? body.editedAt : null) ?? secondsOf(msg.messageTimestamp) ?? Math.floor(Date.now() / 1000);
  const device = fromMe ? getDevice(id) : null;

  const out: InboundMessage = {
    id,
    chatId,
    chatLid: isGroup || isChannel ? null : chat.lid,
    chatName,
    isGroup,
    fromMe,
    from,
    timestamp,
    type: body.type,
    text: body.text,
    media: body.media ?? null,
    quotedId: str(ctxInfo?.stanzaId),
    ...(mentions.length ? { mentions } : {}),
    ...(ctxInfo?.isForwarded ? { forwarded: true } : {}),
    origin: fromMe ? (device === "web" || device === "desktop" ? "device" : "phone") : null,
    referral,
    raw: msg,
    mediaData: null,
    ...(body.content ? { content: body.content } : {}),
  };
  if (body.targetId !== undefined) out.targetId = body.targetId;
  if (body.emoji !== undefined) out.emoji = body.emoji;
  if (body.pollVote) out.selectedOptions = await pollVoteOptions(body.pollVote, sender, fromMe, lookups, key);
  if (body.eventResponse) out.response = await eventResponseOf(body.eventResponse, sender, fromMe, lookups, key);
  return out;
}

async function mentionsOf(ctxInfo: IContextInfo | null | undefined, lookups: InboundLookups): Promise<string[]> {
  const out: string[] = [];
  for (const jid of ctxInfo?.mentionedJid ?? []) {
    const j = await resolveUser(jid, null, lookups);
    const v = j.pn ? toCus(j.pn) : (j.lid ?? null);
    if (v && !out.includes(v)) out.push(v);
  }
  return out;
}

/**
 * A stored message (`JSON.stringify(msg, BufferJSON.replacer)`) back as a WAMessage. Baileys'
 * proto classes serialize themselves (bytes as base64, enums as names), so the content goes back
 * through `proto.Message.fromObject`; the key stays as stored (it carries `remoteJidAlt` and the
 * other v7 fields the proto class does not know).
 */
export function parseStoredMessage(raw: string): WAMessage {
  const parsed = JSON.parse(raw, BufferJSON.reviver) as WAMessage;
  if (parsed.message) parsed.message = proto.Message.fromObject(parsed.message);
  return parsed;
}

/**
 * A message's stored form (what `ctx.rawMessages.save` keeps): `JSON.stringify(msg,
 * BufferJSON.replacer)`, with the key written out in full. A `proto.WebMessageInfo` instance
 * (our sends, placeholder resends) serializes through its own `toJSON`, which knows only the
 * proto's key fields and would drop `remoteJidAlt` / `participantAlt` / `addressingMode`.
 */
export function storedForm(msg: WAMessage): string {
  const own = (msg as { toJSON?: () => Record<string, unknown> }).toJSON;
  const base = typeof own === "function" ? own.call(msg) : msg;
  return JSON.stringify({ ...base, key: { ...msg.key } }, BufferJSON.replacer);
}
