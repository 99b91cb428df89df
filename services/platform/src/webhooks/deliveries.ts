import type { Delivery } from "@gw/contracts";
import type { Redis } from "ioredis";
import { newEventId } from "../events/bus.ts";
import type { Keys } from "../infra/keys.ts";
import { TurnBatcher } from "../infra/turn-batch.ts";
import type { WebhookTarget } from "./target.ts";

// A webhook's deliveries (spec 3.4): each attempt's outcome, kept 7 days, and the response times
// of the last 24 h that a webhook shows. The webhooks themselves are store.ts.

const DAY = 86_400_000;
const DELIVERY_TTL_MS = 7 * DAY;
const RESPONSE_SAMPLES = 10_000;
/** Index and response-time sets are trimmed at most this often per webhook and process. */
const TRIM_EVERY_MS = 30_000;

/**
 * A delivery with what every attempt needs: `body`, the envelope exactly as first sent (a retry
 * POSTs the same bytes). `persisted` and `legacy` (stored under the keys of before session 34,
 * without the instance: its later attempts are recorded there) are in-memory bookkeeping.
 */
export type StoredDelivery = Delivery & { instanceId: string; body: string; persisted?: boolean; legacy?: boolean };

/** `dlv_` + 26 sortable characters, like event ids. */
export const newDeliveryId = () => `dlv_${newEventId().slice(4)}`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What deliveries ask of their webhook's store. */
export interface DeliveryWebhooks {
  /** Throws `not_found` unless the webhook is the instance's. */
  owned(instanceId: string, webhookId: string): Promise<void>;
  /** A success: the webhook's failure clock, if it runs, stops. */
  succeeded(webhookId: string): Promise<void>;
}

