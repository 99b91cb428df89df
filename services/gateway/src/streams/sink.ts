import type { StoredEvent } from "@gw/platform";

/**
 * What one client may have written to it and not yet read, at most: past either bound it is
 * closed with the id to resume after (docs/streams.md "Slow clients"). Checked before each
 * write, so a client holds at most this plus one read of the feed (subscriber.ts).
 */
export const MAX_BUFFERED_EVENTS = 1_000;
export const MAX_BUFFERED_BYTES = 1 << 20;

/**
 * An event on its way to clients: its SSE and WebSocket frames are encoded once, when the first
 * client of each kind needs them, and shared by all of that feed's clients.
 */
export class LiveEvent {
  private sseFrame: Buffer | undefined;
  private wsFrame: Buffer | undefined;

  constructor(readonly stored: StoredEvent) {}

  get streamId(): string {
    return this.stored.streamId;
  }
  get id(): string {
    return this.stored.id;
  }
  get kind(): string {
    return this.stored.kind;
  }

  /** `id:` the event id, `event:` its kind, `data:` the envelope (JSON holds no raw newline). */
  get sse(): Buffer {
    const e = this.stored;
    this.sseFrame ??= Buffer.from(`id: ${e.id}\nevent: ${e.kind}\ndata: ${e.envelope}\n\n`);
    return this.sseFrame;
  }

  /** `{id, event, …envelope}`: the envelope itself, whose first keys are `id` and `event`. */
  get ws(): Buffer {
    this.wsFrame ??= Buffer.from(this.stored.envelope);
    return this.wsFrame;
  }
}

/** Why a stream ends other than its client leaving. */
export type EndReason = "shutdown" | "revoked";

/** One client's connection, SSE or WebSocket. */
export interface StreamSink {
  readonly closed: boolean;
  /** Events and bytes written and not yet taken by the kernel. */
  readonly bufferedEvents: number;
  readonly bufferedBytes: number;
  send(events: LiveEvent[]): void;
  /** Resolves when everything written has been flushed, or the client is gone. */
  drained(): Promise<void>;
  /** Keeps proxies from closing an idle stream and finds dead peers (every ~15 s). */
  heartbeat(): void;
  /** Closes a client too slow to keep up, telling it where to resume. */
  overflow(cursor: string | null): void;
  end(reason: EndReason, cursor: string | null): void;
  onClose(fn: () => void): void;
}

/** Counting of what was written and not yet flushed, from the writes' callbacks; shared by both sinks. */
export class FlushCounter {
  pending = 0;
  private waiters: (() => void)[] = [];

  /** A callback for a write of `n` events. */
  wrote(n: number): () => void {
    this.pending += n;
    return () => {
      this.pending -= n;
      if (this.pending === 0 && this.waiters.length > 0) this.wake();
    };
  }

  whenFlushed(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Also when the connection closed: nothing more will flush. */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
