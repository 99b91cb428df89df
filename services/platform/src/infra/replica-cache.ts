/**
 * What one replica keeps in memory per key (an instance, a pod) for `ttlMs`, dropped by
 * {@link forget}: when any replica announces a change (`platform.invalidations`; everything
 * after the announcements' subscription reconnects, the TTL bounding a lost one), or when a
 * caller finds the value wrong (the session directory's owners). Callers that miss at the same time share
 * one load. A load that was on its way while a change was announced may have read the old value:
 * it answers its callers but is not kept, and callers after the change do not join it.
 */
export class ReplicaCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  private readonly loading = new Map<string, { generation: number; promise: Promise<T> }>();
  /** Bumped by every {@link forget}. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  /** The kept value, if still fresh (synchronous: callers on hot paths answer without a promise). */
  peek(id: string): T | undefined {
    const hit = this.entries.get(id);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  /** The kept value, else `load()`'s (one load for concurrent callers), kept unless null or a change was announced meanwhile. */
  get(id: string, load: () => Promise<T>): Promise<T> {
    const hit = this.peek(id);
    if (hit !== undefined) return Promise.resolve(hit);
    const generation = this.generation;
    const pending = this.loading.get(id);
    if (pending && pending.generation === generation) return pending.promise;
    const promise = load().then(
      (value) => {
        this.settled(id, promise);
        if (value !== null && generation === this.generation && this.ttlMs > 0) {
          if (this.entries.size >= this.maxEntries) this.entries.clear();
          this.entries.set(id, { value, until: Date.now() + this.ttlMs });
        }
        return value;
      },
      (err: unknown) => {
        this.settled(id, promise);
        throw err;
      },
    );
    this.loading.set(id, { generation, promise });
    return promise;
  }

  private settled(id: string, promise: Promise<T>): void {
    if (this.loading.get(id)?.promise === promise) this.loading.delete(id);
  }

  /** Forgets one instance (it changed), or all (`null`: announcements may have been missed). */
  forget(id: string | null): void {
    this.generation++;
    if (id === null) {
      this.entries.clear();
      this.loading.clear();
    } else {
      this.entries.delete(id);
      this.loading.delete(id);
    }
  }
}
