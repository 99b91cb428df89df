import type { Redis } from "ioredis";

/**
 * The all-instances stream that the admin event stream reads (docs/streams.md "Admin stream").
 *
 * Every event already goes to its instance's 7-day stream; the per-shard streams carry only what
 * webhooks subscribe to (webhooks/subscriptions.ts), so neither holds "every event of every
 * instance" in one place. While an admin stream is open on some gateway, that gateway keeps the
 * watch key alive (a TTL it refreshes); the publish script (bus.ts) checks the key in Redis, in
 * the same script run, and then also appends the event to this stream. So:
 * - no event published while the key lives is missed: the check is atomic with the publish, on
 *   every producer, with nothing announced to processes that may start later or be reconnecting;
 * - when no console is open the cost is one EXISTS inside a script that already runs, and the
 *   dispatcher never sees events no webhook wants (making `subscriptions.wants` say yes would
 *   have it read, match and acknowledge every event of every instance meanwhile);
 * - the stream is capped (MAXLEN) and expires an hour after the last watcher left.
 */
export const ALL_EVENTS_MAXLEN = 10_000;
/** How long the watch key lives without a refresh: an admin stream's gateway renews it at a third of this. */
export const ALL_EVENTS_WATCH_MS = 30_000;
/** The stream itself, after the last refresh: a console reconnecting within the hour resumes from it. */
export const ALL_EVENTS_KEEP_MS = 3_600_000;

export const allEventsKeys = (prefix: string) => ({
  /** Set (with a TTL) while an admin stream is open: publishing also appends to `stream`. */
  watch: `${prefix}all-events:watch`,
  /** Stream: `event`, kind, `envelope`, JSON, `instanceId`, id (the 7-day streams' fields and the instance). */
  stream: `${prefix}all-events`,
});

/** Marks the all-instances stream as watched for the next {@link ALL_EVENTS_WATCH_MS}, and keeps it an hour. */
export async function watchAllEvents(redis: Redis, prefix: string): Promise<void> {
  const k = allEventsKeys(prefix);
  await redis.multi().set(k.watch, "1", "PX", ALL_EVENTS_WATCH_MS).pexpire(k.stream, ALL_EVENTS_KEEP_MS).exec();
}
