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
 * POSTs the same bytes). `persisted` is in-memory bookkeeping, never stored.
 */
export type StoredDelivery = Delivery & { instanceId: string; body: string; persisted?: boolean };

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
  ) {
    this.batch = deliveryWrites(redis);
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

  async getDelivery(id: string): Promise<StoredDelivery | null> {
    const [meta, body] = await this.redis.hmget(this.k.delivery(id), "meta", "body");
    return meta && body ? { ...(JSON.parse(meta) as Delivery & { instanceId: string }), body, persisted: true } : null;
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
    const { body, persisted, ...rest } = delivery;
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
        key: this.k.delivery(delivery.id),
        meta: JSON.stringify(meta),
        // The first write of a delivery also stores its body and indexes it.
        body: persisted ? null : body,
        index: persisted ? null : this.k.webhookDeliveries(delivery.webhookId),
        createdAt: Date.parse(delivery.createdAt),
        id: delivery.id,
        responseTimes: outcome.ok ? this.k.webhookResponseTimes(delivery.webhookId) : null,
        sample: `${delivery.id}:${outcome.durationMs}`,
        now,
      }),
    ];
    this.trim(delivery.webhookId, now, writes);
    await Promise.all(writes);
    if (outcome.ok && opts.wasFailing !== false) await this.webhook.succeeded(delivery.webhookId);
    return { ...meta, body, persisted: true };
  }

  /** Keeps the delivery index (7 days) and response-time samples (24 h, capped) bounded. */
  private trim(webhookId: string, now: number, writes: Promise<unknown>[]): void {
    if ((this.lastTrim.get(webhookId) ?? 0) > now - TRIM_EVERY_MS) return;
    this.lastTrim.set(webhookId, now);
    if (this.lastTrim.size > 100_000) this.lastTrim.clear();
    const rt = this.k.webhookResponseTimes(webhookId);
    writes.push(
      this.redis.zremrangebyscore(this.k.webhookDeliveries(webhookId), 0, now - DELIVERY_TTL_MS),
      this.redis.zremrangebyscore(rt, 0, now - DAY),
      this.redis.zremrangebyrank(rt, 0, -RESPONSE_SAMPLES - 1),
      this.redis.pexpire(rt, DAY),
    );
  }

  async listDeliveries(instanceId: string, webhookId: string, limit: number, cursor?: string) {
    await this.webhook.owned(instanceId, webhookId);
    const max = cursor ? `(${cursor}` : "+inf";
    const rows = await this.redis.zrevrangebyscore(
      this.k.webhookDeliveries(webhookId),
      max,
      "-inf",
      "WITHSCORES",
      "LIMIT",
      0,
      limit + 1,
    );
    const ids: string[] = [];
    const scores: string[] = [];
    for (let i = 0; i < rows.length; i += 2) {
      ids.push(rows[i]!);
      scores.push(rows[i + 1]!);
    }
    const page = ids.slice(0, limit);
    const metas = await Promise.all(page.map((id) => this.redis.hget(this.k.delivery(id), "meta")));
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

/** One script for every delivery write of a tick: 5 fields a record, flat. */
const WRITE_DELIVERIES = `
local ttl = tonumber(ARGV[1])
local i = 2
while i <= #ARGV do
  local key, meta, body, index, created, id, rt, sample, now =
    ARGV[i], ARGV[i+1], ARGV[i+2], ARGV[i+3], ARGV[i+4], ARGV[i+5], ARGV[i+6], ARGV[i+7], ARGV[i+8]
  if body ~= '' then
    redis.call('HSET', key, 'meta', meta, 'body', body)
    redis.call('PEXPIRE', key, ttl)
    redis.call('ZADD', index, created, id)
  else
    redis.call('HSET', key, 'meta', meta)
  end
  if rt ~= '' then redis.call('ZADD', rt, now, sample) end
  i = i + 9
end
return 1`;

/**
 * Delivery records are written in batches: everything recorded in one tick goes to Redis in one
 * script (the dispatcher records thousands a second; one call each cost more CPU than the POST).
 * Keys are passed as arguments, which is fine on a single Redis but not on a cluster.
 */
function deliveryWrites(redis: Redis): TurnBatcher<DeliveryWrite, void> {
  return new TurnBatcher<DeliveryWrite, void>(async (items) => {
    const args: (string | number)[] = [DELIVERY_TTL_MS];
    for (const w of items) {
      args.push(w.key, w.meta, w.body ?? "", w.index ?? "", w.createdAt, w.id, w.responseTimes ?? "", w.sample, w.now);
    }
    await redis.eval(WRITE_DELIVERIES, 0, ...args);
    return items.map(() => undefined);
  });
}
