import { compareStreamIds, type Platform, StreamReads } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";
import { AllEventsWatch } from "./all-events-watch.ts";
import { catchUpAcross, type ShardPart } from "./all-shards.ts";
import { catchUp } from "./catch-up.ts";
import { type Feed, ShardReader } from "./reader.ts";
import type { StreamRequest } from "./request.ts";
import type { StreamSink } from "./sink.ts";
import { StreamClient, Subscriber } from "./subscriber.ts";

/** A stream a client reads: an instance's 7-day stream, or one shard's all-instances stream. */
interface Target {
  /** The feed's name in the hub (Feed.id). */
  id: string;
  key: string;
  /** The all-instances stream's shard (an instance's is looked up when its feed starts). */
  shard: number;
  instanceId: string | undefined;
}

/** A client's subscriber on one feed. */
interface Part {
  feed: Feed;
  sub: Subscriber;
}

/** An admin client's shard that could not be read when the client came (the shard down): tried again. */
interface LatePart {
  client: StreamClient;
  target: Target;
  parts: Part[];
  busy: boolean;
}

const HEARTBEAT_MS = 15_000;
/** How often an admin client's shard that could not be read is tried again. */
const LATE_RETRY_MS = 1_000;

/**
 * The live streams of one gateway (docs/streams.md "One reader per shard"). Every stream its
 * clients watch is a feed, read once for all of them: one blocking `XREAD` per shard over every
 * feed of that shard (reader.ts), on a connection of its own, from each feed's position; each
 * entry read is encoded once and handed to the feed's clients. A thousand clients of one instance
 * cost one read, not a thousand. The history in Redis is the truth every replica reads: no pod
 * affinity, and a client of a gateway that went away resumes by id on any other.
 *
 * An instance's feed is read on the instance's shard (and follows it when it is moved). The
 * admin stream reads every shard's all-instances stream: one feed per shard, one client
 * subscribed to each, merged by arrival (all-shards.ts for catching up). On one shard this is
 * one reader and one feed per stream, as before shards.
 *
 * A feed starts at its stream's end when its first client comes, and is dropped with its last.
 */
