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
 * (`platform.onInvalidation`, as for the dispatcher's own target cache); the TTL bounds
 * staleness if one is missed while the subscriber reconnects, and a reconnect forgets
 * everything. A webhook created while one of its events is in flight may miss that event — the
 * same window the dispatcher's cache has.
 */
export class WebhookSubscriptions {
  private readonly entries = new Map<string, { kinds: ReadonlySet<string>; until: number }>();
  private readonly loading = new Map<string, Promise<ReadonlySet<string>>>();
  private readonly maxEntries = 50_000;
  /** Bumped by every invalidation: a load that started before one must not be cached. */
  private generation = 0;

  constructor(
    /** The `events` lists of the instance's active webhooks. */
    private readonly load: (instanceId: string) => Promise<string[][]>,
    private readonly ttlMs: number,
  ) {}

  /**
   * Forgets what it knows of one instance (its webhooks changed), or of all (the invalidations'
   * subscription reconnected and may have missed some). A load already running is not kept.
   */
  forget(instanceId?: string): void {
    this.generation++;
    if (instanceId) this.entries.delete(instanceId);
    else this.entries.clear();
  }

  /**
   * Whether an event of `kind` must reach the dispatcher. Answers synchronously from memory when
   * it can (this is on every event's path); a failed lookup answers true (deliver rather than drop).
   */
  wants(instanceId: string, kind: string): boolean | Promise<boolean> {
    if (ALWAYS_DISPATCHED.has(kind)) return true;
    const hit = this.entries.get(instanceId);
    if (hit && hit.until > Date.now()) return matches(hit.kinds, kind);
    return this.kindsOf(instanceId).then(
      (kinds) => matches(kinds, kind),
      () => true,
    );
  }

  private kindsOf(instanceId: string): Promise<ReadonlySet<string>> {
    const pending = this.loading.get(instanceId);
    if (pending) return pending;
    const generation = this.generation;
    const p = this.load(instanceId)
      .then((lists) => {
        const kinds = new Set(lists.flat());
        if (generation === this.generation && this.ttlMs > 0) {
          if (this.entries.size >= this.maxEntries) this.entries.clear();
          this.entries.set(instanceId, { kinds, until: Date.now() + this.ttlMs });
        }
        return kinds;
      })
      .finally(() => this.loading.delete(instanceId));
    this.loading.set(instanceId, p);
    return p;
  }
}

const matches = (kinds: ReadonlySet<string>, kind: string) => kinds.has("*") || kinds.has(kind);
