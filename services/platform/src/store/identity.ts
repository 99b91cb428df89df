import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";

/**
 * What an instance has learnt about privacy ids (spec 1 rules 3–4): `<id>@lid` → the number
 * behind it, as the network revealed it (a frame that carried both, a number check, a
 * contact's reveal). One HASH per instance, kept as long as the instance.
 */
/** How long this process trusts an answer (or an absence) read from Redis. */
const NEGATIVE_MS = 60_000;

export class IdentityMap {
  private readonly memo = new Map<string, Map<string, string>>();
  private readonly names = new Map<string, string>();
  private readonly unnamed = new Map<string, number>();
  private readonly lids = new Map<string, { lid: string | null; until: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
  ) {}

  private local(instanceId: string) {
    let m = this.memo.get(instanceId);
    if (!m) {
      m = new Map();
      this.memo.set(instanceId, m);
    }
    return m;
  }

  /** Records `lid` → `phone` (digits). No-op when already known. */
  async learn(instanceId: string, lid: string, phone: string): Promise<void> {
    const m = this.local(instanceId);
    if (m.get(lid) === phone) return;
    m.set(lid, phone);
    await this.redis
      .multi()
      .hset(this.k.lidMap(instanceId), lid, phone)
      .hset(this.k.phoneLidMap(instanceId), phone, lid)
      .exec();
    this.lids.set(`${instanceId}\u0000${phone}`, { lid, until: Date.now() + NEGATIVE_MS });
  }

  /** The lid of a number (digits), when learnt (answers, also "none", kept a minute in memory). */
  async lidOf(instanceId: string, phone: string): Promise<string | null> {
    const key = `${instanceId}\u0000${phone}`;
    const hit = this.lids.get(key);
    if (hit && hit.until > Date.now()) return hit.lid;
    const lid = await this.redis.hget(this.k.phoneLidMap(instanceId), phone);
    if (this.lids.size > 50_000) this.lids.clear();
    this.lids.set(key, { lid, until: Date.now() + NEGATIVE_MS });
    return lid;
  }

  /** Records the name of a chat as the network showed it (contact's name, group subject). */
  async learnName(instanceId: string, chatId: string, name: string): Promise<void> {
    const key = `${instanceId}\u0000${chatId}`;
    if (this.names.get(key) === name) return;
    this.names.set(key, name);
    this.unnamed.delete(key);
    if (this.names.size > 50_000) this.names.delete(this.names.keys().next().value!);
    await this.redis.hset(this.k.chatNames(instanceId), chatId, name);
  }

  async nameOf(instanceId: string, chatId: string): Promise<string | null> {
    const key = `${instanceId}\u0000${chatId}`;
    const hit = this.names.get(key);
    if (hit) return hit;
    const miss = this.unnamed.get(key);
    if (miss && miss > Date.now()) return null;
    const name = await this.redis.hget(this.k.chatNames(instanceId), chatId);
    if (name) this.names.set(key, name);
    else {
      if (this.unnamed.size > 50_000) this.unnamed.clear();
      this.unnamed.set(key, Date.now() + NEGATIVE_MS);
    }
    return name;
  }

  /** The number (digits) behind a lid, or null. */
  async phoneOf(instanceId: string, lid: string): Promise<string | null> {
    const m = this.local(instanceId);
    const hit = m.get(lid);
    if (hit) return hit;
    const phone = await this.redis.hget(this.k.lidMap(instanceId), lid);
    if (phone) m.set(lid, phone);
    return phone;
  }

  /** The lids behind a number (digits) (reads by number merge LID history). */
  async lidsOf(instanceId: string, phone: string): Promise<string[]> {
    const lid = await this.lidOf(instanceId, phone);
    return lid ? [lid] : [];
  }

  /** Every mapping learnt, ordered by lid: a page of it, and how many there are (`GET /lids`). */
  async list(instanceId: string, page: { limit: number; offset: number }): Promise<{ lid: string; phone: string }[]> {
    const all = await this.redis.hgetall(this.k.lidMap(instanceId));
    return Object.keys(all)
      .sort()
      .slice(page.offset, page.offset + page.limit)
      .map((lid) => ({ lid, phone: all[lid]! }));
  }

  count(instanceId: string): Promise<number> {
    return this.redis.hlen(this.k.lidMap(instanceId));
  }

  /** `x@lid` → `<phone>@c.us` when known; anything else unchanged. */
  async rewrite(instanceId: string, id: string | null | undefined): Promise<string | null> {
    if (!id) return null;
    if (!id.endsWith("@lid")) return id;
    const phone = await this.phoneOf(instanceId, id);
    return phone ? `${phone}@c.us` : id;
  }
}
