import {
  DEFAULT_QUEUE_SETTINGS,
  type FinalQueueStatus,
  QUEUE_HISTORY_MS,
  QUEUE_MAX_PENDING,
  type QueueItem,
  type QueueSettings,
  type QueueSettingsPatch,
  type QueueStatus,
  type SendRequest,
} from "@gw/contracts";
import type { Invalidations, Keys } from "@gw/platform";
import type { Redis } from "ioredis";

/**
 * The send queue's state in Redis (spec 2.7, 3.3, 4.10). Temporal owns the waiting; this owns
 * what clients read and every transition of an item, each one Lua script so that a cancel and a
 * send can never both win:
 *
 * - `q:<i>:settings` HASH: mode, delayMin, delayMax, ttlHours, paused, seq.
 * - `q:<i>:pending` ZSET qid → seq: the FIFO of items still `queued` (or `sending`).
 * - `q:<i>:all` ZSET qid → seq, `q:<i>:h:<status>` ZSET qid → finish key: 7-day lists.
 * - `q:<i>:item:<qid>` HASH: the item and its request (JSON); 7 days after it finished it expires.
 * - `q:<i>:running`: set while the instance's queue workflow runs; an enqueue that finds it
 *   absent (and the queue not paused) sets it and must signal-with-start the workflow.
 */

export interface StoredQueueItem extends QueueItem {
  request: SendRequest;
  /** The item's own `delayMessage` / `delayTyping` (ms), null when not given. */
  ownDelayMs: number | null;
  ownTypingMs: number | null;
  textLength: number;
  plannedAt: number | null;
  /** Its final event (queue.sent / queue.failed) was published. */
  announced: boolean;
}

const ITEM_FIELDS_LUA = `
local function final(status) return status == 'sent' or status == 'failed' or status == 'expired' or status == 'cancelled' end
`;

/** Ends an item: final status, off the pending set, into the history lists. KEYS: settings, pending, item, all, historyPrefix, active. */
const FINISH_BODY = `
local function finish(qid, itemKey, status, now, messageId, err)
  redis.call('HSET', itemKey, 'status', status, 'finishedAt', now)
  if messageId and messageId ~= '' then redis.call('HSET', itemKey, 'messageId', messageId) end
  if err and err ~= '' then redis.call('HSET', itemKey, 'error', err) end
  redis.call('PEXPIRE', itemKey, ${QUEUE_HISTORY_MS})
  redis.call('ZREM', KEYS[2], qid)
  redis.call('ZREM', string.sub(KEYS[2], 1, -8) .. 'expiry', qid)
  local seq = tonumber(redis.call('HGET', itemKey, 'seq') or '0')
  redis.call('ZADD', KEYS[5] .. status, now * 1000 + (seq % 1000), qid)
  redis.call('ZREMRANGEBYSCORE', KEYS[5] .. status, '-inf', (now - ${QUEUE_HISTORY_MS}) * 1000)
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[6], ARGV[1]) end
end
`;

const ENQUEUE = `
-- KEYS: settings, pending, item, all, running, active; ARGV: instanceId, qid, now, max, defaultTtlHours, fields...
-- An id already queued (an Idempotency-Key's retry after its first gateway died): that item.
if redis.call('EXISTS', KEYS[3]) == 1 then return {-2} end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {-1} end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local ttl = tonumber(redis.call('HGET', KEYS[1], 'ttlHours') or ARGV[5])
local now = tonumber(ARGV[3])
local expiresAt = now + ttl * 3600000
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'status', 'queued', 'seq', seq, 'createdAt', now, 'expiresAt', expiresAt, 'attempts', 0)
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[2], seq, ARGV[2])
redis.call('ZADD', KEYS[4], seq, ARGV[2])
redis.call('ZADD', string.sub(KEYS[2], 1, -8) .. 'expiry', expiresAt, ARGV[2])
redis.call('SADD', KEYS[6], ARGV[1])
local start = 0
if redis.call('HGET', KEYS[1], 'paused') ~= '1' then
  if redis.call('SET', KEYS[5], '1', 'NX') then start = 1 end
end
return {redis.call('ZCARD', KEYS[2]) - 1, start, expiresAt, seq}
`;

