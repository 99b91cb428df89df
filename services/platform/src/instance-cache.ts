import type { Instance } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { InstanceStore } from "./instances.ts";
import { invalidationMessage, type Keys } from "./keys.ts";

const PREFIX = invalidationMessage("instance", "");

/**
 * Instance records read on every request, kept in memory for a short TTL. Every write
 * publishes an invalidation that all replicas apply at once; the TTL bounds staleness if a
 * message is lost while a subscriber reconnects. Tokens are *not* cached (see auth.ts).
 */
export class InstanceCache {
  private readonly entries = new Map<string, { value: Instance; until: number }>();
  private readonly maxEntries = 50_000;

  constructor(
    private readonly store: InstanceStore,
    private readonly ttlMs: number,
  ) {}

  /** Subscribes `subscriber` (a dedicated connection) to invalidations. */
  async listen(subscriber: Redis, k: Keys): Promise<void> {
    subscriber.on("message", (_channel: string, message: string) => {
      if (message.startsWith(PREFIX)) this.entries.delete(message.slice(PREFIX.length));
    });
    // After a reconnect messages may have been missed: forget everything.
    subscriber.on("ready", () => this.entries.clear());
    await subscriber.subscribe(k.invalidations);
  }

  async get(id: string): Promise<Instance | null> {
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && hit.until > now) return hit.value;
    const value = await this.store.get(id);
    if (value && this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(id, { value, until: now + this.ttlMs });
    }
    return value;
  }
}
