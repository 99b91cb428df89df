import type { GroupMeta } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";

/** How long a stored list of an instance's groups stands for the network's (docs/groups.md). */
export const GROUP_LIST_FRESH_MS = 5 * 60_000;

/**
 * Group metadata kept per instance (`settings.storage.groups`): what the network said of each group
 * the last time it was read or a group event changed it, and whether the stored list is a complete
 * recent one — `GET /groups` answers from it instead of asking the network for every group each time
 * (listing all groups is the slowest call of the network).
 */
export class GroupStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
  ) {}

  async put(instanceId: string, groups: GroupMeta[], complete = false): Promise<void> {
    const multi = this.redis.multi();
    if (complete) multi.del(this.k.groups(instanceId));
    if (groups.length > 0) {
      multi.hset(this.k.groups(instanceId), Object.fromEntries(groups.map((g) => [g.id, JSON.stringify(g)])));
    }
    if (complete) multi.set(this.k.groupsListed(instanceId), String(Date.now()), "PX", GROUP_LIST_FRESH_MS);
    await multi.exec();
  }

  async get(instanceId: string, groupId: string): Promise<GroupMeta | null> {
    const raw = await this.redis.hget(this.k.groups(instanceId), groupId);
    return raw ? (JSON.parse(raw) as GroupMeta) : null;
  }

  /** Every stored group, when the stored list is complete and fresh; else null (ask the network). */
  async list(instanceId: string): Promise<GroupMeta[] | null> {
    if (!(await this.redis.exists(this.k.groupsListed(instanceId)))) return null;
    const all = await this.redis.hvals(this.k.groups(instanceId));
    return all.map((raw) => JSON.parse(raw) as GroupMeta);
  }

  /** A group changed (an event): its record is dropped, and the list is no longer complete. */
  async forget(instanceId: string, groupId: string): Promise<void> {
    await this.redis.multi().hdel(this.k.groups(instanceId), groupId).del(this.k.groupsListed(instanceId)).exec();
  }

  async clear(instanceId: string): Promise<void> {
    await this.redis.del(this.k.groups(instanceId), this.k.groupsListed(instanceId));
  }
}
