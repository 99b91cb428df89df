// The stored form of a message: built from a spec 2.11 payload, written as one JSON string whose
// first fields are the ones the write scripts need (its place), read back into a MessageDoc.
import { parseMessageId } from "@gw/contracts";
import { ACK, ACK_OF_STATUS } from "./acks.ts";
import type { MessageDoc, Payload, RecordExtra } from "./types.ts";

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/**
 * The score of a message in the message sets: its second (`timestamp`, the network's) × 1000
 * plus the millisecond it was recorded within that second, so that messages of one second keep
 * their arrival order. A message recorded after its second ended (the network stamped it at
 * x.998 s, it reached us at x+1.002 s) counts as the second's last millisecond, never as an
 * early one: a later arrival never sorts before an earlier one of the same second.
 */
export function sortKeyOf(timestamp: number, recordedAtMs: number): number {
  return timestamp * 1000 + Math.min(999, Math.max(0, recordedAtMs - timestamp * 1000));
}

/** The order of the message pages (ascending): sortKey, then network id (byte order, as Redis sorts members). */
export function compareEntries(scoreA: number, idA: string, scoreB: number, idB: string): number {
  if (scoreA !== scoreB) return scoreA < scoreB ? -1 : 1;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

const MAX_RAW_CHARS = 32_768;

/** The network's event as `_data`: media bytes left out (they have their own link), capped in size. */
export function sanitizeRaw(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  // Most events carry no bytes (our own sends' raw never does): kept as they are, without a
  // replacer call per key and a parse back (this runs for every message stored).
  const plain = JSON.stringify(raw);
  if (plain === undefined) return undefined;
  if (plain.length <= MAX_RAW_CHARS && !plain.includes('"data":"') && !plain.includes('"jpegThumbnail":"')) return raw;
  const text = JSON.stringify(raw, (key, value) =>
    (key === "data" || key === "jpegThumbnail") && typeof value === "string" && value.length > 512 ? undefined : value,
  );
  if (text === undefined) return undefined;
  if (text.length > MAX_RAW_CHARS) return { truncated: true };
  return JSON.parse(text);
}

/** A contact card (spec 2.8 `vCards`) from the contact fields of a send. */
export function vCardOf(c: { fullName: string; phoneNumber: string; organization?: string; whatsappId?: string }) {
  const digits = (c.whatsappId ?? c.phoneNumber).replace(/\D/g, "");
  const lines = ["BEGIN:VCARD", "VERSION:3.0", `FN:${c.fullName}`];
  if (c.organization) lines.push(`ORG:${c.organization};`);
  lines.push(`TEL;type=CELL;type=VOICE;waid=${digits}:+${c.phoneNumber.replace(/^\+/, "")}`, "END:VCARD");
  return lines.join("\n");
}

/** The stored form of a spec 2.11 message payload (null when it names no message). */
export function docOf(payload: Payload, extra: RecordExtra = {}, now = Date.now()): MessageDoc | null {
  const apiId = str(payload.id);
  const chatId = str(payload.chatId);
  if (!apiId || !chatId) return null;
  const networkId = extra.networkId ?? parseMessageId(apiId)?.id;
  if (!networkId) return null;
  const chatLid = str(payload.chatLid) ?? (chatId.endsWith("@lid") ? chatId : null);
  const isGroup = Boolean(payload.isGroup);
  const fromMe = Boolean(payload.fromMe);
  const from = (payload.from ?? {}) as { id?: string; lid?: string | null; pushName?: string };
  // Whole seconds (spec 2.11): the stored header and the set scores are integers.
  const timestamp = Math.floor(Number(payload.timestamp)) || Math.floor(now / 1000);
  const media = payload.media as { url?: string | null; mimetype?: string; filename?: string | null } | undefined;
  const content = extra.content ?? null;
  const doc: MessageDoc = {
    networkId,
    chatId,
    fromMe,
    timestamp,
    sortKey: sortKeyOf(timestamp, now),
    ack: fromMe ? (ACK_OF_STATUS[String(payload.status ?? "sent")] ?? ACK.SERVER) : ACK.DEVICE,
    type: str(payload.type) ?? "unknown",
    body: str(payload.text) ?? "",
  };
  if (chatLid) doc.chatLid = chatLid;
  if (isGroup) doc.isGroup = true;
  if (isGroup && !fromMe && from.id) {
    doc.participant = from.id;
    if (from.lid) doc.participantLid = from.lid;
  }
  if (from.pushName) doc.pushName = from.pushName;
  if (media?.mimetype) {
    doc.hasMedia = true;
    doc.media = {
      mimetype: media.mimetype,
      ...(media.filename ? { filename: media.filename } : {}),
      available: Boolean(media.url),
    };
  }
  const source = str(payload.source);
  if (source === "api" || source === "app") doc.source = source;
  const quotedId = str(payload.quotedId);
  if (quotedId) doc.quotedId = quotedId;
  if (Array.isArray(payload.mentions) && payload.mentions.length) doc.mentions = payload.mentions.map(String);
  if (payload.forwarded) doc.forwarded = true;
  if (content?.type === "contacts") doc.vCards = content.contacts.map(vCardOf);
  if (content?.type === "location") {
    const c = content as typeof content & { live?: boolean };
    doc.location = {
      latitude: String(c.latitude),
      longitude: String(c.longitude),
      ...(c.name ? { name: c.name, description: c.name } : {}),
      ...(c.address ? { address: c.address } : {}),
      ...(c.url ? { url: c.url } : {}),
      live: Boolean(c.live),
    };
  }
  if (extra.keep && payload.raw !== undefined) {
    doc.raw = payload.raw; // the content whole (ReadModel.keeps checked it)
    doc.keeps = true;
  } else {
    const raw = sanitizeRaw(payload.raw);
    if (raw !== undefined) doc.raw = raw;
  }
  return doc;
}

/**
 * The stored JSON of a message. Its first fields are always `networkId`, `chatId`, `chatLid`
 * (a string or null), `fromMe` and `sortKey`, in that order: the scripts read a message's place
 * (which sets hold it, its score) from the first bytes with {@link HEADER_LUA}, without decoding
 * the document (its `raw` can be 32 KB). The ack is not stored here: it is the score of the
 * message in its ack sets (acks.ts), so that an ack writes one sorted-set score and nothing else.
 */
export function docJson(doc: MessageDoc): string {
  const { networkId, chatId, chatLid, fromMe, sortKey, ack: _ack, ...rest } = doc;
  // `rest` always holds timestamp, type and body: never an empty object.
  return (
    `{"networkId":${JSON.stringify(networkId)},"chatId":${JSON.stringify(chatId)},` +
    `"chatLid":${chatLid ? JSON.stringify(chatLid) : "null"},"fromMe":${fromMe},"sortKey":${sortKey},` +
    JSON.stringify(rest).slice(1)
  );
}

/**
 * Lua pattern of {@link docJson}'s header: captures chatId, chatLid (`null` or a quoted string),
 * fromMe (`true`/`false`) and sortKey. Ids are JIDs and network ids: no quotes, commas or escapes.
 */
export const HEADER_LUA = `'^{"networkId":"[^"]*","chatId":"([^"]*)","chatLid":([^,]*),"fromMe":(%a+),"sortKey":(%d+)[,}]'`;

/** A stored message's JSON → the document, its ack given (it lives in the ack sets). */
export function parseDoc(json: string, ack: number): MessageDoc {
  const doc = JSON.parse(json) as MessageDoc & { chatLid?: string | null };
  if (doc.chatLid === null) delete doc.chatLid;
  doc.ack = ack;
  return doc as MessageDoc;
}

/** Where a stored message is, as the write scripts answer it from the header: [chatId, lid|"null", "true"|"false", sortKey]. */
export interface Place {
  chatId: string;
  chatLid: string | null;
  fromMe: boolean;
  sortKey: number;
}

export function placeOf(reply: unknown[], from: number): Place | null {
  const chatId = reply[from];
  if (typeof chatId !== "string") return null;
  const lid = String(reply[from + 1]);
  return {
    chatId,
    chatLid: lid === "null" ? null : lid.slice(1, -1),
    fromMe: reply[from + 2] === "true",
    sortKey: Number(reply[from + 3]),
  };
}
