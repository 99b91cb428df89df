import { randomBytes } from "node:crypto";
import type { ConnectionStatus, EventEnvelope, EventKind, Instance, SessionStatusPayload } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "./keys.ts";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** `evt_` + a ULID (48-bit ms time, 80 random bits), lower case: unique and sortable by time. */
export function newEventId(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += CROCKFORD[rnd[i]! & 31];
  return `evt_${time}${rand}`;
}

export function shardOf(instanceId: string, shards: number): number {
  let h = 2166136261;
  for (let i = 0; i < instanceId.length; i++) h = Math.imul(h ^ instanceId.charCodeAt(i), 16777619);
  return (h >>> 0) % shards;
}

/**
 * The publishing side of the event stream: producers (session pods, the queue and webhook
 * machinery) publish spec 2.11 envelopes; one Redis Stream per shard, an instance always on
 * the same shard so its events keep their order. The dispatcher consumes them.
 */
export class EventBus {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    readonly shards: number,
    private readonly maxLen: number,
  ) {}

  envelope(
    instance: Pick<Instance, "id" | "provider" | "phone" | "pushName">,
    event: EventKind,
    payload: Record<string, unknown>,
  ): EventEnvelope {
    const now = Date.now();
    return {
      id: newEventId(now),
      event,
      instanceId: instance.id,
      provider: instance.provider,
      timestamp: now,
      payload,
      me: instance.phone ? { id: `${instance.phone}@c.us`, phone: instance.phone, pushName: instance.pushName } : null,
    };
  }

  async publish(
    instance: Pick<Instance, "id" | "provider" | "phone" | "pushName">,
    event: EventKind,
    payload: Record<string, unknown>,
  ): Promise<EventEnvelope> {
    const env = this.envelope(instance, event, payload);
    await this.redis.xadd(
      this.k.events(shardOf(instance.id, this.shards)),
      "MAXLEN",
      "~",
      this.maxLen,
      "*",
      "id",
      env.id,
      "event",
      env.event,
      "instanceId",
      env.instanceId,
      "envelope",
      JSON.stringify(env),
    );
    return env;
  }

  /** `session.status`: the payload the spec leaves open (docs/api.md). */
  sessionStatus(
    instance: Pick<Instance, "id" | "provider" | "phone" | "pushName">,
    status: ConnectionStatus,
    previousStatus: ConnectionStatus | null,
    reason: string | null,
  ): Promise<EventEnvelope> {
    return this.publish(instance, "session.status", {
      status,
      previousStatus,
      reason,
      timestamp: Math.floor(Date.now() / 1000),
    } satisfies SessionStatusPayload);
  }

  /** Reads a shard from the start (tests, tools): the envelopes in order. */
  async read(shard: number, count = 1000): Promise<EventEnvelope[]> {
    const entries = await this.redis.xrange(this.k.events(shard), "-", "+", "COUNT", count);
    return entries.map(([, fields]) => JSON.parse(fields[fields.indexOf("envelope") + 1]!) as EventEnvelope);
  }
}