export class StreamHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly starting = new Map<string, Promise<Feed>>();
  private readonly clients = new Set<StreamClient>();
  private readonly byOwner = new Map<string, Set<StreamClient>>();
  /** One reader per shard, started with the shard's first feed (the control shard's at once). */
  private readonly readers: (ShardReader | undefined)[];
  /** Each shard's reads of its own all-instances stream. */
  private readonly reads: StreamReads[];
  private readonly late = new Set<LatePart>();
  private running = true;
  private readonly heartbeats: NodeJS.Timeout;
  private readonly lateRetries: NodeJS.Timeout | undefined;
  private readonly watch: AllEventsWatch;

  constructor(
    private readonly platform: Platform,
    private readonly log: FastifyBaseLogger,
  ) {
    const shards = platform.shards;
    this.reads = shards.clients.map((c) => new StreamReads(c, platform.keys.prefix));
    this.readers = shards.clients.map(() => undefined);
    this.readers[0] = this.startReader(0);
    // One shard: the routed client is the control client, and the watch is the one of before.
    this.watch = new AllEventsWatch(
      shards.count === 1 ? [() => platform.events.watchAll()] : this.reads.map((r) => () => r.watchAll()),
      log,
    );
    this.heartbeats = setInterval(() => {
      for (const client of this.clients) client.sink.heartbeat();
    }, HEARTBEAT_MS).unref();
    if (shards.count > 1) {
      this.lateRetries = setInterval(() => {
        for (const late of this.late) void this.retryLate(late);
      }, LATE_RETRY_MS).unref();
      platform.invalidations.on("shard", (id) => {
        this.rehome(id).catch((err) => log.warn({ err, instanceId: id }, "event streams: moved feed not followed"));
      });
    }
  }

  /** Instances whose credentials opened streams here (revocation.ts). */
  owners(): string[] {
    return [...this.byOwner.keys()];
  }

  /** The streams opened with `instanceId`'s credentials. */
  ownedBy(instanceId: string): StreamClient[] {
    return [...(this.byOwner.get(instanceId) ?? [])];
  }

  /** Serves `request` on `sink` until either ends: history after the cursor first, then live. */
  async open(request: StreamRequest, sink: StreamSink): Promise<void> {
    if (!this.running) return sink.end("shutdown", request.cursor);
    const all = request.instanceId === null;
    const targets = this.targets(request.instanceId);
    // Watched before its feeds' positions are read: every event after them is in the streams.
    const unwatched = all ? await this.watch.acquire() : [];
    const client = new StreamClient(sink, request);
    this.clients.add(client);
    const owner = request.owner?.instanceId;
    if (owner !== undefined) {
      const owned = this.byOwner.get(owner) ?? new Set();
      this.byOwner.set(owner, owned.add(client));
    }
    const parts: Part[] = [];
    sink.onClose(() => {
      this.clients.delete(client);
      const owned = owner === undefined ? undefined : this.byOwner.get(owner);
      if (owned?.delete(client) && owned.size === 0) this.byOwner.delete(owner!);
      if (all) this.watch.release();
      for (const { feed, sub } of parts) this.leave(feed, sub);
    });
    if (targets.length > 1) return this.openAcross(client, targets, unwatched, parts);
    const part = await this.join(client, targets[0]!, parts);
    if (!part) return;
    if (request.cursor === null) part.sub.goLive(part.feed.position, part.feed.lastId);
    else await catchUp(this.platform.events, part.feed, part.sub, request.cursor);
  }

  /** Ends every stream (the gateway is shutting down): clients resume elsewhere by id. */
  async close(): Promise<void> {
    this.running = false;
    clearInterval(this.heartbeats);
    clearInterval(this.lateRetries);
    for (const client of [...this.clients]) client.sink.end("shutdown", client.cursor);
    this.watch.close();
    await Promise.all(this.readers.map((r) => r?.close()));
  }

  /** Ends `client`'s stream because its credential no longer holds. */
  revoke(client: StreamClient): void {
    client.sink.end("revoked", client.cursor);
  }

  /** The feeds a request reads: its instance's stream, or the all-instances stream of every shard. */
  private targets(instanceId: string | null): Target[] {
    const key = this.platform.events.streamKey(instanceId);
    if (instanceId !== null) return [{ id: key, key, shard: this.platform.shards.of(instanceId), instanceId }];
    if (this.reads.length === 1) return [{ id: key, key, shard: 0, instanceId: undefined }];
    return this.reads.map((_, shard) => ({ id: `${key}@${shard}`, key, shard, instanceId: undefined }));
  }

  /**
   * The admin stream over several shards: a subscriber on each shard's feed, all writing to the
   * client. A shard that cannot be read now (down) does not keep the others from the client: it
   * is tried again every second and joins when it answers.
   */
  private async openAcross(client: StreamClient, targets: Target[], unwatched: number[], parts: Part[]) {
    const joined = await Promise.allSettled(
      targets.map((t) =>
        unwatched.includes(t.shard)
          ? Promise.reject(new Error(`shard ${t.shard}: the all-instances stream's watch not set`))
          : this.join(client, t, parts),
      ),
    );
    if (client.closed) return;
    if (joined.every((r) => r.status === "rejected")) throw (joined[0] as PromiseRejectedResult).reason;
    joined.forEach((r, i) => {
      if (r.status === "rejected") this.defer(client, targets[i]!, parts, r.reason);
    });
    const cursor = client.request.cursor;
    if (cursor === null) {
      // From now on; until something is sent, it resumes after the latest event of any shard.
      let latest: Feed | undefined;
      for (const { feed, sub } of parts) {
        sub.goLive(feed.position);
        if (feed.lastId !== null && (!latest || compareStreamIds(feed.position, latest.position) > 0)) latest = feed;
      }
      client.cursor = latest?.lastId ?? null;
      return;
    }
    const shardParts: ShardPart[] = parts.map((p) => ({ ...p, reads: this.reads[p.feed.shard]! }));
    await catchUpAcross(shardParts, cursor, (part, err) => {
      const at = parts.findIndex((p) => p.sub === part.sub);
      if (at >= 0) parts.splice(at, 1);
      this.leave(part.feed, part.sub);
      this.defer(client, targets.find((t) => t.shard === part.feed.shard)!, parts, err);
    });
  }

  private defer(client: StreamClient, target: Target, parts: Part[], err: unknown): void {
    this.log.warn({ err, shard: target.shard }, "admin event stream: a shard cannot be read; trying it again");
    this.late.add({ client, target, parts, busy: false });
  }

  /**
   * An admin client's shard that answers again: watched, joined, caught up from the client's
   * cursor on its own (its entries come after what the other shards sent meanwhile: by arrival).
   */
  private async retryLate(late: LatePart): Promise<void> {
    if (late.client.closed || !this.running) return void this.late.delete(late);
    if (late.busy) return;
    late.busy = true;
    let part: Part | null = null;
    try {
      await this.watch.renew(late.target.shard);
      part = await this.join(late.client, late.target, late.parts);
      this.late.delete(late);
      if (!part) return;
      const cursor = late.client.request.cursor;
      if (cursor === null) part.sub.goLive(part.feed.position);
      else await catchUp(this.reads[late.target.shard]!, part.feed, part.sub, cursor);
    } catch {
      if (part) {
        late.parts.splice(late.parts.indexOf(part), 1);
        this.leave(part.feed, part.sub);
      }
      this.late.add(late);
    } finally {
      late.busy = false;
    }
  }

  /** `client`'s subscriber on the feed of `target`, started if need be; null when the client left meanwhile. */
  private async join(client: StreamClient, target: Target, parts: Part[]): Promise<Part | null> {
    let feed = await this.feedOf(target);
    // Dropped meanwhile (another client that waited for it left first): a new one.
    while (this.feeds.get(target.id) !== feed) feed = await this.feedOf(target);
    const sub = new Subscriber(client);
    // Gone while its feed started: a feed nobody watches must not stay in the reads.
    if (client.closed) {
      this.leave(feed, sub);
      return null;
    }
    feed.subs.add(sub);
    const part = { feed, sub };
    parts.push(part);
    return part;
  }

  /** `sub` is done with `feed`; the feed goes with its last client. */
  private leave(feed: Feed, sub: Subscriber): void {
    feed.subs.delete(sub);
    if (feed.subs.size === 0 && this.feeds.get(feed.id) === feed) {
      this.feeds.delete(feed.id);
      this.readers[feed.shard]?.remove(feed);
    }
  }

  private async feedOf(target: Target): Promise<Feed> {
    const known = this.feeds.get(target.id);
    if (known) return known;
    let starting = this.starting.get(target.id);
    if (!starting) {
      starting = this.startFeed(target).finally(() => this.starting.delete(target.id));
      this.starting.set(target.id, starting);
    }
    return starting;
  }

  private async startFeed(target: Target): Promise<Feed> {
    const { id, key, instanceId } = target;
    // An instance's stream through the routed client (its shard's); a shard's all-instances stream on that shard.
    const tail = await (instanceId === undefined && this.reads.length > 1
      ? this.reads[target.shard]!.tail(key)
      : this.platform.events.tail(key));
    const shard = instanceId === undefined ? target.shard : this.platform.shards.of(instanceId);
    const feed: Feed = { id, key, shard, instanceId, position: tail.streamId, lastId: tail.id, subs: new Set() };
    this.feeds.set(id, feed);
    this.readerOf(shard).add(feed);
    return feed;
  }

  private readerOf(shard: number): ShardReader {
    const reader = this.readers[shard] ?? this.startReader(shard);
    this.readers[shard] = reader;
    return reader;
  }

  private startReader(shard: number): ShardReader {
    return new ShardReader(this.platform, shard, this.log, (s) => {
      // Back after it failed: its watch key may have lapsed meanwhile (set again at once, not in 10 s).
      this.watch.renew(s).catch((err) => this.log.warn({ err, shard: s }, "admin event stream: watch not renewed"));
    });
  }

  /**
   * Follows instances moved to another shard (their keys copied, stream ids kept): their feeds go
   * on from the same position on the new shard's reader. The directory is read first (this runs
   * beside its own handler of the announcement).
   */
  private async rehome(instanceId: string | null): Promise<void> {
    const dir = this.platform.shards.directory;
    await (instanceId === null ? dir.load() : dir.reload(instanceId));
    for (const feed of this.feeds.values()) {
      if (feed.instanceId === undefined || (instanceId !== null && feed.instanceId !== instanceId)) continue;
      const shard = this.platform.shards.of(feed.instanceId);
      if (shard === feed.shard) continue;
      this.readers[feed.shard]?.remove(feed);
      feed.shard = shard;
      this.readerOf(shard).add(feed);
    }
  }
}
