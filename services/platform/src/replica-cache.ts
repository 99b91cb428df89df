/**
 * What one replica keeps in memory per instance for `ttlMs`, dropped when any replica announces a
 * change (`platform.onInvalidation`) and wholly after the announcements' subscription reconnects.
 * The TTL only bounds the case of a lost announcement. A load that was on its way while a change
 * was announced may have read the old value: it answers its caller but is not kept.
 */
export class ReplicaCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
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

  /** The kept value, else `load()`'s, kept unless null or a change was announced meanwhile. */
  async get(id: string, load: () => Promise<T>): Promise<T> {
    const hit = this.peek(id);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const value = await load();
    if (value !== null && generation === this.generation && this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(id, { value, until: Date.now() + this.ttlMs });
    }
    return value;
  }

  /** Forgets one instance (it changed), or all (`null`: announcements may have been missed). */
  forget(id: string | null): void {
    this.generation++;
    if (id === null) this.entries.clear();
    else this.entries.delete(id);
  }
}
