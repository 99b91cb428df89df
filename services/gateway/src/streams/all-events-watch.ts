import type { FastifyBaseLogger } from "fastify";

/** A third of the watch key's life (platform events/all-events.ts): two refreshes may fail before it lapses. */
const REFRESH_MS = 10_000;
/** With several shards, one that has not answered by then is read later: a shard down delays no client. */
const SHARD_WAIT_MS = 1_000;

/** `p`, or a rejection once `ms` passed. */
function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Keeps the all-instances streams filled while this gateway serves an admin stream: producers
 * append to a shard's stream only while that shard's watch key lives (platform
 * events/all-events.ts, which says why), so the key is set on every shard (`watch[s]`). The
 * first admin client sets the keys before its feeds start, so nothing published after it
 * connected is missing; the last one leaving stops the refresh, and the keys lapse by themselves
 * — a gateway that dies leaves nothing set for longer than that. Each shard is refreshed on its
 * own: one that is down delays none of the others.
 */
export class AllEventsWatch {
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Sets the watch key on shard s (and keeps its stream an hour). */
    private readonly watch: readonly (() => Promise<void>)[],
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Counts a client in and sets the key on every shard; answers the shards where it could not be
   * set (the client reads those later, {@link renew}). Throws when no shard could.
   */
  async acquire(): Promise<number[]> {
    this.count++;
    this.timer ??= setInterval(() => {
      this.watch.forEach((_, shard) => {
        this.renew(shard).catch((err) => this.log.warn({ err, shard }, "admin event stream: watch not renewed"));
      });
    }, REFRESH_MS).unref();
    // Every client waits for its own (cheap) writes: a refresh in flight might be one that failed.
    const one = this.watch.length === 1;
    const set = await Promise.allSettled(this.watch.map((w) => (one ? w() : within(w(), SHARD_WAIT_MS))));
    const failed = set.flatMap((r, shard) => (r.status === "rejected" ? [shard] : []));
    if (failed.length === set.length) {
      this.release();
      throw (set[0] as PromiseRejectedResult).reason;
    }
    return failed;
  }

  /** Sets the key on one shard now (a shard back after it was down), while any admin client is here. */
  async renew(shard: number): Promise<void> {
    if (this.count > 0) await this.watch[shard]!();
  }

  release(): void {
    if (--this.count > 0) return;
    this.count = 0;
    this.close();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
