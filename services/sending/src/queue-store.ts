import {
  DEFAULT_QUEUE_SETTINGS,
  type FinalQueueStatus,
  QUEUE_HISTORY_MS,
  QUEUE_MAX_PENDING,
  type QueueSettings,
  type QueueSettingsPatch,
  type QueueStatus,
  type SendRequest,
} from "@gw/contracts";
import type { Invalidations, Keys, RedisShards } from "@gw/platform";
import type { Redis } from "ioredis";
import { decodeItem, num, type StoredQueueItem } from "./queue-item.ts";
import { BEGIN_SEND, CANCEL_ALL, ENQUEUE, EXPIRE_DUE, FINISH, NEXT, PLAN, REQUEUE } from "./queue-scripts.ts";

/**
 * The send queue's state in Redis (spec 2.7, 3.3, 4.10). Temporal owns the waiting; this owns
 * what clients read and every transition of an item, each one Lua script so that a cancel and a
 * send can never both win:
 *
 * - `q:<i>:settings` HASH: mode, delayMin, delayMax, ttlHours, paused, seq.
 * - `q:<i>:pending` ZSET qid → seq: the FIFO of items still `queued` (or `sending`).
 * - `q:<i>:all` ZSET qid → seq, `q:<i>:h:<status>` ZSET qid → finish key: 7-day lists.
 * - `q:<i>:item:<qid>` HASH: the item and its request (JSON; inline files as media store
 *   references, queue-files.ts); 7 days after it finished it expires.
 * - `q:<i>:running`: set while the instance's queue workflow runs; an enqueue that finds it
 *   absent (and the queue not paused) sets it and must signal-with-start the workflow.
 */

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

export class QueueStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly invalidations: Invalidations,
    /** The Redis shards (platform infra/shards/): each has its own active set. Default: `redis` alone. */
    private readonly shards: Pick<RedisShards, "clients" | "client"> = { clients: [redis], client: () => redis },
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
    return raw.id ? decodeItem(raw, rank) : null;
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
      else items.push(decodeItem(raw, status === "pending" ? firstRank + i : (ranks[i] ?? null)));
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
    const sets = await Promise.all(this.shards.clients.map((c) => c.smembers(this.k.queueActive)));
    return sets.flat();
  }

  /** Whether the instance has pending items (its shard's active set). */
  async isActive(instanceId: string): Promise<boolean> {
    // A local structure (each shard has one): asked of the instance's shard by name, as the routed
    // client sends it to its shard only beside an instance key.
    return (await this.shards.client(instanceId).sismember(this.k.queueActive, instanceId)) === 1;
  }

  /** Marks the workflow running; answers whether it was not (then the caller must start it). */
  async claimRunning(instanceId: string): Promise<boolean> {
    return (await this.redis.set(this.keysOf(instanceId).running, "1", "NX")) === "OK";
  }
}
