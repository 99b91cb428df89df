import type { Redis } from "ioredis";
import { watchAllEvents } from "./all-events.ts";
import { entriesAfter, lastStreamId, locateEvent, type StoredEvent } from "./stored.ts";

/**
 * The live streams' reads (stored.ts) on one Redis client: for the all-instances stream, which
 * every shard has one of (docs/streams.md "Shards"). An instance's 7-day stream needs none of
 * this: the routed client sends its reads to the instance's shard (EventBus `after`, `tail`,
 * `locate`); a local key such as `all-events` would go to the control shard, so the gateway reads
 * each shard's own through these, on `platform.shards.clients[s]`.
 */
export class StreamReads {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Up to `count` entries of `key` after the stream id `after`, oldest first. */
  after(key: string, after: string, count: number, instanceId?: string): Promise<StoredEvent[]> {
    return entriesAfter(this.redis, key, after, count, instanceId);
  }

  /** The last entry of `key` now ("0-0" and null when none). */
  tail(key: string): Promise<{ streamId: string; id: string | null }> {
    return lastStreamId(this.redis, key);
  }

  /** Where a client that last saw `eventId` resumes in `key` (stored.ts `locateEvent`). */
  locate(key: string, eventId: string): Promise<{ after: string; found: boolean }> {
    return locateEvent(this.redis, key, eventId);
  }

  /** This shard's all-instances stream kept filled for the next 30 s (all-events.ts). */
  watchAll(): Promise<void> {
    return watchAllEvents(this.redis, this.prefix);
  }
}
