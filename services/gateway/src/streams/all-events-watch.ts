import type { Platform } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";

/** A third of the watch key's life (platform events/all-events.ts): two refreshes may fail before it lapses. */
const REFRESH_MS = 10_000;

/**
 * Keeps the all-instances stream filled while this gateway serves an admin stream: producers
 * append to it only while its watch key lives (platform events/all-events.ts, which says why).
 * The first admin client sets the key before its feed starts, so nothing published after it
 * connected is missing; the last one leaving stops the refresh, and the key lapses by itself —
 * a gateway that dies leaves nothing set for longer than that.
 */
export class AllEventsWatch {
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly log: FastifyBaseLogger,
  ) {}

  async acquire(): Promise<void> {
    this.count++;
    this.timer ??= setInterval(() => {
      this.platform.events.watchAll().catch((err) => this.log.warn({ err }, "admin event stream: watch not renewed"));
    }, REFRESH_MS).unref();
    // Every client waits for its own (cheap) write: a refresh in flight might be one that failed.
    try {
      await this.platform.events.watchAll();
    } catch (err) {
      this.release();
      throw err;
    }
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
