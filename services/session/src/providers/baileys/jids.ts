import { jidDecode, type WAMessageKey } from "@whiskeysockets/baileys";

// The gateway's chat and message ids ⇄ Baileys' JIDs and message keys (spec 2.6, reference §7).

// ── chat ids and JIDs ────────────────────────────────────────────────────────

const PN_RE = /^(\d{5,20})@(?:c\.us|s\.whatsapp\.net)$/;
const LID_RE = /^\d{5,25}@lid$/;
const GROUP_RE = /^\d{5,25}(?:-\d{5,15})?@g\.us$/;
const NEWSLETTER_RE = /^\d{5,25}@newsletter$/;

/** Where status posts go (spec 4.8): the network fans them out to `statusJidList` only. */
export const STATUS_JID = "status@broadcast";

/** A gateway chat id (`<digits>@c.us`, `@lid`, `@g.us`, `@newsletter`) as the JID Baileys sends to; null if malformed. */
export function toJid(chatId: string): string | null {
  const id = chatId.trim();
  const pn = PN_RE.exec(id);
  if (pn) return `${pn[1]}@s.whatsapp.net`;
  if (LID_RE.test(id) || GROUP_RE.test(id) || NEWSLETTER_RE.test(id)) return id;
  return null;
}

/** A user JID (participant, mention): `<digits>@c.us` / `@s.whatsapp.net` / bare digits → PN JID, or `@lid`. */
export function toUserJid(id: string): string | null {
  const v = id.trim();
  if (/^\d{5,20}$/.test(v)) return `${v}@s.whatsapp.net`;
  const pn = PN_RE.exec(v);
  if (pn) return `${pn[1]}@s.whatsapp.net`;
  if (LID_RE.test(v)) return v;
  return null;
}

/** A Baileys JID as the gateway shows it: PN users `<digits>@c.us` (no device), LIDs without device, others as they are. */
export function toChatId(jid: string): string {
  const d = jidDecode(jid);
  if (!d?.user) return jid;
  if (d.server === "s.whatsapp.net" || d.server === "c.us") return `${d.user}@c.us`;
  if (d.server === "lid") return `${d.user}@lid`;
  return jid;
}

/**
 * The other form of a Brazilian mobile number: `55` + area + `9` + 8 digits ⇄ `55` + area + 8 digits
 * (the ninth digit, added 2012–2016; accounts registered before may still use the old form).
 * Only mobile numbers (the 8-digit part starts with 6–9; landlines never got the 9); null otherwise.
 */
export function brazilianAlternative(digits: string): string | null {
  const withNine = /^55([1-9]\d)9([6-9]\d{7})$/.exec(digits);
  if (withNine) return `55${withNine[1]}${withNine[2]}`;
  const withoutNine = /^55([1-9]\d)([6-9]\d{7})$/.exec(digits);
  if (withoutNine) return `55${withoutNine[1]}9${withoutNine[2]}`;
  return null;
}

// ── message ids ──────────────────────────────────────────────────────────────

const ID_RE = /^(true|false)_([^_]+)_([0-9A-Za-z]+)(?:_([^_]+))?$/;
const BARE_ID_RE = /^[0-9A-Za-z]{1,128}$/;

/**
 * Our message id `{fromMe}_{chatId}_{id}[_{participant}]` (spec 2.6, reference §7) as a Baileys key.
 * Undefined when the string is not in that format (a bare network id, or garbage).
 */
export function parseMessageId(value: string): WAMessageKey | undefined {
  const m = ID_RE.exec(value.trim());
  if (!m) return undefined;
  const remoteJid = toJid(m[2]!);
  if (!remoteJid) return undefined;
  const key: WAMessageKey = { remoteJid, fromMe: m[1] === "true", id: m[3]! };
  if (m[4] !== undefined) {
    const participant = toUserJid(m[4]);
    if (!participant) return undefined;
    key.participant = participant;
  }
  return key;
}

/** The inverse of {@link parseMessageId}: chat and participant in gateway form (`@c.us`). */
export function formatMessageId(key: WAMessageKey): string {
  const base = `${key.fromMe ? "true" : "false"}_${toChatId(key.remoteJid ?? "")}_${key.id ?? ""}`;
  return key.participant ? `${base}_${toChatId(key.participant)}` : base;
}

export function isBareMessageId(value: string): boolean {
  return BARE_ID_RE.test(value.trim());
}
