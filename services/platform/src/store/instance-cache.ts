import type { Instance } from "@gw/contracts";
import { ReplicaCache } from "../infra/replica-cache.ts";
import type { InstanceStore } from "./instances.ts";

/**
 * Instance records read on every request, kept in memory for a short TTL. Every write
 * publishes an invalidation that all replicas apply at once (`platform.invalidations`, kind
 * `instance`); the TTL bounds staleness if a message is lost while a subscriber reconnects.
 * Tokens are *not* cached (see auth/authorizer.ts).
 */
export class InstanceCache {
  private readonly cache: ReplicaCache<Instance | null>;

  constructor(
    private readonly store: InstanceStore,
    ttlMs: number,
  ) {
    this.cache = new ReplicaCache(ttlMs);
  }

  get(id: string): Promise<Instance | null> {
    return this.cache.get(id, () => this.store.get(id));
  }

  /** One instance changed, or (`null`) any may have. */
  forget(id: string | null): void {
    this.cache.forget(id);
  }
}