export class DeliveryLog {
  private readonly lastTrim = new Map<string, number>();
  private readonly batch: TurnBatcher<DeliveryWrite, void>;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly webhook: DeliveryWebhooks,
    /** On a sharded deployment, the shard of a write's keys: one script call per shard. */
    shardOf?: (keys: readonly string[]) => number,
  ) {
    this.batch = deliveryWrites(redis, shardOf);
  }

  /** Where a delivery's record, its webhook's index and response times are. */
  private keysOf(d: { id: string; instanceId: string; webhookId: string; legacy?: boolean }) {
    return d.legacy
      ? {
          record: this.k.legacyDelivery(d.id),
          index: this.k.legacyWebhookDeliveries(d.webhookId),
          responseTimes: this.k.legacyWebhookResponseTimes(d.webhookId),
        }
      : {
          record: this.k.delivery(d.instanceId, d.id),
          index: this.k.webhookDeliveries(d.instanceId, d.webhookId),
          responseTimes: this.k.webhookResponseTimes(d.instanceId, d.webhookId),
        };
  }

  /**
   * A new delivery of an event (its raw envelope JSON) to a webhook, in memory only: it is
   * written with the outcome of its first attempt (one write per delivery on the happy path).
   */
  newDelivery(
    target: WebhookTarget,
    body: string,
    event: { id: string; event: string },
    manual = false,
  ): StoredDelivery {
    return {
      id: newDeliveryId(),
      webhookId: target.id,
      instanceId: target.instanceId,
      eventId: event.id,
      event: event.event,
      status: "pending",
      attempt: 0,
      httpStatus: null,
      error: null,
      durationMs: null,
      nextAttemptAt: null,
      manual,
      createdAt: new Date().toISOString(),
      lastAttemptAt: null,
      body,
      persisted: false,
    };
  }

  /**
   * A delivery by id: on its instance's shard, else (written before session 34, or asked for by
   * a retry workflow started then, which knows no instance) under its old key on control.
   */
  async getDelivery(id: string, instanceId?: string): Promise<StoredDelivery | null> {
    if (instanceId !== undefined) {
      const [meta, body] = await this.redis.hmget(this.k.delivery(instanceId, id), "meta", "body");
      if (meta && body) return { ...(JSON.parse(meta) as Delivery & { instanceId: string }), body, persisted: true };
    }
    const [meta, body] = await this.redis.hmget(this.k.legacyDelivery(id), "meta", "body");
    return meta && body
      ? { ...(JSON.parse(meta) as Delivery & { instanceId: string }), body, persisted: true, legacy: true }
      : null;
  }

  /**
   * Writes the outcome of one attempt (and, the first time, the delivery itself and its index
   * entry). Plain commands, so ioredis pipelines them with everything else in flight. A success
   * feeds the response times and, when the webhook's failure clock runs, stops it.
   */
  async recordAttempt(
    delivery: StoredDelivery,
    outcome: {
      ok: boolean;
      httpStatus: number | null;
      error: string | null;
      durationMs: number;
      nextAttemptAt: number | null;
      final: boolean;
    },
    opts: { wasFailing?: boolean } = {},
  ): Promise<StoredDelivery> {
    const now = Date.now();
    const { body, persisted, legacy, ...rest } = delivery;
    const keys = this.keysOf(delivery);
    const meta: Delivery & { instanceId: string } = {
      ...rest,
      attempt: delivery.attempt + 1,
      status: outcome.ok ? "succeeded" : outcome.final ? "failed" : "retrying",
      httpStatus: outcome.httpStatus,
      error: outcome.error,
      durationMs: outcome.durationMs,
      nextAttemptAt: iso(outcome.nextAttemptAt),
      lastAttemptAt: new Date(now).toISOString(),
    };
    const writes: Promise<unknown>[] = [
      this.batch.add({
        key: keys.record,
        meta: JSON.stringify(meta),
        // The first write of a delivery also stores its body and indexes it.
        body: persisted ? null : body,
        index: persisted ? null : keys.index,
        createdAt: Date.parse(delivery.createdAt),
        id: delivery.id,
        responseTimes: outcome.ok ? keys.responseTimes : null,
        sample: `${delivery.id}:${outcome.durationMs}`,
        now,
      }),
    ];
    this.trim(delivery, now, writes);
    await Promise.all(writes);
    if (outcome.ok && opts.wasFailing !== false) await this.webhook.succeeded(delivery.webhookId);
    return { ...meta, body, persisted: true, ...(legacy ? { legacy } : {}) };
  }

  /**
   * Keeps the delivery index (7 days) and response-time samples (24 h, capped) bounded: the
   * webhook's sets, and those of before session 34 until they are empty.
   */
  private trim(d: { instanceId: string; webhookId: string }, now: number, writes: Promise<unknown>[]): void {
    if ((this.lastTrim.get(d.webhookId) ?? 0) > now - TRIM_EVERY_MS) return;
    this.lastTrim.set(d.webhookId, now);
    if (this.lastTrim.size > 100_000) this.lastTrim.clear();
    for (const legacy of [false, true]) {
      const { index, responseTimes: rt } = this.keysOf({ ...d, id: "", legacy });
      writes.push(
        this.redis.zremrangebyscore(index, 0, now - DELIVERY_TTL_MS),
        this.redis.zremrangebyscore(rt, 0, now - DAY),
        this.redis.zremrangebyrank(rt, 0, -RESPONSE_SAMPLES - 1),
        this.redis.pexpire(rt, DAY),
      );
    }
  }

  /** A page of the webhook's deliveries, newest first: its index and, for 7 days, the old one. */
  async listDeliveries(instanceId: string, webhookId: string, limit: number, cursor?: string) {
    await this.webhook.owned(instanceId, webhookId);
    const max = cursor ? `(${cursor}` : "+inf";
    const page = (legacy: boolean) =>
      this.redis
        .zrevrangebyscore(
          this.keysOf({ id: "", instanceId, webhookId, legacy }).index,
          max,
          "-inf",
          "WITHSCORES",
          "LIMIT",
          0,
          limit + 1,
        )
        .then((rows) => {
          const out: { id: string; score: string; legacy: boolean }[] = [];
          for (let i = 0; i < rows.length; i += 2) out.push({ id: rows[i]!, score: rows[i + 1]!, legacy });
          return out;
        });
    const rows = (await Promise.all([page(false), page(true)]))
      .flat()
      .sort((a, b) => Number(b.score) - Number(a.score) || (a.id < b.id ? 1 : -1))
      .slice(0, limit + 1);
    const ids = rows.map((r) => r.id);
    const scores = rows.map((r) => r.score);
    const metas = await Promise.all(
      rows
        .slice(0, limit)
        .map((r) => this.redis.hget(this.keysOf({ id: r.id, instanceId, webhookId, legacy: r.legacy }).record, "meta")),
    );
    const data = metas.flatMap((m) => {
      if (!m) return [];
      const { instanceId: _, ...d } = JSON.parse(m) as Delivery & { instanceId: string };
      return [d];
    });
    return { data, nextCursor: ids.length > limit ? (scores[limit - 1] ?? null) : null };
  }
}

