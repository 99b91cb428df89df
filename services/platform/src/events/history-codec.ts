import type { EventEnvelope } from "@gw/contracts";
import { BASE32_ALPHABET } from "../infra/ids.ts";

/**
 * How an event is kept in its instance's 7-day history (`recent:<instance>`, bus.ts), and read
 * back byte for byte as it was published (docs/webhooks.md "How the history keeps an event").
 * The history is most of what a message costs in Redis for 7 days (docs/scaling.md "What a
 * stored message costs"); its events are kept smaller, not differently: every reader gets the
 * published JSON, same keys, same order, same bytes.
 *
 * An entry is one field. Its name, the header, holds what every event of the instance repeats:
 * `instanceId`, `provider`, `me`. Redis keeps the field names of a stream node's first entry once
 * for the node, and for each later entry with the same names only its values: the header costs
 * once per node (~4 KB of entries), not once per event. Its value, the body, holds the rest:
 *
 *   header  = "\x01" instanceId "\x01" provider "\x01" me        (v1; JSON text, unquoted strings)
 *   body    = ulid kind [ "~" ms ] payload  |  "=" envelope
 *
 * - `ulid`: the id without `evt_` (26 characters, first: SEEK in stored.ts finds ids there);
 * - `kind`: one letter for the frequent kinds ({@link KIND_CODES}), else "." kind ":";
 * - `~ms`: `timestamp` minus the ULID's time, when not 0 (an id made with the event carries its time);
 * - `payload`: the payload's JSON with the fragments of {@link STATIC} and the instance's id, phone
 *   and push name each replaced by one control character (JSON text holds none raw: it escapes
 *   them); or, for `message.ack` (kind "K"), status letter, message id, and the chat and the
 *   seconds' offset when they are not what the id and `timestamp` give;
 * - `=`: the envelope itself, for what the forms above would not give back exactly.
 *
 * An envelope is kept compact only in a form that gives its JSON back exactly by construction
 * ({@link compactBody} says why); anything else is kept whole. Entries written before (`event`,
 * kind, `envelope`, JSON) and those of the all-instances stream (the same and `instanceId`) are
 * read as they are. The tables below are the stored format: never edit them; another format is
 * another header version. Benches import this file with Node's type stripping (bench/storage.mjs):
 * erasable TypeScript only.
 */

const SEP = "\x01";
const HEADER_V1 = "\x01";

/** Body kind letters (v1). */
const KIND_CODES: Readonly<Record<string, string>> = {
  message: "m",
  "message.any": "a",
  "message.ack": "k",
  "message.ack.group": "g",
  "message.reaction": "r",
  "message.edited": "e",
  "message.revoked": "v",
  "session.status": "s",
  "presence.update": "p",
};
const KIND_OF: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KIND_CODES).map(([kind, code]) => [code, kind]),
);
/** The compact `message.ack` body. */
const ACK = "K";
const ACK_STATUS: Readonly<Record<string, string>> = {
  pending: "p",
  sent: "s",
  delivered: "d",
  read: "r",
  played: "y",
  failed: "f",
};
const ACK_STATUS_OF: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ACK_STATUS).map(([status, code]) => [code, status]),
);

/**
 * Payload fragments replaced by the control characters 4 to 31 (v1): what the message events'
 * payloads repeat (their field names, the gateway's signed picture links). 1–3 are the instance's
 * id, phone and push name.
 */
const STATIC = [
  '{"id":"',
  "true",
  "false",
  "null",
  "@c.us",
  ',"chatId":"',
  ',"chatLid":',
  ',"isGroup":',
  ',"chatName":',
  ',"chatPicture":',
  ',"fromMe":',
  ',"from":{"id":"',
  ',"phone":"',
  ',"lid":',
  ',"pushName":"',
  ',"picture":',
  ',"timestamp":',
  ',"source":"',
  ',"type":"',
  ',"text":',
  ',"status":"',
  ',"quotedId":',
  ',"raw":',
  ',"media":{"url":',
  ',"mimetype":"',
  "/v1/avatars/",
  ".jpg?exp=",
  "&sig=",
] as const;
const DYNAMIC = 3;

/** A string as it stands between the quotes of its JSON. */
const inner = (s: string): string => JSON.stringify(s).slice(1, -1);

