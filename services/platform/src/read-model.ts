import { formatMessageId, type Instance, NETWORK_ID_RE, type OutboundContent, parseMessageId } from "@gw/contracts";
import type { Redis } from "ioredis";
import { Repository, Schema } from "redis-om";
import type { IdentityMap } from "./identity.ts";
import type { Keys } from "./keys.ts";
import { extensionOf, type MediaLinks } from "./media-links.ts";
import { MESSAGE_KEEP_MS } from "./messages.ts";
import type { OmClient } from "./redis.ts";
import type { ScriptBatch } from "./script-batch.ts";

// ---------------------------------------------------------------------------------------------
// Acks (spec 2.8 `ack`/`ackName`, 2.9 `status`): WAHA's numbering.

export const ACK = { ERROR: -1, PENDING: 0, SERVER: 1, DEVICE: 2, READ: 3, PLAYED: 4 } as const;
export type AckName = keyof typeof ACK;
const ACK_NAME_OF: Record<number, AckName> = {
  [-1]: "ERROR",
  0: "PENDING",
  1: "SERVER",
  2: "DEVICE",
  3: "READ",
  4: "PLAYED",
};
/** Spec 2.9 ack statuses → ack numbers. */
export const ACK_OF_STATUS: Record<string, number> = {
  failed: ACK.ERROR,
  pending: ACK.PENDING,
  sent: ACK.SERVER,
  delivered: ACK.DEVICE,
  read: ACK.READ,
  played: ACK.PLAYED,
};

export const ackName = (ack: number): AckName => ACK_NAME_OF[ack] ?? "PENDING";

/** Every ack value, in order: a message is in the filter set of exactly one. */
const ACKS: readonly number[] = Object.values(ACK).sort((a, b) => a - b);

/** An ack given as its name (`READ`), its spec status (`read`) or its number (`3`), or null. */
export function parseAck(value: string): number | null {
  const v = value.trim();
  if (/^-?\d$/.test(v) && ACK_NAME_OF[Number(v)]) return Number(v);
  const upper = v.toUpperCase();
  if (upper in ACK) return ACK[upper as AckName];
  return ACK_OF_STATUS[v.toLowerCase()] ?? null;
}

// ---------------------------------------------------------------------------------------------
// Stored shapes

/** A stored message: what the spec 2.11 payload said, in the form reads need. Absent fields are empty. */
export interface MessageDoc {
  networkId: string;
  /** The chat as it was known when the message was stored (a privacy id stays one here; reads rewrite). */
  chatId: string;
  chatLid?: string;
  isGroup?: true;
  fromMe: boolean;
  /** Group messages from others: the sender, and its lid. */
  participant?: string;
  participantLid?: string;
  pushName?: string;
  timestamp: number;
  /** timestamp × 1000 + arrival ms within the second: the score in the message sets; ties follow arrival. */
  sortKey: number;
  ack: number;
  type: string;
  body: string;
  hasMedia?: true;
  media?: { mimetype: string; filename?: string; available: boolean };
  source?: "api" | "app";
  quotedId?: string;
  vCards?: string[];
  location?: Record<string, unknown>;
  mentions?: string[];
  forwarded?: true;
  edited?: true;
  editedAt?: number;
  revoked?: true;
  revokedAt?: number;
  raw?: unknown;
}

/** What a chat list shows of its last message when the message itself is not stored. */
export interface LastMessageSummary {
  id: string;
  body: string;
  type: string;
  fromMe: boolean;
  hasMedia: boolean;
  timestamp: number;
}

/**
 * A chat's record (indexed): what changes rarely. What every message changes (the last message,
 * unread counts) is its {@link ChatState}, outside the index: a write to an indexed document
 * re-indexes all of it.
 */
export interface ChatDoc {
  instanceId: string;
  chatId: string;
  lid: string | null;
  name: string | null;
  isGroup: boolean;
  /** A chat kept under a privacy id whose conversation now continues under the number. */
  merged: boolean;
  mergedInto: string | null;
  picture: string | null;
  sortName: string;
  sortId: string;
}

/** A chat's state (`rchs:` hash): its last message and unread marks. */
export interface ChatState {
  /** sortKey of the last message (also its score in the chat order sets). */
  lastMessageAt: number;
  timestamp: number;
  lastMessageId: string;
  lastMessage: LastMessageSummary | null;
  unreadCount: number;
  markedUnread: boolean;
}

// ---------------------------------------------------------------------------------------------
// Read shapes (spec 2.8, 2.10)

export interface MessageMedia {
  url: string | null;
  mimetype: string;
  filename: string | null;
  error: string | null;
}

export interface MessageView {
  id: string;
  chatId: string;
  from: string;
  to: string;
  author: string | null;
  participant: string | null;
  body: string;
  type: string;
  fromMe: boolean;
  hasMedia: boolean;
  ack: number;
  ackName: AckName;
  timestamp: number;
  source: "api" | "app" | null;
  /** The original privacy id (spec 1 rule 4): the chat's, or the group participant's. */
  lid: string | null;
  vCards: string[];
  mediaUrl?: string | null;
  media: MessageMedia | null;
  location: Record<string, unknown> | null;
  quotedId: string | null;
  replyTo: {
    id: string;
    body: string | null;
    hasMedia: boolean;
    media: MessageMedia | null;
    participant: string | null;
    _data: unknown;
  } | null;
  mentions?: string[];
  forwarded?: boolean;
  edited: boolean;
  revoked: boolean;
  _data: unknown;
}

export interface ChatView {
  id: string;
  name: string | null;
  lid: string | null;
  isGroup: boolean;
  picture: string | null;
  timestamp: number;
  unreadCount: number;
  markedUnread: boolean;
  lastMessage: MessageView | LastMessageSummary | null;
}

export interface MessageQuery {
  limit: number;
  offset: number;
  sortOrder: "asc" | "desc";
  merge: boolean;
  downloadMedia: boolean;
  fromMe?: boolean;
  ack?: number;
  /** Unix seconds, inclusive. */
  timestampGte?: number;
  timestampLte?: number;
}

export type ChatSort = "lastMessageAt" | "name" | "id";

export interface ChatQuery {
  limit: number;
  offset: number;
  sortBy: ChatSort;
  sortOrder: "asc" | "desc";
  merge: boolean;
  /** Only these chats (normalized ids). */
  ids?: string[];
}

