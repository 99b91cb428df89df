import { compareStreamIds, type StoredEvent, type StreamReads } from "@gw/platform";
import { MAX_EMPTY, PAGE } from "./catch-up.ts";
import type { Feed } from "./reader.ts";
import { LiveEvent } from "./sink.ts";
import type { Subscriber } from "./subscriber.ts";

/** An admin client's reading of one shard's all-instances stream: the shard's feed, and its reads. */
export interface ShardPart {
  readonly feed: Feed;
  readonly sub: Subscriber;
  readonly reads: StreamReads;
}

/** The largest sequence of a stream id: `<ms>-MAX` is the end of that millisecond. */
const MAX_SEQ = "18446744073709551615";

const msOf = (streamId: string) => Number(streamId.slice(0, streamId.indexOf("-")));

/** One shard's progress while catching up. */
interface Reading {
  part: ShardPart;
  /** Stream id of the last entry read. */
  after: string;
  /** Read and not sent yet: waits for the other shards' entries before it. */
  pending: StoredEvent[];
  /** The last page was full: the history may hold more. */
  more: boolean;
  empty: number;
}

/**
 * Where each shard's part resumes after the event `cursor` (docs/streams.md "Shards"): right
 * after it on the shard whose stream holds it; on the others from the start of its millisecond
 * (its entry's stream id there, the clocks of the shards' servers taken as one), so that what
 * was stamped in the same millisecond on another shard is sent again rather than missed. An id
 * no shard holds resumes after its own time everywhere (the rule for unknown ids). Never past
 * what a feed hands out live.
 */
function resumePoints(parts: ShardPart[], located: { after: string; found: boolean }[]): string[] {
  const home = located.find((l) => l.found);
  const from = home ? `${msOf(home.after) - 1}-${MAX_SEQ}` : null;
  return located.map((l, i) => {
    if (l.found) return l.after;
    const after = from ?? l.after;
    const position = parts[i]!.feed.position;
    return compareStreamIds(after, position) > 0 ? position : after;
  });
}

/**
 * Sends an admin client the all-instances history after `cursor` from every shard, merged in the
 * order of the entries' stream ids (the servers' clocks), then makes every part live at once —
 * catch-up.ts's rule, per shard: a part is done when its history has no more and it is at or
 * past its feed's position, all checked after the last await. Merged in time order so that the
 * client's cursor, wherever the stream ends, says how far every shard was sent (see
 * {@link resumePoints}). A page is read from each shard whose entries were all sent; what is sent
 * stops at the earliest last entry of a shard that may have more, so nothing of it is overtaken.
 *
 * A shard whose reads fail is handed to `drop` (the hub tries it again later), the others go on.
 */
export async function catchUpAcross(
  parts: ShardPart[],
  cursor: string,
  drop: (part: ShardPart, err: unknown) => void,
): Promise<void> {
  const located = await Promise.allSettled(parts.map((p) => p.reads.locate(p.feed.key, cursor)));
  const ok: ShardPart[] = [];
  const found: { after: string; found: boolean }[] = [];
  for (const [i, r] of located.entries()) {
    if (r.status === "rejected") drop(parts[i]!, r.reason);
    else {
      ok.push(parts[i]!);
      found.push(r.value);
    }
  }
  let readings: Reading[] = resumePoints(ok, found).map((after, i) => ({
    part: ok[i]!,
    after,
    pending: [],
    more: true,
    empty: 0,
  }));
  const client = parts[0]!.sub.client;
  for (;;) {
    if (client.closed || readings.length === 0) return;
    const failed = new Map<Reading, unknown>();
    await Promise.all(readings.map((r) => readPage(r).catch((err: unknown) => void failed.set(r, err))));
    if (failed.size > 0) {
      for (const [r, err] of failed) drop(r.part, err);
      readings = readings.filter((r) => !failed.has(r));
      continue;
    }
    if (client.closed) return;
    const batch = takeInOrder(readings);
    if (batch.length > 0) {
      const kinds = client.request.kinds;
      const out = kinds === null ? batch : batch.filter((e) => kinds.has(e.kind));
      if (out.length > 0) {
        client.sink.send(out.map((e) => new LiveEvent(e)));
        client.cursor = out[out.length - 1]!.id;
      }
      await client.sink.drained();
      if (client.closed) return;
    }
    const done = readings.every(
      (r) => r.pending.length === 0 && !r.more && compareStreamIds(r.after, r.part.feed.position) >= 0,
    );
    if (done) {
      for (const r of readings) r.part.sub.goLive(r.after);
      return;
    }
  }
}

/** The next page of a shard whose entries were all sent, unless it is read to its feed's position. */
async function readPage(r: Reading): Promise<void> {
  const feed = r.part.feed;
  if (r.pending.length > 0 || (!r.more && compareStreamIds(r.after, feed.position) >= 0)) return;
  const page = await r.part.reads.after(feed.key, r.after, PAGE);
  r.pending = page;
  r.more = page.length === PAGE;
  if (page.length > 0) {
    r.after = page[page.length - 1]!.streamId;
    r.empty = 0;
  } else if (compareStreamIds(r.after, feed.position) < 0 && ++r.empty >= MAX_EMPTY) {
    // Empty reads while the feed is ahead: the entries between are gone (the stream is capped).
    r.after = feed.position;
  }
}

/**
 * The entries that can be sent now, in stream id order (ties: by shard): all of them up to the
 * earliest last entry of a shard that may hold more; the rest stay pending.
 */
function takeInOrder(readings: Reading[]): StoredEvent[] {
  let bound: string | null = null;
  for (const r of readings) {
    const last = r.pending[r.pending.length - 1];
    if (r.more && last && (bound === null || compareStreamIds(last.streamId, bound) < 0)) bound = last.streamId;
  }
  const taken: { e: StoredEvent; shard: number }[] = [];
  for (const r of readings) {
    let n = r.pending.length;
    if (bound !== null) while (n > 0 && compareStreamIds(r.pending[n - 1]!.streamId, bound) > 0) n--;
    if (n === 0) continue;
    for (const e of r.pending.slice(0, n)) taken.push({ e, shard: r.part.feed.shard });
    r.part.sub.last = r.pending[n - 1]!.streamId;
    r.pending = r.pending.slice(n);
  }
  taken.sort((a, b) => compareStreamIds(a.e.streamId, b.e.streamId) || a.shard - b.shard);
  return taken.map((t) => t.e);
}
