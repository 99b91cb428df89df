import { compareStreamIds, type Platform, type StoredEvent } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";
import type { FeedPosition } from "./catch-up.ts";
import { LiveEvent } from "./sink.ts";
import type { Subscriber } from "./subscriber.ts";

/**
 * One stream this gateway reads for its clients: an instance's 7-day stream, or one shard's
 * all-instances stream (docs/streams.md "Shards": every shard has its own).
 */
export interface Feed extends FeedPosition {
  /** The hub's name for it: the key, and for an all-instances stream of several shards its shard too. */
  readonly id: string;
  /** The shard it is read on: an instance's changes when the instance is moved. */
  shard: number;
  position: string;
  /** The event id at `position` (null before the stream's first): where a client without a cursor starts. */
  lastId: string | null;
  readonly subs: Set<Subscriber>;
}

/** How long one blocking read waits before it is issued again (a new feed interrupts it sooner). */
const BLOCK_MS = 5_000;
/** Entries per stream per read. */
const READ_COUNT = 500;
/** How long closing waits for the read in flight to end. */
const CLOSE_WAIT_MS = 1_000;

/**
 * The blocking reader of one shard (docs/streams.md "One reader per shard"): one `XREAD` over
 * every feed of the shard, on a connection of its own (`gw-streams`, `gw-streams-<shard>`), from
 * each feed's position; each entry read is encoded once and handed to the feed's clients. A
 * shard that is down fails its own reads only: they are retried, and the other shards' readers
 * go on. A new feed interrupts the blocking read (`CLIENT UNBLOCK`, sent on the same shard) so
 * that its clients wait for nothing.
 */
export class ShardReader {
  /** This shard's feeds by stream key (a key names one stream on a shard). */
  private readonly feeds = new Map<string, Feed>();
  private readonly conn: ReturnType<Platform["duplicate"]>;
  private readerId: number | null = null;
  /** Feeds added, and the count the blocking read in flight was issued with. */
  private added = 0;
  private readingAt = -1;
  private wake: (() => void) | null = null;
  private running = true;
  private failing = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly platform: Platform,
    readonly shard: number,
    private readonly log: FastifyBaseLogger,
    /** Its reads work again after failing (the shard was down or unreachable). */
    private readonly recovered: (shard: number) => void,
  ) {
    this.conn = platform.duplicate("gw-streams", shard);
    // A reconnected reader is another client: its id is read again before the next read.
    this.conn.on("close", () => {
      this.readerId = null;
    });
    this.loop = this.readLoop();
  }

  add(feed: Feed): void {
    this.feeds.set(feed.key, feed);
    this.added++;
    this.wake?.();
    // Not sent (the shard unreachable): the read ends by itself within BLOCK_MS.
    this.interrupt().catch(() => {});
  }

  remove(feed: Feed): void {
    if (this.feeds.get(feed.key) === feed) this.feeds.delete(feed.key);
  }

  async close(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.conn.disconnect();
    // A command waiting for a shard that is down is not always failed by the disconnect: not waited for long.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.loop, new Promise((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Unblocks a read issued before the latest feed was added; the loop reads again with it. */
  private async interrupt(): Promise<void> {
    // The shard's own client: the reader is blocked there (the routed client would send it to control).
    const shard = this.platform.shards.clients[this.shard]!;
    for (let tries = 0; tries < 20 && this.running && this.readingAt >= 0 && this.readingAt < this.added; tries++) {
      // Not blocked yet (the read is still on its way): try again shortly.
      if (this.readerId !== null && (await shard.client("UNBLOCK", this.readerId)) === 1) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      if (this.feeds.size === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
        continue;
      }
      try {
        if (this.failing) {
          // Back: said before the read, which may block for seconds.
          this.readerId = (await this.conn.client("ID")) as number;
          this.failing = false;
          this.recovered(this.shard);
        }
        this.readerId ??= (await this.conn.client("ID")) as number;
        const feeds = [...this.feeds.values()];
        this.readingAt = this.added;
        const got = await this.platform.events.follow(
          this.conn,
          feeds.map((f) => f.key),
          feeds.map((f) => f.position),
          { blockMs: BLOCK_MS, count: READ_COUNT, instanceOf: (key) => this.feeds.get(key)?.instanceId },
        );
        this.readingAt = -1;
        for (const [key, events] of got) {
          const feed = this.feeds.get(key);
          if (feed) dispatch(feed, events);
        }
      } catch (err) {
        this.readingAt = -1;
        if (!this.running) return;
        this.failing = true;
        this.log.warn({ err, shard: this.shard }, "event streams: read failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
}

/** Hands entries read to the feed's clients: encoded once, for all of them. */
function dispatch(feed: Feed, stored: StoredEvent[]): void {
  // A read issued for a feed since dropped and started again may hold entries before its position.
  const fresh = stored.filter((e) => compareStreamIds(e.streamId, feed.position) > 0);
  if (fresh.length === 0) return;
  const last = fresh[fresh.length - 1]!;
  feed.position = last.streamId;
  feed.lastId = last.id;
  const events = fresh.map((e) => new LiveEvent(e));
  for (const sub of feed.subs) sub.offer(events);
}
