import { formatMessageId, type Instance, type OutboundContent, parseMessageId } from "@gw/contracts";
import type { Redis } from "ioredis";
import { Repository, Schema } from "redis-om";
import type { IdentityMap } from "./identity.ts";
import type { Keys } from "./keys.ts";
import { extensionOf, type MediaLinks } from "./media-links.ts";
import { MESSAGE_KEEP_MS } from "./messages.ts";
import type { OmClient } from "./redis.ts";

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
  /** `<instanceId>:<chatId>`: the non-merged chat of the message (indexed). */
  chatKey: string;
  /** `<instanceId>:<chatId>` and `<instanceId>:<chatLid>`: what a merged read by either finds (indexed). */
  keys: string[];
  isGroup?: true;
  fromMe: boolean;
  /** Group messages from others: the sender, and its lid. */
  participant?: string;
  participantLid?: string;
  pushName?: string;
  timestamp: number;
  /** timestamp × 1000 + arrival ms within the second: the sort (indexed), ties follow arrival. */
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

export interface ChatDoc {
  instanceId: string;
  chatId: string;
  lid: string | null;
  name: string | null;
  isGroup: boolean;
  /** sortKey of the last message (indexed, sortable). */
  lastMessageAt: number;
  timestamp: number;
  lastMessageId: string;
  lastMessage: LastMessageSummary;
  unreadCount: number;
  markedUnread: boolean;
  /** A chat kept under a privacy id whose conversation now continues under the number. */
  merged: boolean;
  mergedInto: string | null;
  picture: string | null;
  sortName: string;
  sortId: string;
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
// Schemas: redis-om declares the documents and their RediSearch indexes.

export function readModelSchemas(k: Keys) {
  return {
    messages: new Schema(
      k.readMessageSchema,
      {
        chatKey: { type: "string" },
        keys: { type: "string[]", path: "$.keys[*]" },
        fromMe: { type: "boolean" },
        ack: { type: "number" },
        sortKey: { type: "number", sortable: true },
      },
      { dataStructure: "JSON" },
    ),
    chats: new Schema(
      k.readChatSchema,
      {
        instanceId: { type: "string" },
        chatId: { type: "string" },
        merged: { type: "boolean" },
        lastMessageAt: { type: "number", sortable: true },
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

/** An ack moves forward only; `ERROR` only before delivery. `cur` -2: nothing known yet. */
const ADVANCE = `
local function advance(cur, n)
  if n == -1 then return cur <= 1 and cur ~= -1 end
  return n > cur
end
local function setAck(key, n)
  redis.call('JSON.SET', key, '.ack', n)
end
`;

/**
 * KEYS: doc, pending ack, chat's message set, lid's message set (or the chat's again). ARGV:
 * json, ttl ms, sortKey, networkId. Keeps an ack that is further along (stored or pending); the
 * message sets (the fast page) hold the message under its sortKey and live as long as their
 * newest message, like chat records.
 */
const SAVE_MESSAGE = `${ADVANCE}
local function index()
  for i = 3, 4 do
    if i == 3 or KEYS[4] ~= KEYS[3] then
      redis.call('ZADD', KEYS[i], ARGV[3], ARGV[4])
      redis.call('PEXPIRE', KEYS[i], ARGV[2])
    end
  end
end
local cur = -2
local edit = nil
if redis.call('EXISTS', KEYS[1]) == 1 then
  -- Recorded again (a repeated event): a revocation stays, an edit stays.
  if redis.call('JSON.TYPE', KEYS[1], '.revoked') then return 0 end
  cur = tonumber(redis.call('JSON.GET', KEYS[1], '.ack'))
  if redis.call('JSON.TYPE', KEYS[1], '.edited') then
    edit = { redis.call('JSON.GET', KEYS[1], '.body'), redis.call('JSON.GET', KEYS[1], '.editedAt') }
  end
end
redis.call('JSON.SET', KEYS[1], '$', ARGV[1])
if edit then
  redis.call('JSON.SET', KEYS[1], '.body', edit[1])
  redis.call('JSON.SET', KEYS[1], '.edited', 'true')
  redis.call('JSON.SET', KEYS[1], '.editedAt', edit[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
index()
local n = tonumber(redis.call('JSON.GET', KEYS[1], '.ack'))
if advance(n, cur) then setAck(KEYS[1], cur); n = cur end
local p = redis.call('GET', KEYS[2])
if p then
  if advance(n, tonumber(p)) then setAck(KEYS[1], tonumber(p)) end
  redis.call('DEL', KEYS[2])
end
return 1
`;

/** KEYS: doc, pending ack. ARGV: ack, pending ttl ms. A message not stored yet keeps its ack pending a while. */
const APPLY_ACK = `${ADVANCE}
local n = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then
  local cur = tonumber(redis.call('JSON.GET', KEYS[1], '.ack'))
  if advance(cur, n) then setAck(KEYS[1], n) return 1 end
  return 0
end
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

/** KEYS: doc. ARGV: ack. Raises received messages' acks (messages read), never lowers. */
const RAISE_ACK = `${ADVANCE}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local cur = tonumber(redis.call('JSON.GET', KEYS[1], '.ack'))
local n = tonumber(ARGV[1])
if advance(cur, n) then setAck(KEYS[1], n) return 1 end
return 0
`;

/**
 * KEYS: chat, chat under the privacy id (or the chat again). ARGV: create json, lastMessageAt,
 * lastMessageId, last summary json, timestamp, name, sortName, lid, fromMe 1/0, ttl ms, chatId.
 *
 * Every write to an indexed document re-indexes all of it (RediSearch: ~40 µs a write here),
 * so an existing chat changes in one `JSON.MERGE`. Merging `.lastMessage` replaces it whole
 * because every summary has the same six fields, none of them null (LastMessageSummary; a null
 * would delete its field under merge semantics). Numbers arrive as JSON literals and go into
 * the patch as they are.
 */
const TOUCH_CHAT = `
local key = KEYS[1]
local at = tonumber(ARGV[2])
local fromMe = ARGV[9] == '1'
if redis.call('EXISTS', key) == 0 then
  redis.call('JSON.SET', key, '$', ARGV[1])
else
  local cur = tonumber(redis.call('JSON.GET', key, '.lastMessageAt'))
  local newest = at >= cur
  local patch = {}
  if newest then
    patch[#patch + 1] = '"lastMessageAt":' .. ARGV[2]
    patch[#patch + 1] = '"timestamp":' .. ARGV[5]
    patch[#patch + 1] = '"lastMessageId":' .. cjson.encode(ARGV[3])
    patch[#patch + 1] = '"lastMessage":' .. ARGV[4]
  end
  if ARGV[6] ~= '' then
    patch[#patch + 1] = '"name":' .. cjson.encode(ARGV[6])
    patch[#patch + 1] = '"sortName":' .. cjson.encode(ARGV[7])
  end
  if ARGV[8] ~= '' then patch[#patch + 1] = '"lid":' .. cjson.encode(ARGV[8]) end
  if fromMe then
    patch[#patch + 1] = '"unreadCount":0'
    patch[#patch + 1] = '"markedUnread":false'
  else
    local unread = tonumber(redis.call('JSON.GET', key, '.unreadCount')) or 0
    patch[#patch + 1] = '"unreadCount":' .. string.format('%d', unread + 1)
  end
  redis.call('JSON.MERGE', key, '$', '{' .. table.concat(patch, ',') .. '}')
end
redis.call('PEXPIRE', key, ARGV[10])
local lidKey = KEYS[2]
if lidKey ~= key and redis.call('EXISTS', lidKey) == 1 and redis.call('JSON.GET', lidKey, '.merged') == 'false' then
  if not fromMe then
    local unread = tonumber(redis.call('JSON.GET', lidKey, '.unreadCount'))
    if unread > 0 then redis.call('JSON.NUMINCRBY', key, '.unreadCount', unread) end
  end
  local name = redis.call('JSON.GET', key, '.name')
  if name == 'null' then
    redis.call('JSON.SET', key, '.name', redis.call('JSON.GET', lidKey, '.name'))
  end
  redis.call('JSON.SET', lidKey, '.merged', 'true')
  redis.call('JSON.SET', lidKey, '.mergedInto', cjson.encode(ARGV[11]))
end
return 1
`;

// ---------------------------------------------------------------------------------------------

/** RediSearch TAG values: punctuation and spaces escaped. */
export function escapeTag(value: string): string {
  return value.replace(/[,.<>{}[\]"':;!@#$%^&*()\-+=~|/\\\s]/g, "\\$&");
}

/** A chat as its TAG value: `<instanceId>:<chatId>` (`|` is redis-om's tag separator). */
const tagKey = (instanceId: string, chatId: string) => `${instanceId}:${chatId}`;

const tagQuery = (field: string, values: string[]) => `@${field}:{${values.map(escapeTag).join(" | ")}}`;

/**
 * The documents of an FT.SEARCH … RETURN 1 $ reply: RESP3 (`results: [{id, extra_attributes:
 * {$: json}}]`, flattened by ioredis into key/value arrays) or RESP2 (`[total, key, ["$", json], …]`).
 */
export function searchDocs<T>(reply: unknown): T[] {
  if (!Array.isArray(reply)) return [];
  const docs: T[] = [];
  if (typeof reply[0] === "number") {
    for (let i = 2; i < reply.length; i += 2) {
      const fields = reply[i] as unknown[];
      const at = fields.indexOf("$");
      if (at >= 0) docs.push(JSON.parse(String(fields[at + 1])) as T);
    }
    return docs;
  }
  const results = reply[reply.indexOf("results") + 1] as unknown[][] | undefined;
  for (const entry of results ?? []) {
    const attrs = entry[entry.indexOf("extra_attributes") + 1] as unknown[];
    const at = attrs.indexOf("$");
    if (at >= 0) docs.push(JSON.parse(String(attrs[at + 1])) as T);
  }
  return docs;
}

/** The `__key` of each row of an FT.AGGREGATE … LOAD 1 @__key reply (RESP2 `[total, [field, value, …], …]` or RESP3). */
export function aggregateKeys(reply: unknown): string[] {
  if (!Array.isArray(reply)) return [];
  const rows: unknown[][] =
    typeof reply[0] === "number"
      ? (reply.slice(1) as unknown[][])
      : ((reply[reply.indexOf("results") + 1] as unknown[][] | undefined) ?? []).map(
          (entry) => entry[entry.indexOf("extra_attributes") + 1] as unknown[],
        );
  const keys: string[] = [];
  for (const row of rows) {
    const at = Array.isArray(row) ? row.indexOf("__key") : -1;
    if (at >= 0) keys.push(String(row[at + 1]));
  }
  return keys;
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

/** How the chats route's sortBy maps to the stored fields. */
const CHAT_SORT_FIELD: Record<ChatSort, string> = { lastMessageAt: "lastMessageAt", name: "sortName", id: "sortId" };

/** The scripts, as ioredis defines them on the client and its pipelines. */
type Scripts<R> = {
  gwRmSave(
    doc: string,
    pending: string,
    chatSet: string,
    lidSet: string,
    json: string,
    ttlMs: string,
    sortKey: string,
    networkId: string,
  ): R;
  gwRmAck(doc: string, pending: string, ack: string, ttlMs: string): R;
  gwRmPatch(doc: string, ...pathsAndValues: string[]): R;
  gwRmRaise(doc: string, ack: string): R;
  gwRmChat(chat: string, lidChat: string, ...args: string[]): R;
};

export interface ReadModelOptions {
  retentionMs: number;
  /** How long an ack waits for its message to be stored (it may race the send that stores it). */
  pendingAckMs?: number;
}

/**
 * The read model of spec 4.5: messages that arrive or are sent, stored per instance as JSON
 * documents with RediSearch indexes (declared through redis-om), and the chat list built from
 * them. One identity per person: reads rewrite privacy ids to numbers where the instance knows
 * them, and merged reads find messages that arrived by lid. Design and choices: docs/read-model.md.
 */
export class ReadModel {
  readonly messagesRepo: Repository;
  readonly chatsRepo: Repository;
  private readonly schemas: ReturnType<typeof readModelSchemas>;
  private readonly pendingAckMs: number;

  constructor(
    private readonly redis: Redis,
    om: OmClient,
    private readonly k: Keys,
    private readonly identity: IdentityMap,
    private readonly mediaLinks: MediaLinks,
    private readonly opts: ReadModelOptions,
  ) {
    this.schemas = readModelSchemas(k);
    this.messagesRepo = new Repository(this.schemas.messages, om);
    this.chatsRepo = new Repository(this.schemas.chats, om);
    this.pendingAckMs = opts.pendingAckMs ?? 120_000;
    redis.defineCommand("gwRmSave", { numberOfKeys: 4, lua: SAVE_MESSAGE });
    redis.defineCommand("gwRmAck", { numberOfKeys: 2, lua: APPLY_ACK });
    redis.defineCommand("gwRmPatch", { numberOfKeys: 1, lua: PATCH });
    redis.defineCommand("gwRmRaise", { numberOfKeys: 1, lua: RAISE_ACK });
    redis.defineCommand("gwRmChat", { numberOfKeys: 2, lua: TOUCH_CHAT });
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

  /**
   * The message sets of a stored message: its chat's, and (stored under a number, carrying the
   * privacy id) its lid's. Together they hold what `@keys` finds; the chat's alone what `@chatKey` finds.
   */
  private messageSets(instanceId: string, doc: Pick<MessageDoc, "chatId" | "chatLid">): [string, string] {
    const chatSet = this.k.readChatIndex(instanceId, doc.chatId);
    return [
      chatSet,
      doc.chatLid && doc.chatLid !== doc.chatId ? this.k.readLidIndex(instanceId, doc.chatLid) : chatSet,
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
      const doc = this.docOf(instance.id, payload, extra);
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
    await this.r.gwRmAck(
      this.messageKey(instance.id, networkId),
      this.k.readPendingAck(instance.id, networkId),
      String(n),
      String(this.pendingAckMs),
    );
  }

  /** Received messages read by this account (`POST …/messages/read`): ack READ; the chat's unread cleared. */
  async markRead(instance: Instance, networkIds: string[], chatId: string): Promise<void> {
    const instanceId = instance.id;
    const chatIds = instance.settings.storage.chats ? await this.chatDocIds(instanceId, chatId) : [];
    const pipeline = this.redis.pipeline();
    const p = pipeline as unknown as Scripts<unknown>;
    for (const id of networkIds) p.gwRmRaise(this.messageKey(instanceId, id), String(ACK.READ));
    for (const chatId of chatIds) {
      p.gwRmPatch(this.chatKey(instanceId, chatId), ".unreadCount", "0", ".markedUnread", "false");
    }
    await pipeline.exec();
  }

  /** `POST /chats/{chatId}/unread`: the chat shows as unread (at least one) until read or answered. */
  async markUnread(instance: Instance, chatId: string): Promise<void> {
    if (!instance.settings.storage.chats) return;
    const ids = await this.chatDocIds(instance.id, chatId);
    for (const id of ids) {
      const key = this.chatKey(instance.id, id);
      const doc = (await this.jsonGet<ChatDoc>(key)) as ChatDoc | null;
      if (!doc || doc.merged) continue;
      await this.r.gwRmPatch(key, ".markedUnread", "true", ".unreadCount", String(Math.max(1, doc.unreadCount)));
    }
  }

  /** Messages already in stored form, pipelined (bulk loads and benchmarks). */
  async saveMany(instanceId: string, docs: MessageDoc[]): Promise<void> {
    const p = this.redis.pipeline();
    const ttl = this.opts.retentionMs;
    const sets = new Map<string, (string | number)[]>();
    for (const doc of docs) {
      p.call("JSON.SET", this.messageKey(instanceId, doc.networkId), "$", JSON.stringify(doc));
      p.pexpire(this.messageKey(instanceId, doc.networkId), ttl);
      for (const set of new Set(this.messageSets(instanceId, doc))) {
        const members = sets.get(set) ?? [];
        if (members.length === 0) sets.set(set, members);
        members.push(doc.sortKey, doc.networkId);
      }
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
    await this.r.gwRmSave(
      this.messageKey(instanceId, doc.networkId),
      this.k.readPendingAck(instanceId, doc.networkId),
      ...this.messageSets(instanceId, doc),
      JSON.stringify(doc),
      String(this.opts.retentionMs),
      String(doc.sortKey),
      doc.networkId,
    );
  }

  private async touchChat(instanceId: string, doc: MessageDoc, chatName: string | null): Promise<void> {
    const chatId = doc.chatId;
    const lidKey =
      doc.chatLid && doc.chatLid !== chatId ? this.chatKey(instanceId, doc.chatLid) : this.chatKey(instanceId, chatId);
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
      lastMessageAt: doc.sortKey,
      timestamp: doc.timestamp,
      lastMessageId: doc.networkId,
      lastMessage: summary,
      unreadCount: doc.fromMe ? 0 : 1,
      markedUnread: false,
      merged: false,
      mergedInto: null,
      picture: null,
      sortName: (name ?? chatId).toLowerCase(),
      sortId: chatId,
    };
    await this.r.gwRmChat(
      this.chatKey(instanceId, chatId),
      lidKey,
      JSON.stringify(create),
      String(doc.sortKey),
      doc.networkId,
      JSON.stringify(summary),
      String(doc.timestamp),
      name ?? "",
      (name ?? chatId).toLowerCase(),
      doc.chatLid ?? "",
      doc.fromMe ? "1" : "0",
      String(this.opts.retentionMs),
      chatId,
    );
  }

  private targetOf(payload: Payload, extra: RecordExtra): string | null {
    const raw = extra.targetId ?? str(payload.messageId);
    if (!raw) return null;
    return parseMessageId(raw)?.id ?? raw;
  }

  /** The stored form of a spec 2.11 message payload (null when it names no message). */
  docOf(instanceId: string, payload: Payload, extra: RecordExtra = {}, now = Date.now()): MessageDoc | null {
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
    const chatKey = tagKey(instanceId, chatId);
    const doc: MessageDoc = {
      networkId,
      chatId,
      chatKey,
      keys: chatLid && chatLid !== chatId ? [chatKey, tagKey(instanceId, chatLid)] : [chatKey],
      fromMe,
      timestamp,
      sortKey: timestamp * 1000 + (now % 1000),
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
   * Spec 4.5 `GET /chats/{chatId}/messages`: newest first unless asked otherwise. The common page
   * (no `fromMe`/`ack` filter) is read from the chats' message sets; filtered pages search the
   * index. Both order by sortKey, then by network id (`path` forces one, for tests).
   */
  async listMessages(
    instance: Instance,
    chatId: string,
    q: MessageQuery,
    path?: "sets" | "search",
  ): Promise<MessageView[]> {
    if (!instance.settings.storage.messages) return [];
    const ids = q.merge ? (await this.chatFamily(instance.id, chatId)).ids : [chatId];
    const docs =
      path === "search" || (path !== "sets" && (q.fromMe !== undefined || q.ack !== undefined))
        ? await this.searchPage(instance.id, chatId, ids, q)
        : await this.setsPage(instance.id, ids, q);
    return this.views(instance, docs, q.downloadMedia);
  }

  /**
   * The fast page: ZRANGE … BYSCORE of each message set the read covers (the chat's, and merged,
   * the family's chats and lids), merged here, then the documents in one JSON.MGET. A member
   * whose document expired (retention) is dropped from the sets and the page read again.
   */
  private async setsPage(instanceId: string, ids: string[], q: MessageQuery): Promise<MessageDoc[]> {
    if (q.limit <= 0) return [];
    const sets = q.merge
      ? ids.flatMap((id) => [this.k.readChatIndex(instanceId, id), this.k.readLidIndex(instanceId, id)])
      : [this.k.readChatIndex(instanceId, ids[0]!)];
    const desc = q.sortOrder !== "asc";
    const lo = q.timestampGte !== undefined ? String(q.timestampGte * 1000) : "-inf";
    const hi = q.timestampLte !== undefined ? String(q.timestampLte * 1000 + 999) : "+inf";
    // One set: the page itself; several: the first offset + limit of each, merged.
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

  /** A page through the index (filters the sets do not answer): FT.AGGREGATE sorted by sortKey, then key. */
  private async searchPage(instanceId: string, chatId: string, ids: string[], q: MessageQuery): Promise<MessageDoc[]> {
    const parts: string[] = [];
    if (q.merge) {
      parts.push(
        tagQuery(
          "keys",
          ids.map((id) => tagKey(instanceId, id)),
        ),
      );
    } else {
      parts.push(tagQuery("chatKey", [tagKey(instanceId, chatId)]));
    }
    if (q.fromMe !== undefined) parts.push(`@fromMe:{${q.fromMe}}`);
    if (q.ack !== undefined) parts.push(`@ack:[${q.ack} ${q.ack}]`);
    if (q.timestampGte !== undefined || q.timestampLte !== undefined) {
      const lo = q.timestampGte !== undefined ? q.timestampGte * 1000 : "-inf";
      const hi = q.timestampLte !== undefined ? q.timestampLte * 1000 + 999 : "+inf";
      parts.push(`@sortKey:[${lo} ${hi}]`);
    }
    return this.search(parts.join(" "), q.sortOrder, q.offset, q.limit);
  }

  /** Received messages of a chat not read yet (for `POST …/messages/read`), newest first. */
  async unreadMessages(
    instance: Instance,
    chatId: string,
    opts: { limit: number; sinceSeconds?: number },
  ): Promise<{ id: string; networkId: string; chatId: string; storedId: string }[]> {
    if (!instance.settings.storage.messages) return [];
    const { ids } = await this.chatFamily(instance.id, chatId);
    let query = `${tagQuery(
      "keys",
      ids.map((id) => tagKey(instance.id, id)),
    )} @fromMe:{false} @ack:[-inf ${ACK.DEVICE}]`;
    if (opts.sinceSeconds !== undefined) query += ` @sortKey:[${opts.sinceSeconds * 1000} +inf]`;
    const docs = await this.search(query, "desc", 0, opts.limit);
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

  /**
   * Messages through the index, ordered like the message sets: by sortKey, then by key (the
   * network id; FT.SEARCH alone would order ties by indexing order, which every ack changes).
   * The keys come from FT.AGGREGATE, the documents, parsed as they are, from one JSON.MGET.
   */
  private async search(query: string, order: "asc" | "desc", offset: number, limit: number): Promise<MessageDoc[]> {
    if (limit <= 0) return [];
    const dir = order === "asc" ? "ASC" : "DESC";
    const reply = await this.redis.call(
      "FT.AGGREGATE",
      `${this.k.readMessageSchema}:index`,
      query,
      "LOAD",
      "1",
      "@__key",
      "SORTBY",
      "4",
      "@sortKey",
      dir,
      "@__key",
      dir,
      "LIMIT",
      String(offset),
      String(limit),
    );
    const keys = aggregateKeys(reply);
    const docs = await this.jsonMGet<MessageDoc>(keys);
    return docs.filter((d): d is MessageDoc => d !== null);
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
    if (!/^[\w-]{1,128}$/.test(networkId)) return null;
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

  /** Spec 4.5 `GET /chats` and the overview: chat records, optionally merged across lid and number. */
  async listChats(instance: Instance, q: ChatQuery): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    if (!instance.settings.storage.chats || q.limit <= 0) return [];
    const parts = [tagQuery("instanceId", [instance.id])];
    if (q.merge) parts.push("@merged:{false}");
    if (q.ids) {
      if (q.ids.length === 0) return [];
      const all = new Set<string>();
      for (const id of q.ids) {
        if (q.merge) for (const x of (await this.chatFamily(instance.id, id)).ids) all.add(x);
        else all.add(id);
      }
      parts.push(tagQuery("chatId", [...all]));
    }
    const field = CHAT_SORT_FIELD[q.sortBy];
    const found = (await this.chatsRepo
      .searchRaw(parts.join(" "))
      .sortBy(field, q.sortOrder === "asc" ? "ASC" : "DESC")
      .return.page(q.offset, q.limit)) as unknown as ChatDoc[];
    return this.chatViews(instance, found, q.merge);
  }

  private async chatViews(
    instance: Instance,
    chats: ChatDoc[],
    merge: boolean,
  ): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    const lastDocs = instance.settings.storage.messages
      ? await this.jsonMGet<MessageDoc>(chats.map((c) => this.messageKey(instance.id, c.lastMessageId)))
      : chats.map(() => null);
    const lastViews = await this.views(
      instance,
      lastDocs.filter((d): d is MessageDoc => d !== null),
      false,
    );
    let j = 0;
    const out: { chat: ChatDoc; view: ChatView }[] = [];
    const seen = new Set<string>();
    for (const [i, chat] of chats.entries()) {
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
          timestamp: chat.timestamp,
          unreadCount: chat.unreadCount,
          markedUnread: chat.markedUnread,
          lastMessage: last ?? chat.lastMessage ?? null,
        },
      });
    }
    return out;
  }

  /** One chat record (merged: the one that shows the person), or null. */
  async getChat(instance: Instance, chatId: string): Promise<ChatView | null> {
    if (!instance.settings.storage.chats) return null;
    for (const id of await this.chatDocIds(instance.id, chatId)) {
      const doc = await this.jsonGet<ChatDoc>(this.chatKey(instance.id, id));
      if (doc && !doc.merged) return (await this.chatViews(instance, [doc], true))[0]?.view ?? null;
    }
    return null;
  }
}