/** An instance's header, read once: the envelope's pieces, and the payload's codes both ways. */
interface Header {
  instanceId: string;
  /** The envelope's JSON between the kind and the timestamp, and after the payload. */
  middle: string;
  end: string;
  /** Fragment by code (index). */
  table: string[];
  /** Lazily: the encoder (the fragments, longest first, as one pattern) and code by fragment. */
  pattern?: RegExp;
  codes?: Map<string, string>;
}

const HEADERS_MAX = 10_000;
const headers = new Map<string, Header>();

function headerOf(text: string): Header {
  let h = headers.get(text);
  if (h) return h;
  const [instanceText = "", providerText = "", meText = "null"] = text.slice(HEADER_V1.length).split(SEP);
  const me = JSON.parse(meText) as { phone?: unknown; pushName?: unknown } | null;
  const str = (v: unknown) => (typeof v === "string" ? inner(v) : "");
  const table = ["", instanceText, str(me?.phone), str(me?.pushName), ...STATIC];
  h = {
    instanceId: JSON.parse(`"${instanceText}"`) as string,
    middle: `","instanceId":"${instanceText}","provider":"${providerText}","timestamp":`,
    end: `,"me":${meText}}`,
    table,
  };
  if (headers.size >= HEADERS_MAX) headers.clear();
  headers.set(text, h);
  return h;
}

function encoder(h: Header): { pattern: RegExp; codes: Map<string, string> } {
  if (h.pattern && h.codes) return { pattern: h.pattern, codes: h.codes };
  const codes = new Map<string, string>();
  // Short instance values would only replace one character by another.
  h.table.forEach((f, i) => {
    if (i > 0 && (i > DYNAMIC || f.length >= 3) && !codes.has(f)) codes.set(f, String.fromCharCode(i));
  });
  // Longest first (a fragment that extends another wins); the field names under their common `,"`,
  // which the pattern then checks once per position rather than once per name.
  const byLength = [...codes.keys()].sort((a, b) => b.length - a.length);
  const source = (fs: string[]) => fs.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const named = byLength.filter((f) => f.startsWith(',"')).map((f) => f.slice(2));
  const rest = byLength.filter((f) => !f.startsWith(',"'));
  h.pattern = new RegExp(
    [...(named.length ? [`,"(?:${source(named)})`] : []), ...rest.map((f) => source([f]))].join("|"),
    "g",
  );
  h.codes = codes;
  return { pattern: h.pattern, codes };
}

/** The last payload shrunk: a received message is published twice (`message`, `message.any`) with the same one. */
let last: { h: Header; json: string; out: string } | null = null;

/** The payload's JSON with its fragments replaced by their codes. */
function shrink(h: Header, json: string): string {
  if (last && last.h === h && last.json === json) return last.out;
  const { pattern, codes } = encoder(h);
  const out = json.replace(pattern, (f) => codes.get(f)!);
  last = { h, json, out };
  return out;
}

