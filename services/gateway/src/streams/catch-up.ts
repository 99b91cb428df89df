import { compareStreamIds, type StreamReads } from "@gw/platform";
import { LiveEvent } from "./sink.ts";
import type { Subscriber } from "./subscriber.ts";

/** The part of a feed (hub.ts) catching up reads: its stream, and how far the feed has handed out. */
export interface FeedPosition {
  readonly key: string;
  readonly instanceId: string | undefined;
  /** Stream id of the last entry the feed read (and gave its live clients). */
  readonly position: string;
}

/**
 * The reads catching up needs: `platform.events` (the routed client finds an instance's stream on
 * its shard), or a shard's own {@link StreamReads} (its all-instances stream).
 */
export type FeedReads = Pick<StreamReads, "locate" | "after">;

export const PAGE = 500;
/** Reads that came back empty while the feed was ahead: the entries between are gone from the history. */
export const MAX_EMPTY = 3;

/**
 * Sends `sub` the history after its cursor, then makes it live (subscriber.ts). The feed goes on
 * reading meanwhile and gives this client nothing until it is live; pages are read until the
 * history has no more AND the last one read is at or past the feed's position — checked after
 * the last await, so no entry the feed handed out in between is skipped: whatever the feed read
 * before that moment was in the history read, whatever it reads after goes to the live client,
 * and an entry in both is sent once (live skips what is at or before `last`).
 *
 * Each page waits until the client took the previous one: a client catching up never buffers
 * more than a page, however long the history.
 */
export async function catchUp(reads: FeedReads, feed: FeedPosition, sub: Subscriber, cursor: string): Promise<void> {
  const located = await reads.locate(feed.key, cursor);
  // An unknown cursor resumes after its time, never past what the feed hands out live.
  let after = !located.found && compareStreamIds(located.after, feed.position) > 0 ? feed.position : located.after;
  let empty = 0;
  for (;;) {
    if (sub.closed) return;
    const page = await reads.after(feed.key, after, PAGE, feed.instanceId);
    if (page.length > 0) {
      sub.replay(page.map((e) => new LiveEvent(e)));
      after = page[page.length - 1]!.streamId;
      await sub.sink.drained();
      if (sub.closed) return;
    }
    if (page.length < PAGE && compareStreamIds(after, feed.position) >= 0) return sub.goLive(after);
    if (page.length === 0 && ++empty >= MAX_EMPTY) return sub.goLive(feed.position);
    if (page.length > 0) empty = 0;
  }
}
