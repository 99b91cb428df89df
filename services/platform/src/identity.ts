import type { Redis } from "ioredis";
import type { Keys } from "./keys.ts";

/**
 * What an instance has learnt about privacy ids (spec 1 rules 3–4): `<id>@lid` → the number
 * behind it, as the network revealed it (a frame that carried both, a number check, a
 * contact's reveal). One HASH per instance, kept as long as the instance.
 */
export class IdentityMap {
  private readonly memo = new Map<string, Map<string, string>>();

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
    await this.redis.hset(this.k.lidMap(instanceId), lid, phone);
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

  /** The lid behind a number (digits), or null (reads by number merge LID history). */
  async lidsOf(instanceId: string, phone: string): Promise<string[]> {
    const all = await this.redis.hgetall(this.k.lidMap(instanceId));
    return Object.entries(all)
      .filter(([, p]) => p === phone)
      .map(([lid]) => lid);
  }

  /** `x@lid` → `<phone>@c.us` when known; anything else unchanged. */
  async rewrite(instanceId: string, id: string | null | undefined): Promise<string | null> {
    if (!id) return null;
    if (!id.endsWith("@lid")) return id;
    const phone = await this.phoneOf(instanceId, id);
    return phone ? `${phone}@c.us` : id;
  }
}
