import type { Redis } from "ioredis";
import type { Invalidations } from "../invalidations.ts";
import { homeShardOf } from "./placement.ts";

/** A move's phase: `drain` (session pods let go, requests still served), `copy` (503 for everything). */
export type MovePhase = "drain" | "copy";

/** The control shard's keys of the directory. */
export const directoryKeys = (prefix: string) => ({
  /** HASH instanceId → shard: instances that live away from their home shard (moved). */
  moved: `${prefix}shard:moved`,
  /** HASH instanceId → MovePhase: instances being moved now. */
  moving: `${prefix}shard:moving`,
  /** HASH shard → instances placed there (new instances go to the emptiest). */
  placed: `${prefix}shard:placed`,
});

/**
 * Where each instance lives, known in memory by every replica (placement.ts: the home shard is
 * in the id; this adds the moved instances and those moving now). The exceptions are few and
 * small — one entry per moved instance — so every replica keeps all of them, loaded at start and
 * kept current by the invalidations channel (kind `shard`), reloaded whole when the subscription
 * reconnects (a message may have been missed). Synchronous lookups: every Redis command of an
 * instance asks (routed.ts).
 */
export class ShardDirectory {
  private moved = new Map<string, number>();
  private moving = new Map<string, MovePhase>();
  readonly keys: ReturnType<typeof directoryKeys>;

  constructor(
    private readonly control: Redis,
    prefix: string,
    readonly count: number,
  ) {
    this.keys = directoryKeys(prefix);
  }

  /** Loads the directory and follows its changes. */
  async start(invalidations: Invalidations): Promise<void> {
    invalidations.on("shard", (id) => {
      void (id === null ? this.load() : this.reload(id)).catch(() => {});
    });
    await this.load();
  }

  async load(): Promise<void> {
    const [moved, moving] = await Promise.all([
      this.control.hgetall(this.keys.moved),
      this.control.hgetall(this.keys.moving),
    ]);
    this.moved = new Map(Object.entries(moved).map(([id, s]) => [id, Number(s)]));
    this.moving = new Map(Object.entries(moving) as [string, MovePhase][]);
  }

  async reload(instanceId: string): Promise<void> {
    const [moved, moving] = await Promise.all([
      this.control.hget(this.keys.moved, instanceId),
      this.control.hget(this.keys.moving, instanceId),
    ]);
    this.set(instanceId, moved === null ? null : Number(moved), moving as MovePhase | null);
  }

  /** Applies a change this replica made, before it is announced (the announcement reloads it). */
  set(instanceId: string, shard: number | null, phase: MovePhase | null): void {
    if (shard === null || shard === homeShardOf(instanceId)) this.moved.delete(instanceId);
    else this.moved.set(instanceId, shard);
    if (phase === null) this.moving.delete(instanceId);
    else this.moving.set(instanceId, phase);
  }

  /** The shard that holds the instance's keys. */
  of(instanceId: string): number {
    const shard = this.moved.get(instanceId) ?? homeShardOf(instanceId);
    // An id made for a shard this deployment does not have (fewer shards configured than before):
    // answering from another shard would show an empty instance, so nothing answers.
    if (shard >= this.count)
      throw new Error(`instance ${instanceId} lives on shard ${shard}; ${this.count} configured`);
    return shard;
  }

  /** The move phase of an instance being moved now, else null. */
  phase(instanceId: string): MovePhase | null {
    return this.moving.get(instanceId) ?? null;
  }

  /** Instances being moved now (session pods let these go and do not take them). */
  movingIds(): string[] {
    return [...this.moving.keys()];
  }

  /** The shard a new instance goes to: the one with the fewest instances placed (counted here). */
  async place(): Promise<number> {
    const placed = await this.control.hgetall(this.keys.placed);
    let best = 0;
    for (let s = 1; s < this.count; s++) {
      if (Number(placed[s] ?? 0) < Number(placed[best] ?? 0)) best = s;
    }
    await this.control.hincrby(this.keys.placed, String(best), 1);
    return best;
  }
}