/** What the session manager knows beside the payload. */
export interface RecordExtra {
  /** The network's id of the message (else parsed from the payload's id). */
  networkId?: string;
  /** For edits and revocations: the network id (or API id) of the message they name. */
  targetId?: string | null;
  /** The content in the provider contract's shape: location and contact cards come from it. */
  content?: OutboundContent | null;
}

type Payload = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Schemas: redis-om declares the chat records and their RediSearch index. Messages have none:
// every page of them is a range of sorted sets (see the message sets below), and a search index
// would re-index a message's whole document at every ack.

export function readModelSchemas(k: Keys) {
  return {
    chats: new Schema(
      k.readChatSchema,
      {
        instanceId: { type: "string" },
        chatId: { type: "string" },
        merged: { type: "boolean" },
        sortName: { type: "text", sortable: true, indexed: false },
        sortId: { type: "text", sortable: true, indexed: false },
      },
      { dataStructure: "JSON" },
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Scripts: the read-modify-write steps that must not interleave (acks racing the send that
// stores the message, unread counters of concurrent messages).

/**
 * Helpers of the ack scripts (shared in the script batch, included in RAISE_ACK).
 * An ack moves forward only; `ERROR` only before delivery. `cur` -2: nothing known yet.
 * `moveAck`: the stored message's ack becomes `n`, and it moves from the filter set of its old
 * ack to the one of `n`, in its chat's sets and, when it carries a lid, in the lid's
 * (`ARGV` of the caller: the instance's filter set prefixes and the retention).
 */
const ADVANCE = `
local function advance(cur, n)
  if n == -1 then return cur <= 1 and cur ~= -1 end
  return n > cur
end
-- The filter set of (fromMe, ack) under base: a chat's or lid's filter set prefix and its id, then ':'.
local function filterSet(base, fromMe, ack)
  return base .. (fromMe and '1' or '0') .. ':' .. ack
end
-- nil when the message is not stored; else 1 if the ack moved, 0 if not.
local function moveAck(doc, member, n, chatPrefix, lidPrefix, ttl)
  local raw = redis.call('JSON.GET', doc, '$.ack', '$.fromMe', '$.chatId', '$.chatLid', '$.sortKey')
  if not raw then return nil end
  local f = cjson.decode(raw)
  local cur, fromMe, chat, lid, score = f['$.ack'][1], f['$.fromMe'][1], f['$.chatId'][1], f['$.chatLid'][1], f['$.sortKey'][1]
  if not advance(cur, n) then return 0 end
  redis.call('JSON.SET', doc, '.ack', n)
  local bases = { chatPrefix .. chat .. ':' }
  if lid and lid ~= chat then bases[2] = lidPrefix .. lid .. ':' end
  for _, base in ipairs(bases) do
    redis.call('ZREM', filterSet(base, fromMe, cur), member)
    local to = filterSet(base, fromMe, n)
    redis.call('ZADD', to, string.format('%.0f', score), member)
    redis.call('PEXPIRE', to, ttl)
  end
  return 1
end
`;

/**
 * KEYS: doc, pending ack, chat's message set, lid's message set (or the chat's again). ARGV:
 * json, ttl ms, sortKey, networkId, fromMe (1|0), its ack, chat filter set prefix, lid filter
 * set prefix (or the chat's). Keeps an ack that is further along (stored or pending). The message
 * sets (every page reads them) hold the message under its sortKey: the chat's and lid's set of
 * all messages, and the set of its (fromMe, ack) — the filters' pages; they live as long as
 * their newest message, like chat records.
 */
const SAVE_MESSAGE = `
local doc, member, ttl, score = KEYS[1], ARGV[4], ARGV[2], ARGV[3]
local fromMe = ARGV[5] == '1'
local cur = -2
if not redis.call('JSON.SET', doc, '$', ARGV[1], 'NX') then
  -- Recorded again (a repeated event): a revocation stays, an edit stays.
  if redis.call('JSON.TYPE', doc, '.revoked') then return 0 end
  cur = tonumber(redis.call('JSON.GET', doc, '.ack'))
  local edit = nil
  if redis.call('JSON.TYPE', doc, '.edited') then
    edit = { redis.call('JSON.GET', doc, '.body'), redis.call('JSON.GET', doc, '.editedAt') }
  end
  redis.call('JSON.SET', doc, '$', ARGV[1])
  if edit then
    redis.call('JSON.SET', doc, '.body', edit[1])
    redis.call('JSON.SET', doc, '.edited', 'true')
    redis.call('JSON.SET', doc, '.editedAt', edit[2])
  end
end
redis.call('PEXPIRE', doc, ttl)
local n = tonumber(ARGV[6])
if advance(n, cur) then n = cur end
local p = redis.call('GET', KEYS[2])
if p then
  if advance(n, tonumber(p)) then n = tonumber(p) end
  redis.call('DEL', KEYS[2])
end
if n ~= tonumber(ARGV[6]) then redis.call('JSON.SET', doc, '.ack', n) end
local bases = { { KEYS[3], ARGV[7] } }
if KEYS[4] ~= KEYS[3] then bases[2] = { KEYS[4], ARGV[8] } end
for _, b in ipairs(bases) do
  if cur >= -1 and cur ~= n then redis.call('ZREM', filterSet(b[2], fromMe, cur), member) end
  for _, set in ipairs({ b[1], filterSet(b[2], fromMe, n) }) do
    redis.call('ZADD', set, score, member)
    redis.call('PEXPIRE', set, ttl)
  end
end
return 1
`;

/**
 * KEYS: doc, pending ack. ARGV: ack, pending ttl ms, chat filter prefix, lid filter prefix (the
 * instance's), ttl ms, networkId. A message not stored yet keeps its ack pending a while.
 */
const APPLY_ACK = `
local n = tonumber(ARGV[1])
local moved = moveAck(KEYS[1], ARGV[6], n, ARGV[3], ARGV[4], ARGV[5])
if moved then return moved end
local p = tonumber(redis.call('GET', KEYS[2]) or '-2')
if advance(p, n) then redis.call('SET', KEYS[2], n, 'PX', ARGV[2]) end
return 0
`;

/** KEYS: doc. ARGV: path, json value, path, json value… Applied only when the document exists. */
const PATCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('JSON.SET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`;

/**
 * KEYS: doc. ARGV: ack, chat filter prefix, lid filter prefix (the instance's), ttl ms, networkId.
 * Raises received messages' acks (messages read), never lowers.
 */
const RAISE_ACK = `${ADVANCE}
return moveAck(KEYS[1], ARGV[5], tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]) or 0
`;

/**
 * A message's effect on its chat. KEYS: chat record, chat state, chat order, visible chat order,
 * the record and state under the chat's privacy id (or the chat's again). ARGV: create json,
 * lastMessageAt, lastMessageId, last summary json, timestamp, name, sortName, lid, fromMe 1/0,
 * ttl ms, chatId, lid chat id, now (ms).
 *
 * Only the state hash and the order sets change on every message; the indexed record (every write
 * to it re-indexes it all, ~35 µs, and leaves garbage for the index's GC) only when the chat is
 * new, its name or lid changed, or a lid chat folds into it. The state keeps the name and lid
 * last written to the record to tell. A message older than the last one leaves the last in place.
 */
const TOUCH_CHAT = `
local doc, st, order, visible, lidDoc, lidSt = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local at = tonumber(ARGV[2])
local name, lid = ARGV[6], ARGV[8]
local fromMe = ARGV[9] == '1'
local ttl = ARGV[10]
local now = tonumber(ARGV[13])
local cur = redis.call('HMGET', st, 'lastMessageAt', 'name', 'lid', 'merged', 'unreadCount', 'markedUnread', 'ttlAt')
if redis.call('EXISTS', doc) == 0 then
  redis.call('JSON.SET', doc, '$', ARGV[1])
  redis.call('DEL', st)
  redis.call('HSET', st, 'name', name, 'lid', lid, 'merged', '0', 'unreadCount', '0', 'markedUnread', '0')
  cur = { false, name, lid, '0', '0', '0', false }
else
  local patch = {}
  if name ~= '' and name ~= cur[2] then
    patch[#patch + 1] = '"name":' .. cjson.encode(name)
    patch[#patch + 1] = '"sortName":' .. cjson.encode(ARGV[7])
    redis.call('HSET', st, 'name', name)
  end
  if lid ~= '' and lid ~= cur[3] then
    patch[#patch + 1] = '"lid":' .. cjson.encode(lid)
    redis.call('HSET', st, 'lid', lid)
  end
  if #patch > 0 then redis.call('JSON.MERGE', doc, '$', '{' .. table.concat(patch, ',') .. '}') end
end
local last = tonumber(cur[1])
if not last or at >= last then
  redis.call('HSET', st, 'lastMessageAt', ARGV[2], 'timestamp', ARGV[5], 'lastMessageId', ARGV[3], 'lastMessage', ARGV[4])
  redis.call('ZADD', order, at, ARGV[11])
  if cur[4] ~= '1' then redis.call('ZADD', visible, at, ARGV[11]) end
end
if fromMe then
  if cur[5] ~= '0' or cur[6] ~= '0' then redis.call('HSET', st, 'unreadCount', '0', 'markedUnread', '0') end
else
  redis.call('HINCRBY', st, 'unreadCount', 1)
end
-- Retention counts from the last message; refreshing it once an hour is as good and spares four
-- writes per message.
if not tonumber(cur[7]) or now - tonumber(cur[7]) > 3600000 then
  for _, k in ipairs({ doc, st, order, visible }) do redis.call('PEXPIRE', k, ttl) end
  redis.call('HSET', st, 'ttlAt', ARGV[13])
end
if lidDoc ~= doc and redis.call('EXISTS', lidDoc) == 1 and redis.call('HGET', lidSt, 'merged') ~= '1' then
  -- The lid chat folds into this one: its unread count joins, its name if this one has none.
  if not fromMe then
    local unread = tonumber(redis.call('HGET', lidSt, 'unreadCount')) or 0
    if unread > 0 then redis.call('HINCRBY', st, 'unreadCount', unread) end
  end
  if redis.call('JSON.GET', doc, '.name') == 'null' then
    local lidName = redis.call('JSON.GET', lidDoc, '.name')
    if lidName ~= 'null' then
      redis.call('JSON.MERGE', doc, '$', '{"name":' .. lidName .. ',"sortName":' .. redis.call('JSON.GET', lidDoc, '.sortName') .. '}')
      redis.call('HSET', st, 'name', cjson.decode(lidName))
    end
  end
  redis.call('JSON.MERGE', lidDoc, '$', '{"merged":true,"mergedInto":' .. cjson.encode(ARGV[11]) .. '}')
  redis.call('HSET', lidSt, 'merged', '1')
  redis.call('ZREM', visible, ARGV[12])
end
return 1
`;

/**
 * KEYS: chat state. ARGV: `read` (nothing unread, not marked) or `unread` (marked, at least one
 * unread; not on a chat folded into another). Only on a chat that exists.
 */
const MARK_CHAT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == 'read' then
  redis.call('HSET', KEYS[1], 'unreadCount', '0', 'markedUnread', '0')
elseif redis.call('HGET', KEYS[1], 'merged') == '1' then
  return 0
else
  local unread = tonumber(redis.call('HGET', KEYS[1], 'unreadCount')) or 0
  redis.call('HSET', KEYS[1], 'markedUnread', '1', 'unreadCount', math.max(1, unread))
end
return 1
`;

// ---------------------------------------------------------------------------------------------

/** RediSearch TAG values: punctuation and spaces escaped. */
export function escapeTag(value: string): string {
  return value.replace(/[,.<>{}[\]"':;!@#$%^&*()\-+=~|/\\\s]/g, "\\$&");
}

const tagQuery = (field: string, values: string[]) => `@${field}:{${values.map(escapeTag).join(" | ")}}`;

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

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** The record fields behind the chats route's other sorts (lastMessageAt is the chat order sets'). */
const CHAT_SORT_FIELD = { name: "sortName", id: "sortId" } as const;

/** The scripts, as ioredis defines them on the client and its pipelines. */
type Scripts<R> = {
  gwRmPatch(doc: string, ...pathsAndValues: string[]): R;
  gwRmRaise(doc: string, ack: number, ...ackArgs: (string | number)[]): R;
  gwRmMarkChat(state: string, mark: "read" | "unread"): R;
};

export interface ReadModelOptions {
  retentionMs: number;
  /** How long an ack waits for its message to be stored (it may race the send that stores it). */
  pendingAckMs?: number;
}

/**
 * The read model of spec 4.5: messages that arrive or are sent, stored per instance as JSON
 * documents found through sorted sets (per chat, per lid, per (fromMe, ack)), and the chat list
 * built from them (indexed chat records, state hashes, order sets). One identity per person: reads rewrite privacy ids to numbers where the instance knows
 * them, and merged reads find messages that arrived by lid. Design and choices: docs/read-model.md.
 */
export class ReadModel {
  readonly chatsRepo: Repository;
  private readonly schemas: ReturnType<typeof readModelSchemas>;
  private readonly pendingAckMs: number;

  constructor(
    private readonly redis: Redis,
    om: OmClient,
    private readonly k: Keys,
    private readonly batch: ScriptBatch,
    private readonly identity: IdentityMap,
    private readonly mediaLinks: MediaLinks,
    private readonly opts: ReadModelOptions,
  ) {
    this.schemas = readModelSchemas(k);
    this.chatsRepo = new Repository(this.schemas.chats, om);
    this.pendingAckMs = opts.pendingAckMs ?? 120_000;
    // A send's message and chat and every ack go in the turn's batch (script-batch.ts) with the
    // events that announce them; the rarer writes are scripts of their own.
    batch.share(ADVANCE);
    batch.register("rmSave", SAVE_MESSAGE, { keys: 4, args: 8 });
    batch.register("rmAck", APPLY_ACK, { keys: 2, args: 6 });
    batch.register("rmChat", TOUCH_CHAT, { keys: 6, args: 13 });
    redis.defineCommand("gwRmPatch", { numberOfKeys: 1, lua: PATCH });
    redis.defineCommand("gwRmRaise", { numberOfKeys: 1, lua: RAISE_ACK });
    redis.defineCommand("gwRmMarkChat", { numberOfKeys: 1, lua: MARK_CHAT });
  }

  private get r(): Scripts<Promise<number>> {
    return this.redis as unknown as Scripts<Promise<number>>;
  }

  messageKey(instanceId: string, networkId: string): string {
    return `${this.k.readMessageSchema}:${instanceId}:${networkId}`;
  }

  chatKey(instanceId: string, chatId: string): string {
    return `${this.k.readChatSchema}:${instanceId}:${chatId}`;
  }

  chatStateKey(instanceId: string, chatId: string): string {
    return this.k.readChatState(instanceId, chatId);
  }

  /**
   * The message sets of a stored message: its chat's, and (stored under a number, carrying the
   * privacy id) its lid's — together what a merged read by either finds; the chat's alone what a
   * read of exactly that id finds. Each with the prefix of its filter sets.
   */
  private messageSets(
    instanceId: string,
    doc: Pick<MessageDoc, "chatId" | "chatLid">,
  ): { all: [string, string]; filters: [string, string] } {
    const chatSet = this.k.readChatIndex(instanceId, doc.chatId);
    const chatFilters = `${this.k.readFilterPrefix(instanceId)}${doc.chatId}:`;
    return doc.chatLid && doc.chatLid !== doc.chatId
      ? {
          all: [chatSet, this.k.readLidIndex(instanceId, doc.chatLid)],
          filters: [chatFilters, `${this.k.readLidFilterPrefix(instanceId)}${doc.chatLid}:`],
        }
      : { all: [chatSet, chatSet], filters: [chatFilters, chatFilters] };
  }

  /** The arguments the ack scripts take after their own: the instance's filter set prefixes, retention, the member. */
  private ackArgs(instanceId: string, networkId: string): (string | number)[] {
    return [
      this.k.readFilterPrefix(instanceId),
      this.k.readLidFilterPrefix(instanceId),
      this.opts.retentionMs,
      networkId,
    ];
  }

  // --- writes ------------------------------------------------------------------------------

  /**
   * An event the session manager publishes (spec 2.11 payload): messages are stored and update
   * their chat; edits and revocations change the message they name. What the instance's
   * `settings.storage` turns off is not stored.
   */
  async record(instance: Instance, kind: string, payload: Payload, extra: RecordExtra = {}): Promise<void> {
    const storage = instance.settings.storage;
    if (kind === "message" || kind === "message.any") {
      const doc = this.docOf(payload, extra);
      if (!doc || doc.chatId === "status@broadcast") return;
      await Promise.all([
        storage.messages ? this.save(instance.id, doc) : null,
        storage.chats ? this.touchChat(instance.id, doc, str(payload.chatName)) : null,
      ]);
      return;
    }
    if (!storage.messages) return;
    const target = this.targetOf(payload, extra);
    if (!target) return;
    const key = this.messageKey(instance.id, target);
    const at = Number(payload.timestamp) || Math.floor(Date.now() / 1000);
    if (kind === "message.edited") {
      await this.r.gwRmPatch(
        key,
        ".body",
        JSON.stringify(String(payload.text ?? "")),
        ".edited",
        "true",
        ".editedAt",
        String(at),
      );
    } else if (kind === "message.revoked") {
      // Revoked for everyone: the message keeps its place in the history, without its content.
      await this.r.gwRmPatch(
        key,
        ".revoked",
        "true",
        ".revokedAt",
        String(at),
        ".type",
        '"revoked"',
        ".body",
        '""',
        ".raw",
        "null",
      );
      await this.redis.call("JSON.DEL", key, ".media").catch(() => {});
      await this.redis.call("JSON.DEL", key, ".hasMedia").catch(() => {});
    }
  }

  /** A `message.ack` of a message this account sent (spec 2.9 status). */
  async ack(instance: Instance, networkId: string, status: string): Promise<void> {
    if (!instance.settings.storage.messages) return;
    const n = ACK_OF_STATUS[status];
    if (n === undefined) return;
    await this.batch.run(
      "rmAck",
      [this.messageKey(instance.id, networkId), this.k.readPendingAck(instance.id, networkId)],
      [n, this.pendingAckMs, ...this.ackArgs(instance.id, networkId)],
    );
  }

  /** Received messages read by this account (`POST …/messages/read`): ack READ; the chat's unread cleared. */
  async markRead(instance: Instance, networkIds: string[], chatId: string): Promise<void> {
    const instanceId = instance.id;
    const chatIds = instance.settings.storage.chats ? await this.chatDocIds(instanceId, chatId) : [];
    const pipeline = this.redis.pipeline();
    const p = pipeline as unknown as Scripts<unknown>;
    for (const id of networkIds)
      p.gwRmRaise(this.messageKey(instanceId, id), ACK.READ, ...this.ackArgs(instanceId, id));
    for (const chatId of chatIds) p.gwRmMarkChat(this.chatStateKey(instanceId, chatId), "read");
    await pipeline.exec();
  }

  /** `POST /chats/{chatId}/unread`: the chat shows as unread (at least one) until read or answered. */
  async markUnread(instance: Instance, chatId: string): Promise<void> {
    if (!instance.settings.storage.chats) return;
    const pipeline = this.redis.pipeline();
    const p = pipeline as unknown as Scripts<unknown>;
    for (const id of await this.chatDocIds(instance.id, chatId))
      p.gwRmMarkChat(this.chatStateKey(instance.id, id), "unread");
    await pipeline.exec();
  }

  /** Messages already in stored form, pipelined (bulk loads and benchmarks). */
  async saveMany(instanceId: string, docs: MessageDoc[]): Promise<void> {
    const p = this.redis.pipeline();
    const ttl = this.opts.retentionMs;
    const sets = new Map<string, (string | number)[]>();
    const add = (set: string, doc: MessageDoc) => {
      const members = sets.get(set) ?? [];
      if (members.length === 0) sets.set(set, members);
      members.push(doc.sortKey, doc.networkId);
    };
    for (const doc of docs) {
      p.call("JSON.SET", this.messageKey(instanceId, doc.networkId), "$", JSON.stringify(doc));
      p.pexpire(this.messageKey(instanceId, doc.networkId), ttl);
      const { all, filters } = this.messageSets(instanceId, doc);
      for (const set of new Set(all)) add(set, doc);
      for (const prefix of new Set(filters)) add(`${prefix}${doc.fromMe ? 1 : 0}:${doc.ack}`, doc);
    }
    for (const [set, members] of sets) {
      p.zadd(set, ...members);
      p.pexpire(set, ttl);
    }
    const results = (await p.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  private async save(instanceId: string, doc: MessageDoc): Promise<void> {
    const { all, filters } = this.messageSets(instanceId, doc);
    await this.batch.run(
      "rmSave",
      [this.messageKey(instanceId, doc.networkId), this.k.readPendingAck(instanceId, doc.networkId), ...all],
      [
        JSON.stringify(doc),
        this.opts.retentionMs,
        doc.sortKey,
        doc.networkId,
        doc.fromMe ? "1" : "0",
        doc.ack,
        ...filters,
      ],
    );
  }

  private async touchChat(instanceId: string, doc: MessageDoc, chatName: string | null): Promise<void> {
    const chatId = doc.chatId;
    const lidChat = doc.chatLid && doc.chatLid !== chatId ? doc.chatLid : chatId;
    const summary: LastMessageSummary = {
      id: formatMessageId({
        fromMe: doc.fromMe,
        chatId,
        id: doc.networkId,
        ...(doc.participant ? { participant: doc.participant } : {}),
      }),
      body: doc.body,
      type: doc.type,
      fromMe: doc.fromMe,
      hasMedia: Boolean(doc.hasMedia),
      timestamp: doc.timestamp,
    };
    // Spec 1 rule 7: the contact's name (or the group's subject), also on our own messages' events.
    const name = chatName;
    const create: ChatDoc = {
      instanceId,
      chatId,
      lid: doc.chatLid ?? null,
      name,
      isGroup: Boolean(doc.isGroup),
      merged: false,
      mergedInto: null,
      picture: null,
      sortName: (name ?? chatId).toLowerCase(),
      sortId: chatId,
    };
    await this.batch.run(
      "rmChat",
      [
        this.chatKey(instanceId, chatId),
        this.chatStateKey(instanceId, chatId),
        this.k.readChatOrder(instanceId),
        this.k.readChatOrderVisible(instanceId),
        this.chatKey(instanceId, lidChat),
        this.chatStateKey(instanceId, lidChat),
      ],
      [
        JSON.stringify(create),
        doc.sortKey,
        doc.networkId,
        JSON.stringify(summary),
        doc.timestamp,
        name ?? "",
        (name ?? chatId).toLowerCase(),
        doc.chatLid ?? "",
        doc.fromMe ? "1" : "0",
        this.opts.retentionMs,
        chatId,
        lidChat,
        Date.now(),
      ],
    );
  }

  private targetOf(payload: Payload, extra: RecordExtra): string | null {
    const raw = extra.targetId ?? str(payload.messageId);
    if (!raw) return null;
    return parseMessageId(raw)?.id ?? raw;
  }

  /** The stored form of a spec 2.11 message payload (null when it names no message). */
  docOf(payload: Payload, extra: RecordExtra = {}, now = Date.now()): MessageDoc | null {
    const apiId = str(payload.id);
    const chatId = str(payload.chatId);
    if (!apiId || !chatId) return null;
    const networkId = extra.networkId ?? parseMessageId(apiId)?.id;
    if (!networkId) return null;
    const chatLid = str(payload.chatLid) ?? (chatId.endsWith("@lid") ? chatId : null);
    const isGroup = Boolean(payload.isGroup);
    const fromMe = Boolean(payload.fromMe);
    const from = (payload.from ?? {}) as { id?: string; lid?: string | null; pushName?: string };
    const timestamp = Number(payload.timestamp) || Math.floor(now / 1000);
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
    const raw = sanitizeRaw(payload.raw);
    if (raw !== undefined) doc.raw = raw;
    return doc;
  }

  // --- reads -------------------------------------------------------------------------------

  /** The chat ids a read of `chatId` covers: itself, its number when it is a known lid, and the lids of a number. */
  private async chatFamily(instanceId: string, chatId: string): Promise<{ canonical: string; ids: string[] }> {
    const canonical = (await this.identity.rewrite(instanceId, chatId)) ?? chatId;
    const ids = new Set([chatId, canonical]);
    if (canonical.endsWith("@c.us")) {
      for (const lid of await this.identity.lidsOf(instanceId, canonical.split("@")[0]!)) ids.add(lid);
    }
    return { canonical, ids: [...ids] };
  }

  /**
   * Spec 4.5 `GET /chats/{chatId}/messages`: newest first unless asked otherwise, read from the
   * message sets the read covers (not merged: the chat's; merged: every id of the person, chats
   * and lids) — the sets of all messages, or with `fromMe`/`ack` the filter sets that match.
   * Ordered by sortKey, then by network id.
   */
  async listMessages(instance: Instance, chatId: string, q: MessageQuery): Promise<MessageView[]> {
    if (!instance.settings.storage.messages) return [];
    const ids = q.merge ? (await this.chatFamily(instance.id, chatId)).ids : [chatId];
    const filtered = q.fromMe !== undefined || q.ack !== undefined;
    const sets = filtered
      ? this.filterSets(
          instance.id,
          ids,
          q.merge,
          q.fromMe === undefined ? [true, false] : [q.fromMe],
          q.ack === undefined ? ACKS : [q.ack],
        )
      : q.merge
        ? ids.flatMap((id) => [this.k.readChatIndex(instance.id, id), this.k.readLidIndex(instance.id, id)])
        : [this.k.readChatIndex(instance.id, chatId)];
    return this.views(instance, await this.setsPage(instance.id, sets, q), q.downloadMedia);
  }

  /** The filter sets of the chats `ids` (and, merged, of them as lids) for these fromMe and ack values. */
  private filterSets(instanceId: string, ids: string[], merge: boolean, fromMe: boolean[], acks: readonly number[]) {
    const prefixes = ids.flatMap((id) => [
      `${this.k.readFilterPrefix(instanceId)}${id}:`,
      ...(merge ? [`${this.k.readLidFilterPrefix(instanceId)}${id}:`] : []),
    ]);
    return prefixes.flatMap((p) => fromMe.flatMap((m) => acks.map((a) => `${p}${m ? 1 : 0}:${a}`)));
  }

  /**
   * A page of the union of `sets`: ZRANGE … BYSCORE of each (one set: the page itself; several:
   * the first offset + limit of each, merged here and deduplicated), then the documents in one
   * JSON.MGET. A member whose document expired (retention) is dropped from the sets and the page
   * read again.
   */
  private async setsPage(
    instanceId: string,
    sets: string[],
    q: Omit<MessageQuery, "merge" | "downloadMedia">,
  ): Promise<MessageDoc[]> {
    if (q.limit <= 0 || sets.length === 0) return [];
    const desc = q.sortOrder !== "asc";
    const lo = q.timestampGte !== undefined ? String(q.timestampGte * 1000) : "-inf";
    const hi = q.timestampLte !== undefined ? String(q.timestampLte * 1000 + 999) : "+inf";
    const [from, count] = sets.length === 1 ? [q.offset, q.limit] : [0, q.offset + q.limit];
    for (let attempt = 0; ; attempt++) {
      const p = this.redis.pipeline();
      for (const set of sets) {
        if (desc) p.zrange(set, hi, lo, "BYSCORE", "REV", "LIMIT", from, count, "WITHSCORES");
        else p.zrange(set, lo, hi, "BYSCORE", "LIMIT", from, count, "WITHSCORES");
      }
      const replies = (await p.exec()) ?? [];
      const scores = new Map<string, number>();
      for (const [err, reply] of replies) {
        if (err) throw err;
        const flat = reply as string[];
        for (let i = 0; i < flat.length; i += 2) scores.set(flat[i]!, Number(flat[i + 1]));
      }
      let members = [...scores.keys()];
      if (sets.length > 1) {
        members.sort((a, b) => compareEntries(scores.get(a)!, a, scores.get(b)!, b) * (desc ? -1 : 1));
        members = members.slice(q.offset, q.offset + q.limit);
      }
      const docs = await this.jsonMGet<MessageDoc>(members.map((m) => this.messageKey(instanceId, m)));
      const gone = members.filter((_, i) => docs[i] === null);
      if (gone.length === 0 || attempt >= 5) return docs.filter((d): d is MessageDoc => d !== null);
      // Expired documents (retention): out of the sets, and the page again.
      const cleanup = this.redis.pipeline();
      for (const set of sets) cleanup.zrem(set, ...gone);
      await cleanup.exec();
    }
  }

  /** Received messages of a chat not read yet (for `POST …/messages/read`), newest first. */
  async unreadMessages(
    instance: Instance,
    chatId: string,
    opts: { limit: number; sinceSeconds?: number },
  ): Promise<{ id: string; networkId: string; chatId: string; storedId: string }[]> {
    if (!instance.settings.storage.messages) return [];
    const { ids } = await this.chatFamily(instance.id, chatId);
    const sets = this.filterSets(
      instance.id,
      ids,
      true,
      [false],
      ACKS.filter((a) => a <= ACK.DEVICE),
    );
    const docs = await this.setsPage(instance.id, sets, {
      limit: opts.limit,
      offset: 0,
      sortOrder: "desc",
      ...(opts.sinceSeconds !== undefined ? { timestampGte: opts.sinceSeconds } : {}),
    });
    const views = await this.views(instance, docs, false);
    return views.map((v, i) => {
      const d = docs[i]!;
      // The id as the network knows the chat (a lid-era message is read in its lid chat).
      const storedId = formatMessageId({
        fromMe: d.fromMe,
        chatId: d.chatId,
        id: d.networkId,
        ...(d.participant ? { participant: d.participant } : {}),
      });
      return { id: v.id, networkId: d.networkId, chatId: d.chatId, storedId };
    });
  }

  /** One message by its API id (or bare network id), if it belongs to the chat (merged: to the person). */
  async getMessage(
    instance: Instance,
    chatId: string,
    messageId: string,
    opts: { merge: boolean; downloadMedia: boolean },
  ): Promise<MessageView | null> {
    const doc = await this.getDoc(instance, chatId, messageId, opts.merge);
    if (!doc) return null;
    return (await this.views(instance, [doc], opts.downloadMedia))[0] ?? null;
  }

  /** The stored message behind an id, if it belongs to the chat. */
  async getDoc(instance: Instance, chatId: string, messageId: string, merge = true): Promise<MessageDoc | null> {
    if (!instance.settings.storage.messages) return null;
    const networkId = parseMessageId(messageId)?.id ?? messageId.trim();
    if (!NETWORK_ID_RE.test(networkId)) return null;
    const doc = await this.jsonGet<MessageDoc>(this.messageKey(instance.id, networkId));
    if (!doc) return null;
    if (doc.chatId === chatId) return doc;
    if (!merge) return null;
    const { ids } = await this.chatFamily(instance.id, chatId);
    return ids.includes(doc.chatId) || (doc.chatLid !== undefined && ids.includes(doc.chatLid)) ? doc : null;
  }

  private async jsonGet<T>(key: string): Promise<T | null> {
    const raw = (await this.redis.call("JSON.GET", key)) as string | null;
    return raw ? (JSON.parse(raw) as T) : null;
  }

  private async jsonMGet<T>(keys: string[]): Promise<(T | null)[]> {
    if (keys.length === 0) return [];
    const raw = (await this.redis.call("JSON.MGET", ...keys, "$")) as (string | null)[];
    return raw.map((r) => (r ? ((JSON.parse(r) as T[])[0] ?? null) : null));
  }

  /** Stored messages → spec 2.8 read shapes, privacy ids rewritten with what the instance knows now. */
  async views(instance: Instance, docs: MessageDoc[], downloadMedia: boolean): Promise<MessageView[]> {
    const quotedRefs = docs.map((d) => (d.quotedId ? (parseMessageId(d.quotedId)?.id ?? d.quotedId) : null));
    const wanted = [...new Set(quotedRefs.filter((x): x is string => x !== null))];
    const quotedDocs = new Map<string, MessageDoc>();
    if (wanted.length) {
      const got = await this.jsonMGet<MessageDoc>(wanted.map((id) => this.messageKey(instance.id, id)));
      got.forEach((d, i) => {
        if (d) quotedDocs.set(wanted[i]!, d);
      });
    }
    // Every privacy id of the page, resolved once; the views are then built without waiting.
    const lids = new Set<string>();
    const addLid = (id: string | undefined) => {
      if (id?.endsWith("@lid")) lids.add(id);
    };
    for (const d of [...docs, ...quotedDocs.values()]) {
      addLid(d.chatId);
      addLid(d.participant);
      if (d.quotedId) addLid(parseMessageId(d.quotedId)?.chatId);
      for (const m of d.mentions ?? []) addLid(m);
    }
    const known = new Map<string, string>();
    await Promise.all(
      [...lids].map(async (lid) => known.set(lid, (await this.identity.rewrite(instance.id, lid)) ?? lid)),
    );
    const rewrite = (id: string) => known.get(id) ?? id;
    const me = instance.phone ? `${instance.phone}@c.us` : "";
    return docs.map((d, i) => {
      const view = this.view(instance.id, d, me, downloadMedia, rewrite);
      const ref = quotedRefs[i];
      if (ref && view.quotedId) {
        const q = quotedDocs.get(ref);
        view.replyTo = q
          ? {
              id: view.quotedId,
              body: q.body,
              hasMedia: Boolean(q.hasMedia),
              media: this.mediaOf(instance.id, q, view.quotedId, false),
              participant: q.participant ? rewrite(q.participant) : null,
              _data: q.raw ?? null,
            }
          : { id: view.quotedId, body: null, hasMedia: false, media: null, participant: null, _data: null };
      }
      return view;
    });
  }

  private mediaOf(instanceId: string, d: MessageDoc, apiId: string, download: boolean): MessageMedia | null {
    if (!d.hasMedia || !d.media) return null;
    const media: MessageMedia = {
      url: null,
      mimetype: d.media.mimetype,
      filename: d.media.filename ?? null,
      error: null,
    };
    if (!download) return media;
    // The bytes live in the message store for 7 days (and only what was small enough to keep).
    if (d.media.available && Date.now() - d.timestamp * 1000 < MESSAGE_KEEP_MS) {
      const ext = extensionOf(d.media.mimetype, d.media.filename);
      media.url = this.mediaLinks.sign(`/v1/files/${instanceId}/${apiId}.${ext}`);
    } else {
      media.error = "mídia indisponível: não guardada ou expirada";
    }
    return media;
  }

  private view(
    instanceId: string,
    d: MessageDoc,
    me: string,
    downloadMedia: boolean,
    rewrite: (id: string) => string,
  ): MessageView {
    const chatId = rewrite(d.chatId);
    const participant = d.participant ? rewrite(d.participant) : null;
    const id = formatMessageId({
      fromMe: d.fromMe,
      chatId,
      id: d.networkId,
      ...(participant ? { participant } : {}),
    });
    let quotedId: string | null = null;
    if (d.quotedId) {
      const ref = parseMessageId(d.quotedId);
      quotedId = ref ? formatMessageId({ ...ref, chatId: rewrite(ref.chatId) }) : d.quotedId;
    }
    const media = this.mediaOf(instanceId, d, id, downloadMedia);
    const sender = d.isGroup ? (d.fromMe ? me : participant) : null;
    const view: MessageView = {
      id,
      chatId,
      from: d.fromMe ? me : chatId,
      to: d.fromMe ? chatId : me,
      author: sender,
      participant: sender,
      body: d.body,
      type: d.type,
      fromMe: d.fromMe,
      hasMedia: Boolean(d.hasMedia),
      ack: d.ack,
      ackName: ackName(d.ack),
      timestamp: d.timestamp,
      source: d.source ?? null,
      lid: (d.isGroup ? d.participantLid : d.chatLid) ?? null,
      vCards: d.vCards ?? [],
      ...(downloadMedia && media ? { mediaUrl: media.url } : {}),
      media,
      location: d.location ?? null,
      quotedId,
      replyTo: null,
      ...(d.mentions ? { mentions: d.mentions.map(rewrite) } : {}),
      ...(d.forwarded ? { forwarded: true } : {}),
      edited: Boolean(d.edited),
      revoked: Boolean(d.revoked),
      _data: d.raw ?? null,
    };
    return view;
  }

  /** The chat docs that hold a chat: its own, and (merged) the one under its lid or number. */
  private async chatDocIds(instanceId: string, chatId: string): Promise<string[]> {
    const { ids } = await this.chatFamily(instanceId, chatId);
    return ids;
  }

  /**
   * Spec 4.5 `GET /chats` and the overview: chat records, optionally merged across lid and number.
   * By last message: a page of the chat order set (the visible one when merged), then the records
   * and states; records that expired (retention) leave the sets and the page is read again. By name
   * or id: the index. Given ids: those chats, sorted here.
   */
  async listChats(instance: Instance, q: ChatQuery): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    if (!instance.settings.storage.chats || q.limit <= 0) return [];
    const desc = q.sortOrder !== "asc";
    let rows: { chat: ChatDoc; state: ChatState | null }[];
    if (q.ids) {
      if (q.ids.length === 0) return [];
      const all = new Set<string>();
      for (const id of q.ids) {
        if (q.merge) for (const x of (await this.chatFamily(instance.id, id)).ids) all.add(x);
        else all.add(id);
      }
      const found = (await this.chatRows(instance.id, [...all])).filter((r) => !q.merge || !r.chat.merged);
      const by = (r: (typeof found)[number]) =>
        q.sortBy === "lastMessageAt"
          ? (r.state?.lastMessageAt ?? 0)
          : q.sortBy === "name"
            ? r.chat.sortName
            : r.chat.sortId;
      found.sort((a, b) => {
        const [x, y] = [by(a), by(b)];
        const c = x < y ? -1 : x > y ? 1 : a.chat.chatId < b.chat.chatId ? -1 : a.chat.chatId > b.chat.chatId ? 1 : 0;
        return desc ? -c : c;
      });
      rows = found.slice(q.offset, q.offset + q.limit);
    } else if (q.sortBy === "lastMessageAt") {
      rows = await this.chatOrderPage(instance.id, q.merge, desc, q.offset, q.limit);
    } else {
      const parts = [tagQuery("instanceId", [instance.id])];
      if (q.merge) parts.push("@merged:{false}");
      const chats = (await this.chatsRepo
        .searchRaw(parts.join(" "))
        .sortBy(CHAT_SORT_FIELD[q.sortBy], desc ? "DESC" : "ASC")
        .return.page(q.offset, q.limit)) as unknown as ChatDoc[];
      const states = await this.chatStates(
        instance.id,
        chats.map((c) => c.chatId),
      );
      rows = chats.map((chat, i) => ({ chat, state: states[i] ?? null }));
    }
    return this.chatViews(instance, rows, q.merge);
  }

  /** A page of the chat order set, with each chat's record and state. */
  private async chatOrderPage(
    instanceId: string,
    merge: boolean,
    desc: boolean,
    offset: number,
    limit: number,
  ): Promise<{ chat: ChatDoc; state: ChatState | null }[]> {
    const order = merge ? this.k.readChatOrderVisible(instanceId) : this.k.readChatOrder(instanceId);
    for (let attempt = 0; ; attempt++) {
      const [from, to] = [String(offset), String(offset + limit - 1)];
      const ids = desc ? await this.redis.zrange(order, from, to, "REV") : await this.redis.zrange(order, from, to);
      const rows = await this.chatRows(instanceId, ids);
      const gone = ids.filter((id) => !rows.some((r) => r.chat.chatId === id));
      if (gone.length === 0 || attempt >= 5) return rows;
      // Records gone (retention): out of both order sets, and the page again.
      await this.redis
        .multi()
        .zrem(this.k.readChatOrder(instanceId), ...gone)
        .zrem(this.k.readChatOrderVisible(instanceId), ...gone)
        .exec();
    }
  }

  /** The records of `chatIds` that exist, in that order, with their states. */
  private async chatRows(instanceId: string, chatIds: string[]): Promise<{ chat: ChatDoc; state: ChatState | null }[]> {
    if (chatIds.length === 0) return [];
    const [docs, states] = await Promise.all([
      this.jsonMGet<ChatDoc>(chatIds.map((id) => this.chatKey(instanceId, id))),
      this.chatStates(instanceId, chatIds),
    ]);
    return docs.flatMap((chat, i) => (chat ? [{ chat, state: states[i] ?? null }] : []));
  }

  private async chatStates(instanceId: string, chatIds: string[]): Promise<(ChatState | null)[]> {
    if (chatIds.length === 0) return [];
    const p = this.redis.pipeline();
    for (const id of chatIds) {
      p.hmget(
        this.chatStateKey(instanceId, id),
        "lastMessageAt",
        "timestamp",
        "lastMessageId",
        "lastMessage",
        "unreadCount",
        "markedUnread",
      );
    }
    return ((await p.exec()) ?? []).map(([err, reply]) => {
      if (err) throw err;
      const [at, ts, id, last, unread, marked] = reply as (string | null)[];
      if (at === null || at === undefined) return null;
      return {
        lastMessageAt: Number(at),
        timestamp: Number(ts ?? 0),
        lastMessageId: id ?? "",
        lastMessage: last ? (JSON.parse(last) as LastMessageSummary) : null,
        unreadCount: Number(unread ?? 0),
        markedUnread: marked === "1",
      };
    });
  }

  private async chatViews(
    instance: Instance,
    rows: { chat: ChatDoc; state: ChatState | null }[],
    merge: boolean,
  ): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    const lastDocs = instance.settings.storage.messages
      ? await this.jsonMGet<MessageDoc>(rows.map((r) => this.messageKey(instance.id, r.state?.lastMessageId || "none")))
      : rows.map(() => null);
    const lastViews = await this.views(
      instance,
      lastDocs.filter((d): d is MessageDoc => d !== null),
      false,
    );
    let j = 0;
    const out: { chat: ChatDoc; view: ChatView }[] = [];
    const seen = new Set<string>();
    for (const [i, { chat, state }] of rows.entries()) {
      const last = lastDocs[i] ? lastViews[j++]! : null;
      // Merged: a chat still kept under a lid whose number is known now shows under the number.
      const id = merge ? ((await this.identity.rewrite(instance.id, chat.chatId)) ?? chat.chatId) : chat.chatId;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({
        chat,
        view: {
          id,
          name: chat.name,
          lid: chat.lid ?? (chat.chatId.endsWith("@lid") ? chat.chatId : null),
          isGroup: chat.isGroup,
          // Spec 1 rule 7: a signed link that answers 404 while no picture is visible.
          picture: chat.picture ?? this.mediaLinks.avatar(instance.id, id),
          timestamp: state?.timestamp ?? 0,
          unreadCount: state?.unreadCount ?? 0,
          markedUnread: state?.markedUnread ?? false,
          lastMessage: last ?? state?.lastMessage ?? null,
        },
      });
    }
    return out;
  }

  /** One chat record (merged: the one that shows the person), or null. */
  async getChat(instance: Instance, chatId: string): Promise<ChatView | null> {
    if (!instance.settings.storage.chats) return null;
    for (const id of await this.chatDocIds(instance.id, chatId)) {
      const [row] = await this.chatRows(instance.id, [id]);
      if (row && !row.chat.merged) return (await this.chatViews(instance, [row], true))[0]?.view ?? null;
    }
    return null;
  }
}