type DeliveryWrite = {
  key: string;
  meta: string;
  body: string | null;
  index: string | null;
  createdAt: number;
  id: string;
  responseTimes: string | null;
  sample: string;
  now: number;
};

/**
 * One script for every delivery write of a tick. KEYS: per write its record, index and
 * response-time set (the record's key again where there is none: a key must name the shard).
 * ARGV: the TTL, then per write meta, body, created, id, sample, now and what it does (`b` body
 * and index, `r` a response time).
 */
const WRITE_DELIVERIES = `
local ttl = tonumber(ARGV[1])
local a = 2
for k = 1, #KEYS, 3 do
  local key, index, rt = KEYS[k], KEYS[k+1], KEYS[k+2]
  local meta, body, created, id, sample, now, what =
    ARGV[a], ARGV[a+1], ARGV[a+2], ARGV[a+3], ARGV[a+4], ARGV[a+5], ARGV[a+6]
  if string.find(what, 'b', 1, true) then
    redis.call('HSET', key, 'meta', meta, 'body', body)
    redis.call('PEXPIRE', key, ttl)
    redis.call('ZADD', index, created, id)
  else
    redis.call('HSET', key, 'meta', meta)
  end
  if string.find(what, 'r', 1, true) then redis.call('ZADD', rt, now, sample) end
  a = a + 7
end
return 1`;

/**
 * Delivery records are written in batches: everything recorded in one tick goes to Redis in one
 * script per shard (the dispatcher records thousands a second; one call each cost more CPU than
 * the POST).
 */
function deliveryWrites(redis: Redis, shardOf?: (keys: readonly string[]) => number): TurnBatcher<DeliveryWrite, void> {
  const run = async (items: DeliveryWrite[]) => {
    const keys: string[] = [];
    const args: (string | number)[] = [DELIVERY_TTL_MS];
    for (const w of items) {
      keys.push(w.key, w.index ?? w.key, w.responseTimes ?? w.key);
      args.push(
        w.meta,
        w.body ?? "",
        w.createdAt,
        w.id,
        w.sample,
        w.now,
        `${w.body !== null ? "b" : ""}${w.responseTimes ? "r" : ""}`,
      );
    }
    await redis.eval(WRITE_DELIVERIES, keys.length, ...keys, ...args);
  };
  return new TurnBatcher<DeliveryWrite, void>(async (items) => {
    if (!shardOf) await run(items);
    else {
      const groups = new Map<number, DeliveryWrite[]>();
      for (const w of items) {
        const shard = shardOf([w.key]);
        groups.set(shard, [...(groups.get(shard) ?? []), w]);
      }
      await Promise.all([...groups.values()].map(run));
    }
    return items.map(() => undefined);
  });
}
