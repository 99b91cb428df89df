import { ReplicaCache } from "../infra/replica-cache.ts";

/** Kinds that go to the dispatcher whatever the webhooks: the worker watches them (a number back online wakes its queue). */
const ALWAYS_DISPATCHED: ReadonlySet<string> = new Set(["session.status"]);

/**
 * Which event kinds an instance's active webhooks subscribe to, kept per replica for a short
 * TTL. Producers ask it before putting an event on the dispatcher's shard stream: an event no
 * active webhook wants would only be read, matched against nothing and acknowledged there (a
 * send makes three events; for an instance without webhooks that was ~13 % of a send's CPU).
 * The instance's 7-day history gets every event regardless.
 *
 * Every webhook change publishes an invalidation that all replicas apply at once
 * (`platform.invalidations`, as for the dispatcher's own target cache); the TTL bounds
 * staleness if one is missed while the subscriber reconnects, and a reconnect forgets
 * everything. A webhook created while one of its events is in flight may miss that event — the
 * same window the dispatcher's cache has.
 */
export class WebhookSubscriptions {
  /** The events of a burst that miss wait for one load (ReplicaCache shares it), not one each. */
  private readonly cache: ReplicaCache<ReadonlySet<string>>;

  constructor(
    /** The `events` lists of the instance's active webhooks. */
    private readonly load: (instanceId: string) => Promise<string[][]>,
    ttlMs: number,
  ) {
    this.cache = new ReplicaCache(ttlMs);
  }

  /**
   * Forgets what it knows of one instance (its webhooks changed), or of all (`null`: the
   * invalidations' subscription reconnected and may have missed some). A load already running is
   * not kept.
   */
  forget(instanceId: string | null): void {
    this.cache.forget(instanceId);
  }

  /**
   * Whether an event of `kind` must reach the dispatcher. Answers synchronously from memory when
   * it can (this is on every event's path); a failed lookup answers true (deliver rather than drop).
   */
  wants(instanceId: string, kind: string): boolean | Promise<boolean> {
    if (ALWAYS_DISPATCHED.has(kind)) return true;
    const hit = this.cache.peek(instanceId);
    if (hit) return matches(hit, kind);
    return this.cache
      .get(instanceId, async () => new Set((await this.load(instanceId)).flat()))
      .then(
        (kinds) => matches(kinds, kind),
        () => true,
      );
  }
}

const matches = (kinds: ReadonlySet<string>, kind: string) => kinds.has("*") || kinds.has(kind);
