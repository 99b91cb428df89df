import { createHash, randomBytes } from "node:crypto";
import type {
  ConnectionStatus,
  EventEnvelope,
  EventKind,
  Instance,
  SessionStatusPayload,
  StatusCause,
} from "@gw/contracts";
import type { Redis } from "ioredis";
import { base32Of, ulidTime } from "../infra/ids.ts";
import type { Keys } from "../infra/keys.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";
import { ALL_EVENTS_MAXLEN, allEventsKeys } from "./all-events.ts";
import { historyEntryKind, historyFields, readHistoryEntry } from "./history-codec.ts";
import { followStreams, type StoredEvent, storedEvent } from "./stored.ts";
import { StreamReads } from "./stream-reads.ts";

export { readHistoryEntry } from "./history-codec.ts";
export { compareStreamIds, type StoredEvent } from "./stored.ts";

// Random bytes from a pool refilled 4 KiB at a time (a multiple of an id's 16): ids are made on
// every event and delivery.
let pool = randomBytes(4096);
let poolAt = 0;

/** `evt_` + a ULID (48-bit ms time, 80 random bits), lower case: unique and sortable by time. */
export function newEventId(now = Date.now()): string {
  if (poolAt === pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  const rand = base32Of(pool.subarray(poolAt, poolAt + 16));
  poolAt += 16;
  return `evt_${ulidTime(now)}${rand}`;
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
const RECENT_MS = 7 * 86_400_000;

/** Conversation types the instance settings `ignore.*` can silence (spec 2.1, 6.4 rule 6). */
export function ignoredChat(settings: Instance["settings"] | undefined, chatId: unknown): boolean {
  if (!settings || typeof chatId !== "string") return false;
  const { ignore } = settings;
  if (chatId === "status@broadcast") return ignore.status;
  if (chatId.endsWith("@broadcast")) return ignore.broadcast;
  if (chatId.endsWith("@newsletter")) return ignore.channels;
  if (chatId.endsWith("@g.us")) return ignore.groups;
  return false;
}

/**
 * KEYS: shard stream, the instance's 7-day stream, the all-instances stream's watch key and the
 * stream (all-events.ts). ARGV: maxLen, minId, ttl ms (0: leave the TTL), id, event, instanceId,
 * envelope, dispatch (1|0), the 7-day stream's field and value (history-codec.ts; an empty field:
 * the entry as before session 34, `event` and `envelope`). XADD to the
 * shard stream (capped; only when dispatched), to the 7-day stream, and (capped) to the
 * all-instances stream while an admin stream watches it.
 */
const PUBLISH = `
if ARGV[8] == '1' then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'id', ARGV[4], 'event', ARGV[5], 'instanceId', ARGV[6], 'envelope', ARGV[7])
end
if ARGV[9] == '' then
  redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[2], '*', 'event', ARGV[5], 'envelope', ARGV[7])
else
  redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[2], '*', ARGV[9], ARGV[10])
end
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ${ALL_EVENTS_MAXLEN}, '*', 'event', ARGV[5], 'envelope', ARGV[7], 'instanceId', ARGV[6])
end
return 1
`;

/**
 * How often a process refreshes the TTL of an instance's 7-day stream. The stream lives 7 days
 * after its last event; refreshed at most hourly, that is 7 days after an event of the last hour,
 * and a send's three events pay one `PEXPIRE` an hour instead of three each. A stream cannot
 * expire while its refresh is less than an hour old; one deleted meanwhile (the instance deleted)
 * is forgotten through the instance's invalidation ({@link EventBus.forget}), so a stream made
 * again gets its TTL at once.
 */
const TTL_REFRESH_MS = 3_600_000;
const TTL_MEMO_MAX = 50_000;

type Source = Pick<Instance, "id" | "provider" | "phone" | "pushName"> & Partial<Pick<Instance, "settings">>;

/**
 * An `evt_` id derived from what the event is about (a ULID's shape: `at` ms, then 80 bits of
 * the key's hash): the same event seen twice (an operator's webhook retried, a stream entry
 * processed again after a crash) gets the same id, which receivers drop as a duplicate (spec 6.4).
 */
export function stableEventId(key: string, at: number): string {
  const digest = createHash("sha256").update(key).digest();
  return `evt_${ulidTime(at)}${base32Of(digest, 16)}`;
}

/** A spec 2.11 envelope with a fresh `evt_` id, or the one given (no I/O: benches and tests build them too). */
export function eventEnvelope(
  instance: Source,
  event: EventKind,
  payload: Record<string, unknown>,
  id?: string,
): EventEnvelope {
  const now = Date.now();
  return {
    id: id ?? newEventId(now),
    event,
    instanceId: instance.id,
    provider: instance.provider,
    timestamp: now,
    payload,
    me: instance.phone ? { id: `${instance.phone}@c.us`, phone: instance.phone, pushName: instance.pushName } : null,
  };
}

export class EventBus {
  /** The all-instances stream and its watch key (all-events.ts). */
  private readonly all: ReturnType<typeof allEventsKeys>;
  private readonly reads: StreamReads;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly batch: ScriptBatch,
    readonly shards: number,
    private readonly maxLen: number,
    /** Whether the dispatcher must see an event (webhooks subscribe to it); absent: every event. */
    private readonly dispatched?: (instanceId: string, kind: string) => boolean | Promise<boolean>,
    /** The history's entries compact (history-codec.ts) or, for a rolling upgrade, the JSON whole. */
    private readonly historyFormat: "compact" | "json" = "compact",
  ) {
    batch.register("publish", PUBLISH, { keys: 4, args: 10 });
    this.all = allEventsKeys(k.prefix);
    // The live streams' reads on this bus's client (routed: an instance's stream on its shard).
    this.reads = new StreamReads(redis, k.prefix);
  }

  /** When this process last set the TTL of an instance's 7-day stream (ms). */
  private readonly ttlSetAt = new Map<string, number>();

  /** The TTL to set with an event published now: the full one once an hour, else 0 (none). */
  private ttlFor(instanceId: string, now: number): number {
    const at = this.ttlSetAt.get(instanceId);
    if (at !== undefined && now - at < TTL_REFRESH_MS) return 0;
    if (at === undefined && this.ttlSetAt.size >= TTL_MEMO_MAX) this.ttlSetAt.clear();
    this.ttlSetAt.set(instanceId, now);
    return RECENT_MS;
  }

  /** Its stream may be gone (the instance deleted): the next event sets the TTL again. Null: every instance's. */
  forget(instanceId: string | null): void {
    if (instanceId === null) this.ttlSetAt.clear();
    else this.ttlSetAt.delete(instanceId);
  }

  envelope(instance: Source, event: EventKind, payload: Record<string, unknown>, id?: string): EventEnvelope {
    return eventEnvelope(instance, event, payload, id);
  }

  /**
   * Publishes an event: to the instance's 7-day history (GET /events) and, when an active webhook
   * subscribes to its kind (webhooks/subscriptions.ts), to its shard's stream (the dispatcher's input), in
   * one round trip. Events of conversation types the instance ignores are not emitted at all
   * (answers null). `id`: the envelope's id when the producer derives it ({@link stableEventId}).
   */
  async publish(
    instance: Source,
    event: EventKind,
    payload: Record<string, unknown>,
    id?: string,
  ): Promise<EventEnvelope | null> {
    if (ignoredChat(instance.settings, payload.chatId)) return null;
    const wanted = this.dispatched ? this.dispatched(instance.id, event) : true;
    const dispatch = typeof wanted === "boolean" ? wanted : await wanted;
    const env = this.envelope(instance, event, payload, id);
    const body = JSON.stringify(env);
    // The history keeps it smaller (history-codec.ts); the dispatch and all-instances streams, whole.
    // `json`: an empty field makes the script write the entry as before session 34.
    const [field, value] = this.historyFormat === "compact" ? historyFields(env, body) : ["", ""];
    // One script, in the turn's batch (infra/script-batch.ts): the body crosses the wire once (with the
    // history's smaller copy), and the events of a send and its other writes share one call.
    const ttl = this.ttlFor(instance.id, env.timestamp);
    try {
      await this.batch.run(
        "publish",
        [
          this.k.events(shardOf(instance.id, this.shards)),
          this.k.recentEvents(instance.id),
          this.all.watch,
          this.all.stream,
        ],
        [
          this.maxLen,
          env.timestamp - RECENT_MS,
          ttl,
          env.id,
          env.event,
          env.instanceId,
          body,
          dispatch ? "1" : "0",
          field,
          value,
        ],
      );
    } catch (err) {
      // The TTL this call was to set may not be set: the next event sets it.
      if (ttl) this.ttlSetAt.delete(instance.id);
      throw err;
    }
    return env;
  }

  /**
   * The instance's recent events, newest first: optional kinds, `since`/`until` (ms, inclusive),
   * and a cursor (the stream id where the previous page stopped).
   */
  async recent(
    instanceId: string,
    q: {
      kinds?: string[] | undefined;
      since?: number | undefined;
      until?: number | undefined;
      limit: number;
      cursor?: string | undefined;
    },
  ): Promise<{ data: EventEnvelope[]; nextCursor: string | null }> {
    const key = this.k.recentEvents(instanceId);
    // Nothing is older than the stream's first possible id (an exclusive `(0-0` is no interval).
    if (q.cursor && /^0+-0+$/.test(q.cursor)) return { data: [], nextCursor: null };
    // Stream ids carry Redis's clock, envelopes the producer's: read a margin wider, then
    // filter on the envelope's own timestamp, which is what clients see.
    const MARGIN = 5_000;
    const since = Math.max(q.since ?? 0, Date.now() - RECENT_MS);
    const until = q.until ?? Number.POSITIVE_INFINITY;
    let max = q.cursor ? `(${q.cursor}` : Number.isFinite(until) ? `${until + MARGIN}-18446744073709551615` : "+";
    const min = `${Math.max(0, since - MARGIN)}-0`;
    const data: EventEnvelope[] = [];
    let lastId: string | null = null;
    // Kind filters can skip entries: read in batches, bounded, until the page is full.
    for (let round = 0; round < 20 && data.length < q.limit; round++) {
      const rows = await this.redis.xrevrange(key, max, min, "COUNT", Math.max(100, q.limit * 2));
      if (rows.length === 0) {
        lastId = null;
        break;
      }
      for (const [id, fields] of rows) {
        lastId = id;
        if (q.kinds && !q.kinds.includes(historyEntryKind(fields))) continue;
        const env = JSON.parse(readHistoryEntry(fields).envelope) as EventEnvelope;
        if (env.timestamp >= since && env.timestamp <= until) data.push(env);
        if (data.length === q.limit) break;
      }
      max = `(${lastId}`;
    }
    const more = lastId !== null && (await this.redis.xrevrange(key, `(${lastId}`, min, "COUNT", 1)).length > 0;
    return { data, nextCursor: more ? lastId : null };
  }

  /** `session.status`: the payload the spec leaves open (docs/api.md), with why (docs/lifecycle.md "Reasons"). */
  sessionStatus(
    instance: Source,
    status: ConnectionStatus,
    previousStatus: ConnectionStatus | null,
    cause: StatusCause | null,
  ): Promise<EventEnvelope | null> {
    return this.publish(instance, "session.status", {
      status,
      previousStatus,
      reason: cause?.reason ?? null,
      detail: cause?.detail ?? null,
      retryAt: cause?.retryAt !== undefined ? Math.ceil(cause.retryAt / 1000) : null,
      timestamp: Math.floor(Date.now() / 1000),
    } satisfies SessionStatusPayload);
  }

  /** An instance's 7-day history from the start (tests, tools): the envelopes in order. */
  async history(instanceId: string, count = 10_000): Promise<EventEnvelope[]> {
    const entries = await this.redis.xrange(this.k.recentEvents(instanceId), "-", "+", "COUNT", count);
    return entries.map(([, fields]) => JSON.parse(readHistoryEntry(fields).envelope) as EventEnvelope);
  }

  /** Reads a shard from the start (tests, tools): the envelopes in order. */
  async read(shard: number, count = 1000): Promise<EventEnvelope[]> {
    const entries = await this.redis.xrange(this.k.events(shard), "-", "+", "COUNT", count);
    return entries.map(([, fields]) => JSON.parse(fields[fields.indexOf("envelope") + 1]!) as EventEnvelope);
  }

  // --- Live streams (docs/streams.md): an instance's 7-day stream, or (null) every instance's.

  /** The stream a live client reads: the instance's 7-day history, or (null) the all-instances stream. */
  streamKey(instanceId: string | null): string {
    return instanceId === null ? this.all.stream : this.k.recentEvents(instanceId);
  }

  /** Up to `count` entries of `key` after the stream id `after`, oldest first. */
  after(key: string, after: string, count: number, instanceId?: string): Promise<StoredEvent[]> {
    return this.reads.after(key, after, count, instanceId);
  }

  /** The last entry of `key` now ("0-0" and null when none): a client without a cursor starts after it. */
  tail(key: string): Promise<{ streamId: string; id: string | null }> {
    return this.reads.tail(key);
  }

  /** Where a client that last saw `eventId` resumes in `key` (stored.ts `locateEvent`). */
  locate(key: string, eventId: string): Promise<{ after: string; found: boolean }> {
    return this.reads.locate(key, eventId);
  }

  /**
   * One blocking read of several streams after their positions, on `conn` (a connection of the
   * reader's own): entries by stream key. `instanceOf(key)`: the instance of a 7-day stream.
   */
  async follow(
    conn: Redis,
    keys: string[],
    positions: string[],
    opts: { blockMs: number; count: number; instanceOf: (key: string) => string | undefined },
  ): Promise<[key: string, events: StoredEvent[]][]> {
    const got = await followStreams(conn, keys, positions, opts);
    return got.map(([key, rows]) => {
      const instanceId = opts.instanceOf(key);
      return [key, rows.map((row) => storedEvent(row, instanceId))];
    });
  }

  /** Keeps the all-instances stream filled for the next 30 s (all-events.ts): while an admin stream is open. */
  watchAll(): Promise<void> {
    return this.reads.watchAll();
  }
}
