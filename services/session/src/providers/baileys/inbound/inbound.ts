import type { InboundMessage, InboundParty } from "@gw/contracts";
import {
  BufferJSON,
  getDevice,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isJidStatusBroadcast,
  normalizeMessageContent,
  proto,
  type WAMessage,
} from "@whiskeysockets/baileys";
import { nowSeconds, secondsOf } from "../seconds.ts";
import { eventResponseOf, pollVoteOptions } from "./inbound-add-ons.ts";
import { bodyOf, type IContextInfo, referralOf, str } from "./inbound-content.ts";
import { type InboundLookups, isMe, type Jids, meJids, partyOf, resolveUser, toCus } from "./inbound-ids.ts";

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
 *
 * The parts: inbound-ids.ts (JIDs → ids), inbound-content.ts (content → kind and fields),
 * inbound-add-ons.ts (poll votes and event responses decrypted); this file puts them together.
 */

export type { InboundLookups } from "./inbound-ids.ts";

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
  const timestamp = (body.type === "edit" ? body.editedAt : null) ?? secondsOf(msg.messageTimestamp) ?? nowSeconds();
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
