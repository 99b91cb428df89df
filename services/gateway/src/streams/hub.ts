import { compareStreamIds, type Platform, type StoredEvent } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";
import { AllEventsWatch } from "./all-events-watch.ts";
import { catchUp, type FeedPosition } from "./catch-up.ts";
import type { StreamRequest } from "./request.ts";
import { LiveEvent, type StreamSink } from "./sink.ts";
import { Subscriber } from "./subscriber.ts";

/** One stream this gateway reads for its clients: an instance's 7-day stream, or the all-instances one. */
interface Feed extends FeedPosition {
  position: string;
  /** The event id at `position` (null before the stream's first): where a client without a cursor starts. */
  lastId: string | null;
  readonly subs: Set<Subscriber>;
}

/** How long one blocking read waits before it is issued again (a new feed interrupts it sooner). */
const BLOCK_MS = 5_000;
/** Entries per stream per read. */
const READ_COUNT = 500;
const HEARTBEAT_MS = 15_000;

/**
 * The live streams of one gateway (docs/streams.md "One reader per gateway"). Every stream its
 * clients watch is a feed, read once for all of them: one blocking `XREAD` over every feed, on a
 * connection of its own, from each feed's position; each entry read is encoded once and handed to
 * the feed's clients. A thousand clients of one instance cost one read, not a thousand. The
 * history in Redis is the truth every replica reads: no pod affinity, and a client of a gateway
 * that went away resumes by id on any other.
 *
 * A feed starts at its stream's end when its first client comes, and is dropped with its last.
 * A new feed interrupts the blocking read (`CLIENT UNBLOCK`) so that its clients wait for nothing.
 */