const NEXT = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active, running; ARGV: instanceId, now, defaultTtl
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local expired = {}
for _ = 1, 200 do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not head then
    redis.call('DEL', KEYS[7])
    return {'empty', expired}
  end
  if redis.call('HGET', KEYS[1], 'paused') == '1' then
    redis.call('DEL', KEYS[7])
    return {'paused', expired}
  end
  local itemKey = KEYS[3] .. head
  local status = redis.call('HGET', itemKey, 'status')
  if not status or final(status) then
    redis.call('ZREM', KEYS[2], head)
  elseif status == 'queued' and tonumber(redis.call('HGET', itemKey, 'expiresAt')) <= now then
    finish(head, itemKey, 'expired', now, nil, 'expirou antes do envio (ttlHours)')
    table.insert(expired, head)
  else
    return {'item', expired, head}
  end
end
return {'busy', expired}
`;

const PLAN = `
-- KEYS: item; ARGV: delayMs, typingMs, plannedAt
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'sending' then return 0 end
redis.call('HSET', KEYS[1], 'delayMs', ARGV[1], 'typingMs', ARGV[2], 'plannedAt', ARGV[3])
return 1
`;

const BEGIN_SEND = `
-- KEYS: settings, item; ARGV: none
local status = redis.call('HGET', KEYS[2], 'status')
if status ~= 'queued' and status ~= 'sending' then return 'gone' end
if redis.call('HGET', KEYS[1], 'paused') == '1' then return 'paused' end
redis.call('HSET', KEYS[2], 'status', 'sending')
redis.call('HINCRBY', KEYS[2], 'attempts', 1)
return 'ok'
`;

const REQUEUE = `
-- KEYS: item; ARGV: error
if redis.call('HGET', KEYS[1], 'status') == 'sending' then
  redis.call('HSET', KEYS[1], 'status', 'queued', 'error', ARGV[1])
  return 1
end
return 0
`;

const FINISH = `
-- KEYS: settings, pending, item, all, historyPrefix, active; ARGV: instanceId, qid, status, now, messageId, error, onlyFrom
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local status = redis.call('HGET', KEYS[3], 'status')
if not status or final(status) then return 0 end
if ARGV[7] ~= '' and status ~= ARGV[7] then return 0 end
finish(ARGV[2], KEYS[3], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6])
return 1
`;

const CANCEL_ALL = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active; ARGV: instanceId, now
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local out = {}
for _, qid in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local itemKey = KEYS[3] .. qid
  if redis.call('HGET', itemKey, 'status') == 'queued' then
    finish(qid, itemKey, 'cancelled', now, nil, nil)
    table.insert(out, qid)
  end
end
return out
`;

const EXPIRE_DUE = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active; ARGV: instanceId, now
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local out = {}
local expiryKey = string.sub(KEYS[2], 1, -8) .. 'expiry'
for _, qid in ipairs(redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now, 'LIMIT', 0, 1000)) do
  local itemKey = KEYS[3] .. qid
  local status = redis.call('HGET', itemKey, 'status')
  if status == 'queued' then
    finish(qid, itemKey, 'expired', now, nil, 'expirou antes do envio (ttlHours)')
    table.insert(out, qid)
  elseif status ~= 'sending' then
    redis.call('ZREM', expiryKey, qid)
  end
