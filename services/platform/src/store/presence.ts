import {
  type HeardPresence,
  PRESENCE_CACHE_TTL_MS,
  PRESENCE_RECORD,
  PRESENCE_SUB_PREFIX,
  PRESENCE_TYPING_FRESH_MS,
  type PresenceEntry,
  type PresenceItem,
  presenceEntrySchema,
} from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";

/** One person's presence as kept: the heard value, its last seen (unix s) and when it was heard (ms). */
interface Kept {
  p: HeardPresence;
  s: number | null;
  at: number;
}

/**
 * What an instance heard of others' presence (spec 4.9 `GET /presence`), and what it set of its own
 * (docs/profile-presence.md). Each chat's entry is a HASH (participant → what was heard) that
 * lives `PRESENCE_CACHE_TTL_MS` after its last update; a ZSET of the instance's chats by the time
 * they were last heard lists them, trimmed of the expired on every write. The session manager
 * writes each `presence.update` here before publishing it; the routes read.
 *
 * The account's own presence and its subscriptions are the providers' record (contracts
 * `PRESENCE_RECORD`), since the provider must apply them again on each connection; this reads them.
 */
export class PresenceStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly opts: { ttlMs: number; typingFreshMs: number } = {
      ttlMs: PRESENCE_CACHE_TTL_MS,
      typingFreshMs: PRESENCE_TYPING_FRESH_MS,
    },
  ) {}

  /** A `presence.update` payload (its `id` and `presences`); anything else is ignored. */
  async heard(instanceId: string, payload: Record<string, unknown>, now = Date.now()): Promise<void> {
    const parsed = presenceEntrySchema.safeParse(payload);
    if (!parsed.success || parsed.data.presences.length === 0) return;
    const entry = parsed.data;
    const key = this.k.presence(instanceId, entry.id);
    const index = this.k.presenceIndex(instanceId);
    const fields = Object.fromEntries(
      entry.presences.map((p) => [p.participant, JSON.stringify({ p: p.lastKnownPresence, s: p.lastSeen, at: now })]),
    );
    await this.redis
      .multi()
      .hset(key, fields)
      .pexpire(key, this.opts.ttlMs)
      .zadd(index, now, entry.id)
      .zremrangebyscore(index, "-inf", now - this.opts.ttlMs)
      .pexpire(index, this.opts.ttlMs)
      .exec();
  }

  /** The entries heard, the most recently heard chat first. */
  async list(instanceId: string, now = Date.now()): Promise<PresenceEntry[]> {
    const ids = await this.redis.zrevrangebyscore(this.k.presenceIndex(instanceId), "+inf", now - this.opts.ttlMs);
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.k.presence(instanceId, id));
    const rows = (await pipe.exec()) ?? [];
    const out: PresenceEntry[] = [];
    ids.forEach((id, i) => {
      const entry = this.entryOf(id, (rows[i]?.[1] as Record<string, string> | undefined) ?? {}, now);
      if (entry) out.push(entry);
    });
    return out;
  }

  /** A chat's entry, or null when nothing of it was heard (or it expired). */
  async get(instanceId: string, chatId: string, now = Date.now()): Promise<PresenceEntry | null> {
    return this.entryOf(chatId, await this.redis.hgetall(this.k.presence(instanceId, chatId)), now);
  }

  /**
   * A chat's entry by any of the ids it may have been heard under (its number behind a lid, the
   * other ninth-digit form): the first heard; else, subscribed under one of them but nothing heard
   * yet, an entry with no `presences`; else null.
   */
  async find(instanceId: string, ids: readonly string[], now = Date.now()): Promise<PresenceEntry | null> {
    for (const id of ids) {
      const entry = await this.get(instanceId, id, now);
      if (entry) return entry;
    }
    for (const id of ids) {
      if (await this.subscribedUntil(instanceId, id, now)) return { id, presences: [] };
    }
    return null;
  }

  /**
   * `GET /presence/{chatId}`: the chat's entry ({@link find}); when nothing is known of it, it is
   * subscribed to first (`subscribe`, as WAHA does on a first read), and the answer is what the
   * network tells within `waitMs` (its answer to a subscription: a contact's presence now), else an
   * entry with no `presences`.
   */
  async read(
    instanceId: string,
    ids: readonly string[],
    subscribe: () => Promise<void>,
    opts: { waitMs: number; pollMs?: number },
  ): Promise<PresenceEntry> {
    const known = await this.find(instanceId, ids);
    if (known) return known;
    await subscribe();
    const until = Date.now() + opts.waitMs;
    for (;;) {
      const entry = await this.find(instanceId, ids);
      if (entry && (entry.presences.length > 0 || Date.now() >= until)) return entry;
      if (Date.now() >= until) return { id: ids[0] ?? "", presences: [] };
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 25));
    }
  }

  /** The account's own presence as last set (`available`/`unavailable`), null when never set. */
  async self(instanceId: string): Promise<"available" | "unavailable" | null> {
    const v = await this.redis.hget(this.k.providerRecords(instanceId, PRESENCE_RECORD), "self");
    return v === "available" || v === "unavailable" ? v : null;
  }

  /** An account set offline sends no read receipts (docs/profile-presence.md "Offline and reading"). */
  async withholdsReceipts(instanceId: string): Promise<boolean> {
    return (await this.self(instanceId)) === "unavailable";
  }

  /** When the chat's subscription ends (unix ms), null when there is none (or it ended). */
  async subscribedUntil(instanceId: string, chatId: string, now = Date.now()): Promise<number | null> {
    const v = Number(
      await this.redis.hget(this.k.providerRecords(instanceId, PRESENCE_RECORD), `${PRESENCE_SUB_PREFIX}${chatId}`),
    );
    return Number.isFinite(v) && v > now ? v : null;
  }

  private entryOf(id: string, raw: Record<string, string>, now: number): PresenceEntry | null {
    const kept: (PresenceItem & { at: number })[] = [];
    for (const [participant, json] of Object.entries(raw)) {
      let v: Kept;
      try {
        v = JSON.parse(json) as Kept;
      } catch {
        continue;
      }
      if (now - v.at > this.opts.ttlMs) continue;
      // An indicator nothing followed: the network's clients stop showing it after a while.
      const stale = (v.p === "typing" || v.p === "recording") && now - v.at > this.opts.typingFreshMs;
      kept.push({ participant, lastKnownPresence: stale ? "online" : v.p, lastSeen: v.s ?? null, at: v.at });
    }
    if (kept.length === 0) return null;
    kept.sort((a, b) => b.at - a.at || a.participant.localeCompare(b.participant));
    return { id, presences: kept.map(({ at: _at, ...item }) => item) };
  }
}