// JSON text holds no raw control character (JSON.stringify escapes them): they are free for the codes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the codes are these characters
const CONTROL = /[\x00-\x1f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the codes are these characters
const CODES = /[\x00-\x1f]/g;

/** The codes of `text` replaced by their fragments. */
function expand(h: Header, text: string): string {
  return text.replace(CODES, (c) => {
    const f = c === "\x00" ? undefined : h.table[c.charCodeAt(0)];
    if (f === undefined) throw new Error(`history entry: unknown code ${c.charCodeAt(0)}`);
    return f;
  });
}

/** The ms time in an `evt_` id's ULID (its first 10 characters after `evt_`); NaN when it is not one. */
export function eventIdTime(id: string): number {
  return ulidTime(id, 4);
}

function ulidTime(s: string, at: number): number {
  let t = 0;
  for (let i = at; i < at + 10; i++) {
    const v = BASE32_ALPHABET.indexOf(s[i] ?? "");
    if (v < 0) return Number.NaN;
    t = t * 32 + v;
  }
  return t;
}

const ULID_RE = /^evt_[0-9a-z]{26}$/;
/** A kind spelled in a body (no `:`, which ends it, nor anything JSON would escape). */
const KIND_RE = /^[a-z][a-z0-9._]*$/;

/** The chat in an API message id, `{fromMe}_{chatId}_{id}[_{participant}]` (spec 2.6). */
function chatOfMessageId(id: string): string | null {
  return /^(?:true|false)_([^_]*)_/.exec(id)?.[1] ?? null;
}

/** A `message.ack` payload of exactly {id, chatId, status, timestamp}, as JSON text: its parts. */
const ACK_RE =
  /^\{"id":"((?:[^"\\]|\\.)*)","chatId":"((?:[^"\\]|\\.)*)","status":"([a-z]+)","timestamp":(-?\d{1,15})\}$/;

/**
 * The compact body of an ack's payload (JSON text), else null. The pattern matches the whole text,
 * so that the payload decoding builds from the parts is the text itself.
 */
function compactAck(payload: string, ms: number): string | null {
  const m = ACK_RE.exec(payload);
  const code = m ? ACK_STATUS[m[3]!] : undefined;
  if (!m || code === undefined) return null;
  const [, idText, chatText, , timestamp] = m as unknown as [string, string, string, string, string];
  const derived = chatOfMessageId(idText) === chatText;
  // An empty chat part stands for the derived one; a canonical integer prints back the same.
  if ((!derived && chatText === "") || String(Number(timestamp)) !== timestamp) return null;
  const chat = derived ? "" : chatText;
  const seconds = Number(timestamp) - Math.floor(ms / 1000);
  let out = code + idText;
  if (chat !== "" || seconds !== 0) out += SEP + chat;
  if (seconds !== 0) out += SEP + seconds;
  return out;
}

function ackPayload(text: string, ms: number): string {
  const [head = "", chatText = "", seconds = "0"] = text.split(SEP);
  const status = ACK_STATUS_OF[head[0] ?? ""];
  if (status === undefined) throw new Error("history entry: unknown ack status");
  const idText = head.slice(1);
  const chat = chatText || (chatOfMessageId(idText) ?? "");
  const timestamp = Math.floor(ms / 1000) + Number(seconds);
  return `{"id":"${idText}","chatId":"${chat}","status":"${status}","timestamp":${timestamp}}`;
}

/**
 * The body the envelope is kept as, or null (kept whole). Exact by construction, so that a publish
 * need not decode it again to compare (that would cost more than encoding): the envelope's frame
 * is matched against the one decoding builds from the same pieces; the payload starts with `{`
 * (no digit: the optional `~offset` before it ends there) and holds no control character, so each
 * code stands for its fragment only; the ack's pattern matches its payload whole. The tests check
 * it on every kind and on random payloads (history-codec.test.ts).
 */
function compactBody(h: Header, env: EventEnvelope, body: string): string | null {
  if (!ULID_RE.test(env.id) || !Number.isSafeInteger(env.timestamp)) return null;
  const code = KIND_CODES[env.event] ?? (KIND_RE.test(env.event) ? `.${env.event}:` : null);
  if (code === null) return null;
  const prefix = `{"id":"${env.id}","event":"${env.event}${h.middle}${env.timestamp},"payload":`;
  if (!body.startsWith(prefix) || !body.endsWith(h.end)) return null;
  const payload = body.slice(prefix.length, body.length - h.end.length);
  if (!payload.startsWith("{") || CONTROL.test(payload)) return null;
  const ulid = env.id.slice(4);
  const offset = env.timestamp - ulidTime(ulid, 0);
  const ts = offset === 0 ? "" : `~${offset}`;
  if (env.event === "message.ack") {
    const ack = compactAck(payload, env.timestamp);
    if (ack !== null) return ulid + ACK + ts + ack;
  }
  return ulid + code + ts + shrink(h, payload);
}

/**
 * The history entry of a published envelope: its field (the header) and value. `body`: the
 * envelope's JSON as published (`JSON.stringify(env)`), which reading the entry gives back.
 */
export function historyFields(env: EventEnvelope, body: string): [header: string, value: string] {
  const header = headerText(env);
  return [header, compactBody(headerOf(header), env, body) ?? `=${body}`];
}

/** The last header made per instance, with what it was made of: a publish reuses it. */
const made = new Map<string, { provider: string; me: EventEnvelope["me"]; text: string }>();

function headerText(env: EventEnvelope): string {
  const last = made.get(env.instanceId);
  const me = env.me ?? null;
  // Compared field by field: the header is checked against the body anyway (compactBody's frame).
  if (
    last &&
    last.provider === env.provider &&
    (me === null
      ? last.me === null
      : last.me !== null && last.me.id === me.id && last.me.phone === me.phone && last.me.pushName === me.pushName)
  ) {
    return last.text;
  }
  const text = HEADER_V1 + inner(env.instanceId) + SEP + inner(env.provider) + SEP + JSON.stringify(me);
  if (made.size >= HEADERS_MAX) made.clear();
  made.set(env.instanceId, { provider: env.provider, me, text });
  return text;
}

/** Whether a stream entry's fields are a history entry of this module's (else the layout before). */
export function isHistoryEntry(fields: readonly string[]): boolean {
  return fields.length === 2 && fields[0]!.startsWith(HEADER_V1);
}

export interface HistoryEvent {
  /** The envelope's `evt_` id. */
  id: string;
  kind: string;
  /** The instance; "" when an entry of the layout before does not name it (an instance's own stream). */
  instanceId: string;
  /** The envelope's JSON, byte for byte as published. */
  envelope: string;
}

/** The kind in a body (no decoding). */
function bodyKind(value: string): string {
  if (value.startsWith("=")) return String((JSON.parse(value.slice(1)) as { event?: unknown }).event ?? "");
  const c = value[26] ?? "";
  if (c === ".") return value.slice(27, value.indexOf(":", 27));
  return c === ACK ? "message.ack" : (KIND_OF[c] ?? "");
}

function decode(header: string, value: string): HistoryEvent {
  const h = headerOf(header);
  if (value.startsWith("=")) {
    const envelope = value.slice(1);
    const { id, event } = JSON.parse(envelope) as { id?: unknown; event?: unknown };
    return { id: String(id ?? ""), kind: String(event ?? ""), instanceId: h.instanceId, envelope };
  }
  const ulid = value.slice(0, 26);
  const code = value[26] ?? "";
  const kind = bodyKind(value);
  if (kind === "") throw new Error(`history entry: unknown kind code ${JSON.stringify(code)}`);
  let at = code === "." ? value.indexOf(":", 27) + 1 : 27;
  let ms = ulidTime(ulid, 0);
  if (value[at] === "~") {
    const m = /^~-?\d+/.exec(value.slice(at, at + 24))!;
    ms += Number(m[0].slice(1));
    at += m[0].length;
  }
  const rest = value.slice(at);
  const payload = code === ACK ? ackPayload(rest, ms) : expand(h, rest);
  const id = `evt_${ulid}`;
  const envelope = `{"id":"${id}","event":"${kind}${h.middle}${ms},"payload":${payload}${h.end}`;
  return { id, kind, instanceId: h.instanceId, envelope };
}

/**
 * The event of a stream entry: a history entry of this module's, or one of the layout before
 * (`event`, kind, `envelope`, JSON; `instanceId`, id in the all-instances stream).
 */
export function readHistoryEntry(fields: readonly string[]): HistoryEvent {
  if (isHistoryEntry(fields)) return decode(fields[0]!, fields[1]!);
  let kind = "";
  let envelope = "";
  let instanceId = "";
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i];
    if (name === "event") kind = fields[i + 1]!;
    else if (name === "envelope") envelope = fields[i + 1]!;
    else if (name === "instanceId") instanceId = fields[i + 1]!;
  }
  return { id: eventIdOf(envelope), kind, instanceId, envelope };
}

/** The kind of a stream entry, either layout, without decoding its envelope. */
export function historyEntryKind(fields: readonly string[]): string {
  if (isHistoryEntry(fields)) return bodyKind(fields[1]!);
  return fields[fields.indexOf("event") + 1] ?? "";
}

/** The `id` of an envelope's JSON: it is the first key (bus.ts), so read in place rather than parsed. */
export function eventIdOf(envelope: string): string {
  if (envelope.startsWith('{"id":"evt_') && envelope[37] === '"') return envelope.slice(7, 37);
  return String((JSON.parse(envelope) as { id?: unknown }).id ?? "");
}