end
return out
`;

export type EnqueueResult =
  | { ok: true; position: number; mustStart: boolean; item: StoredQueueItem; existing?: boolean }
  | { ok: false; reason: "full" };

export type NextResult =
  | { kind: "item"; item: StoredQueueItem; expired: string[] }
  | { kind: "empty" | "paused" | "busy"; expired: string[] };

/** The stored mode, the default when unset. */
function modeOf(v: string | null | undefined): QueueSettings["mode"] {
  return v === "queue" ? "queue" : v === "direct" ? "direct" : DEFAULT_QUEUE_SETTINGS.mode;
}

function num(v: string | undefined): number | null {
  return v === undefined || v === "" ? null : Number(v);
}
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class QueueStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly invalidations: Invalidations,
  ) {}

  private keysOf(instanceId: string) {
    const base = this.k.queuePending(instanceId).replace(/pending$/, "");
    return {
      settings: this.k.queueSettings(instanceId),
      pending: this.k.queuePending(instanceId),
      itemPrefix: `${base}item:`,
      all: `${base}all`,
      historyPrefix: `${base}h:`,
      active: this.k.queueActive,
      running: this.k.queueRunning(instanceId),
      expiry: `${base}expiry`,
    };
  }

  // --- settings --------------------------------------------------------------------------------

  async settings(instanceId: string): Promise<QueueSettings> {
    const ks = this.keysOf(instanceId);
    const [[, raw], [, pending]] = (await this.redis.multi().hgetall(ks.settings).zcard(ks.pending).exec()) as [
      [null, Record<string, string>],
      [null, number],
    ];
    return {
      mode: modeOf(raw.mode),
      delayMin: num(raw.delayMin) ?? DEFAULT_QUEUE_SETTINGS.delayMin,
      delayMax: num(raw.delayMax) ?? DEFAULT_QUEUE_SETTINGS.delayMax,
      ttlHours: num(raw.ttlHours) ?? DEFAULT_QUEUE_SETTINGS.ttlHours,
      paused: raw.paused === "1",
      pending,
    };
  }

  /** The mode alone (every send without `X-Queue` asks it, through SendQueue's cache). */
  async mode(instanceId: string): Promise<QueueSettings["mode"]> {
    return modeOf(await this.redis.hget(this.keysOf(instanceId).settings, "mode"));
  }

  /**
   * Only sent fields change; a pair that ends with delayMin > delayMax is refused by the caller.
   * Replicas that cache the mode are told.
   */
  async updateSettings(instanceId: string, patch: QueueSettingsPatch): Promise<QueueSettings> {
    const fields: (string | number)[] = [];
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) fields.push(k, v);
    if (fields.length) {
      await this.redis.hset(this.keysOf(instanceId).settings, ...fields);
      await this.invalidations.announce("queue", instanceId);
    }
    return this.settings(instanceId);
  }

  /** Pauses or resumes. Resuming answers whether the workflow must be (re)started. */
  async setPaused(instanceId: string, paused: boolean): Promise<{ settings: QueueSettings; mustStart: boolean }> {
    const ks = this.keysOf(instanceId);
    await this.redis.hset(ks.settings, "paused", paused ? "1" : "0");
    let mustStart = false;
    if (!paused && (await this.redis.zcard(ks.pending)) > 0) {
      mustStart = (await this.redis.set(ks.running, "1", "NX")) === "OK";
    }
    return { settings: await this.settings(instanceId), mustStart };
  }

  // --- transitions -----------------------------------------------------------------------------

  async enqueue(
    instanceId: string,
    input: {
      queueId: string;
      now: number;
      route: string;
      chatId: string;
      request: SendRequest;
      ownDelayMs: number | null;
      ownTypingMs: number | null;
      textLength: number;
    },
  ): Promise<EnqueueResult> {
    const ks = this.keysOf(instanceId);
    const fields = [
      "route",
      input.route,
      "chatId",
      input.chatId,
      "request",
      JSON.stringify(input.request),
      "ownDelayMs",
      input.ownDelayMs ?? "",
      "ownTypingMs",
      input.ownTypingMs ?? "",
      "textLength",
      input.textLength,
    ];
    const r = (await this.redis.eval(
      ENQUEUE,
      6,
      ks.settings,
      ks.pending,
      ks.itemPrefix + input.queueId,
      ks.all,
      ks.running,
      ks.active,
      instanceId,
      input.queueId,
      input.now,
      QUEUE_MAX_PENDING,
      DEFAULT_QUEUE_SETTINGS.ttlHours,
      ...fields,
    )) as number[];
    if (r[0] === -1) return { ok: false, reason: "full" };
    const item = await this.get(instanceId, input.queueId);
    // Queued before (its workflow started then, or the reconciler starts it): as it is now.
    if (r[0] === -2 && item) return { ok: true, position: -1, mustStart: false, item, existing: true };
    if (!item) throw new Error("queue item vanished right after enqueue");
    return { ok: true, position: r[0]!, mustStart: r[1] === 1, item };
  }

  async next(instanceId: string, now = Date.now()): Promise<NextResult> {
    const ks = this.keysOf(instanceId);
    const r = (await this.redis.eval(
      NEXT,
      7,
      ks.settings,
      ks.pending,
      ks.itemPrefix,
      ks.all,
      ks.historyPrefix,
      ks.active,
      ks.running,
      instanceId,
      now,
      DEFAULT_QUEUE_SETTINGS.ttlHours,
    )) as [string, string[], string?];
    const [kind, expired, head] = r;
    if (kind === "item" && head) {
      const item = await this.get(instanceId, head);
      if (item) return { kind: "item", item, expired };
      return { kind: "busy", expired };
    }
    return { kind: kind as "empty" | "paused" | "busy", expired };
  }

  async plan(instanceId: string, queueId: string, delayMs: number, typingMs: number, plannedAt?: number) {
    const r = await this.redis.eval(
      PLAN,
      1,
      this.keysOf(instanceId).itemPrefix + queueId,
      delayMs,
      typingMs,
      plannedAt ?? Date.now() + delayMs + typingMs,
    );
    return r === 1;
  }

  async beginSend(instanceId: string, queueId: string): Promise<"ok" | "gone" | "paused"> {
    const ks = this.keysOf(instanceId);
    return (await this.redis.eval(BEGIN_SEND, 2, ks.settings, ks.itemPrefix + queueId)) as "ok" | "gone" | "paused";
  }

  /** A send that could not be made (disconnected): the item waits again, cancellable. */
  async requeue(instanceId: string, queueId: string, error: string): Promise<void> {
    await this.redis.eval(REQUEUE, 1, this.keysOf(instanceId).itemPrefix + queueId, error);
  }

  /**
   * Moves an item to a final status. `onlyFrom` restricts the transition (cancel: only from
   * `queued`). Answers whether this call made the change.
   */
  async finish(
    instanceId: string,
    queueId: string,
    status: FinalQueueStatus,
    opts: { messageId?: string; error?: string; onlyFrom?: QueueStatus; now?: number } = {},
  ): Promise<boolean> {
    const ks = this.keysOf(instanceId);
    const r = await this.redis.eval(
      FINISH,
      6,
      ks.settings,
      ks.pending,
      ks.itemPrefix + queueId,
      ks.all,
      ks.historyPrefix,
      ks.active,
      instanceId,
      queueId,
      status,
      opts.now ?? Date.now(),
      opts.messageId ?? "",
      opts.error ?? "",
      opts.onlyFrom ?? "",
    );
    return r === 1;
  }

  /**
   * Items still `queued` past their `expiresAt`, wherever they are in line (the head is also
   * checked by `next`): marked `expired`; answers their ids. The worker sweeps with it.
   */
  async expireDue(instanceId: string, now = Date.now()): Promise<string[]> {
    return this.sweep(EXPIRE_DUE, instanceId, now);
  }

  /** The item's final event was published (a retried activity publishes what was not). */
  async markAnnounced(instanceId: string, queueId: string): Promise<void> {
    await this.redis.hset(this.keysOf(instanceId).itemPrefix + queueId, "announced", "1");
  }

  /** Cancels every item still `queued`; answers their ids. */
  async cancelAll(instanceId: string, now = Date.now()): Promise<string[]> {
    return this.sweep(CANCEL_ALL, instanceId, now);
  }

  /** A script that finishes many items (cancel-all, expiry): the same keys, the ids it ended. */
  private async sweep(script: string, instanceId: string, now: number): Promise<string[]> {
    const ks = this.keysOf(instanceId);
    const keys = [ks.settings, ks.pending, ks.itemPrefix, ks.all, ks.historyPrefix, ks.active];
    return (await this.redis.eval(script, keys.length, ...keys, instanceId, now)) as string[];
  }

  // --- reads -----------------------------------------------------------------------------------

  async get(instanceId: string, queueId: string): Promise<StoredQueueItem | null> {
    const ks = this.keysOf(instanceId);
    const [[, raw], [, rank]] = (await this.redis
      .multi()
      .hgetall(ks.itemPrefix + queueId)
      .zrank(ks.pending, queueId)
      .exec()) as [[null, Record<string, string>], [null, number | null]];
    return raw.id ? this.decode(raw, rank) : null;
  }

  private decode(raw: Record<string, string>, position: number | null): StoredQueueItem {
    const status = raw.status as QueueStatus;
    return {
      id: raw.id!,
      status,
      route: raw.route ?? "",
      chatId: raw.chatId ?? "",
      messageId: raw.messageId || null,
      attempts: Number(raw.attempts ?? 0),
      position: status === "queued" || status === "sending" ? position : null,
      delayMs: num(raw.delayMs),
      typingMs: num(raw.typingMs),
      error: status === "queued" || status === "sending" ? null : raw.error || null,
      createdAt: iso(Number(raw.createdAt))!,
      expiresAt: iso(Number(raw.expiresAt))!,
      finishedAt: iso(num(raw.finishedAt)),
      request: JSON.parse(raw.request ?? "null") as SendRequest,
      ownDelayMs: num(raw.ownDelayMs),
      ownTypingMs: num(raw.ownTypingMs),
      textLength: Number(raw.textLength ?? 0),
      plannedAt: num(raw.plannedAt),
      announced: raw.announced === "1",
    };
  }

  /**
   * A page of items: `pending` in send order (cursor: the seq after which to go on), `all`
   * newest first (cursor: seq), or one final status newest first (cursor: its finish key).
   */
  async list(
    instanceId: string,
    status: "pending" | "all" | FinalQueueStatus,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ items: StoredQueueItem[]; nextCursor: string | null }> {
    const ks = this.keysOf(instanceId);
    const c = cursor === undefined ? null : Number(cursor);
    let ids: string[];
    let scores: number[];
    const pairs = (flat: string[]) => {
      ids = [];
      scores = [];
      for (let i = 0; i < flat.length; i += 2) {
        ids.push(flat[i]!);
        scores.push(Number(flat[i + 1]));
      }
    };
    let firstRank = 0;
    if (status === "pending") {
      pairs(
        await this.redis.zrangebyscore(
          ks.pending,
          c === null ? "-inf" : `(${c}`,
          "+inf",
          "WITHSCORES",
          "LIMIT",
          0,
          limit,
        ),
      );
      if (ids!.length) firstRank = (await this.redis.zrank(ks.pending, ids![0]!)) ?? 0;
    } else {
      const key = status === "all" ? ks.all : ks.historyPrefix + status;
      if (status !== "all") {
        await this.redis.zremrangebyscore(key, "-inf", (Date.now() - QUEUE_HISTORY_MS) * 1000);
      }
      pairs(
        await this.redis.zrevrangebyscore(key, c === null ? "+inf" : `(${c}`, "-inf", "WITHSCORES", "LIMIT", 0, limit),
      );
    }
    const pipe = this.redis.pipeline();
    for (const id of ids!) pipe.hgetall(ks.itemPrefix + id);
    // In `all`, items still in line show their place too.
    if (status === "all") for (const id of ids!) pipe.zrank(ks.pending, id);
    const res = ((await pipe.exec()) ?? []).map(([, v]) => v);
    const rows = res.slice(0, ids!.length) as Record<string, string>[];
    const ranks = res.slice(ids!.length) as (number | null)[];
    const items: StoredQueueItem[] = [];
    const gone: string[] = [];
    rows.forEach((raw, i) => {
      if (!raw.id) gone.push(ids[i]!);
      else items.push(this.decode(raw, status === "pending" ? firstRank + i : (ranks[i] ?? null)));
    });
    if (gone.length && status === "all") await this.redis.zrem(ks.all, ...gone);
    const nextCursor = ids!.length === limit ? String(scores![scores!.length - 1]) : null;
    return { items, nextCursor };
  }

  async pendingCount(instanceId: string): Promise<number> {
    return this.redis.zcard(this.keysOf(instanceId).pending);
  }

  /** Instances with pending items (the worker's reconciler restarts their workflows if needed). */
  async activeInstances(): Promise<string[]> {
    return this.redis.smembers(this.k.queueActive);
  }

  /** Marks the workflow running; answers whether it was not (then the caller must start it). */
  async claimRunning(instanceId: string): Promise<boolean> {
    return (await this.redis.set(this.keysOf(instanceId).running, "1", "NX")) === "OK";
  }
}

/** The public view of an item (spec 2.7). */
export function publicItem(item: StoredQueueItem): QueueItem {
  const { request: _r, ownDelayMs: _d, ownTypingMs: _t, textLength: _l, plannedAt: _p, announced: _a, ...pub } = item;
  return pub;
}
