// Test support (imported only by *.test.ts): received messages as Baileys hands them over, for
// the inbound mapping's tests (inbound/*.test.ts) and the session tests that feed a socket.
import { createHash, randomBytes } from "node:crypto";
import { aesEncryptGCM, hmacSign, proto, type WAMessage, type WAMessageKey } from "@whiskeysockets/baileys";
import { expect } from "vitest";
import { type InboundLookups, toInboundMessage } from "../inbound/inbound.ts";
import { PAIRED_ME } from "./testing.ts";

/**
 * Messages built with Baileys' own proto classes and sent through the wire format (encode →
 * decode), with the v7 key fields (`remoteJidAlt`, `participantAlt`, `addressingMode`) set the
 * way `decodeMessageNode` sets them; the parties as the mapping names them; lookups as the
 * session gives them; a vote encrypted as the voter's client would.
 */

export const ME = PAIRED_ME;
export const ME_PN = "5511999999999@s.whatsapp.net";
export const ME_LID = "123456789@lid";
export const CONTACT_PN = "5511988887777@s.whatsapp.net";
export const CONTACT_LID = "222233334444555@lid";
export const MEMBER_PN = "5521977776666@s.whatsapp.net";
export const MEMBER_LID = "333344445555666@lid";
export const STRANGER_LID = "999988887777666@lid";
export const GROUP = "120363000000000001@g.us";
export const T = 1_790_000_000;

/** A received message as Baileys hands it over: proto content decoded from the wire, v7 key fields added. */
export function wa(input: {
  key: WAMessageKey;
  message?: proto.IMessage | null;
  pushName?: string;
  messageTimestamp?: number;
  status?: proto.WebMessageInfo.Status;
  messageStubType?: proto.WebMessageInfo.StubType;
}): WAMessage {
  const { key, ...rest } = input;
  const info = proto.WebMessageInfo.fromObject({
    key: { remoteJid: key.remoteJid, fromMe: key.fromMe ?? false, id: key.id, participant: key.participant },
    messageTimestamp: T,
    ...rest,
  });
  const decoded = proto.WebMessageInfo.decode(proto.WebMessageInfo.encode(info).finish()) as WAMessage;
  decoded.key = { ...key, fromMe: key.fromMe ?? false };
  return decoded;
}

/** One-to-one from the contact, number-addressed (`remoteJidAlt` = its LID). */
export const dmKey = (id: string, over: Partial<WAMessageKey> = {}): WAMessageKey => ({
  remoteJid: CONTACT_PN,
  remoteJidAlt: CONTACT_LID,
  addressingMode: "pn",
  fromMe: false,
  id,
  ...over,
});
/** A group message from a member, LID-addressed (`participantAlt` = the member's number). */
export const groupKey = (id: string, over: Partial<WAMessageKey> = {}): WAMessageKey => ({
  remoteJid: GROUP,
  participant: MEMBER_LID,
  participantAlt: MEMBER_PN,
  addressingMode: "lid",
  fromMe: false,
  id,
  ...over,
});

export function lookups(extra: Partial<InboundLookups> = {}, stored = new Map<string, WAMessage>()): InboundLookups {
  // Baileys' getPNForLID answers with the device suffix.
  const lidStore = new Map([[CONTACT_LID, "5511988887777:0@s.whatsapp.net"]]);
  return {
    me: ME,
    pnForLid: async (lid) => lidStore.get(lid) ?? null,
    loadMessage: async (id) => stored.get(id),
    ...extra,
  };
}

export const map = async (msg: WAMessage, l: InboundLookups = lookups()) => {
  const out = await toInboundMessage(msg, l);
  expect(out).not.toBeNull();
  return out!;
};

export const CONTACT_PARTY = { id: "5511988887777@c.us", phone: "5511988887777", lid: CONTACT_LID, pushName: "Bia" };
export const MEMBER_PARTY = { id: "5521977776666@c.us", phone: "5521977776666", lid: MEMBER_LID, pushName: "Caio" };
export const ME_PARTY = { id: "5511999999999@c.us", phone: "5511999999999", lid: ME_LID };

// ── poll votes ───────────────────────────────────────────────────────────────

/** What the voter's client does (the inverse of Baileys' `decryptPollVote`), with Baileys' own primitives. */
export function encryptVote(
  names: string[],
  ctx: { pollMsgId: string; pollCreatorJid: string; voterJid: string; secret: Uint8Array },
): proto.Message.IPollEncValue {
  const sign = Buffer.concat([
    Buffer.from(ctx.pollMsgId),
    Buffer.from(ctx.pollCreatorJid),
    Buffer.from(ctx.voterJid),
    Buffer.from("Poll Vote"),
    new Uint8Array([1]),
  ]);
  const key0 = hmacSign(ctx.secret, new Uint8Array(32), "sha256");
  const encKey = hmacSign(sign, key0, "sha256");
  const iv = randomBytes(12);
  const plain = proto.Message.PollVoteMessage.encode({
    selectedOptions: names.map((n) => createHash("sha256").update(n).digest()),
  }).finish();
  return {
    encPayload: aesEncryptGCM(plain, encKey, iv, Buffer.from(`${ctx.pollMsgId}\u0000${ctx.voterJid}`)),
    encIv: iv,
  };
}

export const POLL_OPTIONS = ["Pizza", "Sushi", "Tacos"];