export class StreamHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly starting = new Map<string, Promise<Feed>>();
  private readonly subs = new Set<Subscriber>();
  private readonly byOwner = new Map<string, Set<Subscriber>>();
  private readonly reader: ReturnType<Platform["duplicate"]>;
  private readerId: number | null = null;
  /** Feeds added, and the count the blocking read in flight was issued with. */
  private added = 0;
  private readingAt = -1;
  private wake: (() => void) | null = null;
  private running = true;
  private readonly loop: Promise<void>;
  private readonly heartbeats: NodeJS.Timeout;
  private readonly watch: AllEventsWatch;

  constructor(
    private readonly platform: Platform,
    private readonly log: FastifyBaseLogger,
  ) {
    this.reader = platform.duplicate("gw-streams");
    // A reconnected reader is another client: its id is read again before the next read.
    this.reader.on("close", () => {
      this.readerId = null;
    });
    this.watch = new AllEventsWatch(platform, log);
    this.heartbeats = setInterval(() => {
      for (const sub of this.subs) sub.sink.heartbeat();
    }, HEARTBEAT_MS).unref();
    this.loop = this.readLoop();
  }

  /** Instances whose credentials opened streams here (revocation.ts). */
  owners(): string[] {
    return [...this.byOwner.keys()];
  }

  /** The streams opened with `instanceId`'s credentials. */
  ownedBy(instanceId: string): Subscriber[] {
    return [...(this.byOwner.get(instanceId) ?? [])];
  }

  /** Serves `request` on `sink` until either ends: history after the cursor first, then live. */
  async open(request: StreamRequest, sink: StreamSink): Promise<void> {
    if (!this.running) return sink.end("shutdown", request.cursor);
    const all = request.instanceId === null;
    // Watched before its feed's position is read: every event after that position is in the stream.
    if (all) await this.watch.acquire();
    const sub = new Subscriber(sink, request);
    this.subs.add(sub);
    const owner = request.owner?.instanceId;
    if (owner !== undefined) {
      const owned = this.byOwner.get(owner) ?? new Set();
      this.byOwner.set(owner, owned.add(sub));
    }
    let feed: Feed | undefined;
    sink.onClose(() => {
      this.subs.delete(sub);
      const owned = owner === undefined ? undefined : this.byOwner.get(owner);
      if (owned?.delete(sub) && owned.size === 0) this.byOwner.delete(owner!);
      if (all) this.watch.release();
      if (feed) this.leave(feed, sub);
    });
    feed = await this.feedOf(request.instanceId);
    // Dropped meanwhile (another client that waited for it left first): a new one.
    while (this.feeds.get(feed.key) !== feed) feed = await this.feedOf(request.instanceId);
    // Gone while its feed started: a feed nobody watches must not stay in the reads.
    if (sink.closed) return this.leave(feed, sub);
    feed.subs.add(sub);
    if (request.cursor === null) sub.goLive(feed.position, feed.lastId);
    else await catchUp(this.platform, feed, sub, request.cursor);
  }

  /** Ends every stream (the gateway is shutting down): clients resume elsewhere by id. */
  async close(): Promise<void> {
    this.running = false;
    clearInterval(this.heartbeats);
    for (const sub of [...this.subs]) sub.sink.end("shutdown", sub.cursor);
    this.watch.close();
    this.wake?.();
    this.reader.disconnect();
    await this.loop;
  }

  /** Ends `sub` because its credential no longer holds. */
  revoke(sub: Subscriber): void {
    sub.sink.end("revoked", sub.cursor);
  }

  /** `sub` is done with `feed`; the feed goes with its last client. */
  private leave(feed: Feed, sub: Subscriber): void {
    feed.subs.delete(sub);
    if (feed.subs.size === 0 && this.feeds.get(feed.key) === feed) this.feeds.delete(feed.key);
  }

  private async feedOf(instanceId: string | null): Promise<Feed> {
    const key = this.platform.events.streamKey(instanceId);
    const known = this.feeds.get(key);
    if (known) return known;
    let starting = this.starting.get(key);
    if (!starting) {
      starting = this.startFeed(key, instanceId ?? undefined).finally(() => this.starting.delete(key));
      this.starting.set(key, starting);
    }
    return starting;
  }

  private async startFeed(key: string, instanceId: string | undefined): Promise<Feed> {
    const tail = await this.platform.events.tail(key);
    const feed: Feed = { key, instanceId, position: tail.streamId, lastId: tail.id, subs: new Set() };
    this.feeds.set(key, feed);
    this.added++;
    this.wake?.();
    void this.interrupt();
    return feed;
  }

  /** Unblocks a read issued before the latest feed was added; the loop reads again with it. */
  private async interrupt(): Promise<void> {
    for (let tries = 0; tries < 20 && this.running && this.readingAt >= 0 && this.readingAt < this.added; tries++) {
      // Not blocked yet (the read is still on its way): try again shortly.
      if (this.readerId !== null && (await this.platform.redis.client("UNBLOCK", this.readerId)) === 1) return;
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
        this.readerId ??= (await this.reader.client("ID")) as number;
        const feeds = [...this.feeds.values()];
        this.readingAt = this.added;
        const got = await this.platform.events.follow(
          this.reader,
          feeds.map((f) => f.key),
          feeds.map((f) => f.position),
          { blockMs: BLOCK_MS, count: READ_COUNT, instanceOf: (key) => this.feeds.get(key)?.instanceId },
        );
        this.readingAt = -1;
        for (const [key, events] of got) this.dispatch(key, events);
      } catch (err) {
        this.readingAt = -1;
        if (!this.running) return;
        this.log.warn({ err }, "event streams: read failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private dispatch(key: string, stored: StoredEvent[]): void {
    const feed = this.feeds.get(key);
    if (!feed) return;
    // A read issued for a feed since dropped and started again may hold entries before its position.
    const fresh = stored.filter((e) => compareStreamIds(e.streamId, feed.position) > 0);
    if (fresh.length === 0) return;
    const last = fresh[fresh.length - 1]!;
    feed.position = last.streamId;
    feed.lastId = last.id;
    const events = fresh.map((e) => new LiveEvent(e));
    for (const sub of feed.subs) sub.offer(events);
  }
}
