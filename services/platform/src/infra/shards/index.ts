import type { ShardList } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Invalidations } from "../invalidations.ts";
import { ShardDirectory } from "./directory.ts";
import { routeOfKey } from "./families.ts";
import { newShardedInstanceId } from "./placement.ts";
import { routedRedis, type ShardRouting, shardOfKeys } from "./routed.ts";

export { type MovePhase, ShardDirectory } from "./directory.ts";
export { CONTROL_HEADS, type KeyRoute, type KeyScope, routeOfKey } from "./families.ts";
export { homeShardOf, MAX_SHARDS, newShardedInstanceId } from "./placement.ts";
export { InstanceMovingError, routedRedis, shardOfKeys } from "./routed.ts";

/**
 * The Redis deployments of a platform (docs/architecture.md "Sharding the keyspace"): shard 0 is
 * the control shard (REDIS_URL), shards 1… hold instances only. `redis` is what the stores use:
 * the control client itself on a deployment of one shard (nothing routes), else a client that
 * sends each command to the shard of its keys (routed.ts). Loops that read a structure every
 * shard has (the dispatch streams, the queue's active set) go through `clients` one by one.
 */
export class RedisShards implements ShardRouting {
  readonly directory: ShardDirectory;
  readonly redis: Redis;

  constructor(
    readonly prefix: string,
    /** One client per shard, the control shard's first. */
    readonly clients: Redis[],
  ) {
    this.directory = new ShardDirectory(clients[0]!, prefix, clients.length);
    this.redis = clients.length === 1 ? clients[0]! : routedRedis(this);
  }

  get count(): number {
    return this.clients.length;
  }

  get control(): Redis {
    return this.clients[0]!;
  }

  start(invalidations: Invalidations): Promise<void> {
    return this.directory.start(invalidations);
  }

  /** The shard that holds an instance's keys. */
  of(instanceId: string): number {
    return this.count === 1 ? 0 : this.directory.of(instanceId);
  }

  /** The client of an instance's shard. */
  client(instanceId: string): Redis {
    return this.clients[this.of(instanceId)]!;
  }

  /** The shard of a command's keys (routed.ts); throws for keys of two shards or a moving instance. */
  shardOfKeys(keys: readonly string[]): number {
    return this.count === 1 ? 0 : shardOfKeys(this, keys);
  }

  /** The instance a key belongs to, if it is an instance key. */
  instanceOfKey(key: string): string | undefined {
    return routeOfKey(this.prefix, key).instanceId;
  }

  /** Each shard's state for operators (`GET /admin/shards`): a shard that cannot answer is `up: false`. */
  async describe(): Promise<ShardList> {
    const placed = await this.control.hgetall(this.directory.keys.placed);
    const data = await Promise.all(
      this.clients.map(async (c, shard) => {
        const [keys, memory] = await Promise.all([c.dbsize(), c.info("memory")]).catch(() => [null, null] as const);
        const used = memory === null ? null : /used_memory:(\d+)/.exec(memory)?.[1];
        return {
          shard,
          control: shard === 0,
          up: keys !== null,
          placed: Number(placed[shard] ?? 0),
          keys,
          usedMemory: used ? Number(used) : null,
        };
      }),
    );
    return { data, moving: this.directory.movingIds() };
  }

  /** A new instance's id: on one shard as before sharding, else naming the emptiest shard. */
  async newInstanceId(legacy: () => string): Promise<string> {
    return this.count === 1 ? legacy() : newShardedInstanceId(await this.directory.place());
  }
}
