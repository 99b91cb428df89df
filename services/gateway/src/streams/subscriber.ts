import { compareStreamIds } from "@gw/platform";
import type { StreamRequest } from "./request.ts";
import { type LiveEvent, MAX_BUFFERED_BYTES, MAX_BUFFERED_EVENTS, type StreamSink } from "./sink.ts";

/**
 * One client's connection (SSE or WebSocket): what heartbeats, shutdown and revocation act on.
 * It reads one feed (hub.ts) — or, for the admin stream on several shards, one per shard, each
 * through a {@link Subscriber} of its own, all writing to this one sink.
 */
export class StreamClient {
  /** The `evt_` id to resume after: the last one sent, before any the one it started after. */
  cursor: string | null;

  constructor(
    readonly sink: StreamSink,
    readonly request: StreamRequest,
  ) {
    this.cursor = request.cursor;
  }

  get closed(): boolean {
    return this.sink.closed;
  }
}

/**
 * A client of one feed (hub.ts). Its position is a stream id, `last`: every entry up to it was
 * sent or filtered out, nothing after it was. It is first fed from the history (catching up after
 * its cursor), then `live`: from then on the feed hands it each entry once, and anything at or
 * before `last` is skipped — which is what makes the hand-over from history to live neither miss
 * nor repeat an event.
 */
export class Subscriber {
  live = false;
  /** Stream id of the last entry passed. */
  last = "0-0";
  readonly sink: StreamSink;
  readonly request: StreamRequest;

  constructor(readonly client: StreamClient) {
    this.sink = client.sink;
    this.request = client.request;
  }

  /** The client's: shared by the subscribers of a client reading several shards. */
  get cursor(): string | null {
    return this.client.cursor;
  }

  set cursor(id: string | null) {
    this.client.cursor = id;
  }

  get closed(): boolean {
    return this.sink.closed;
  }

  /** From now on, live after `last` (the feed's position, or where catching up ended). */
  goLive(last: string, cursor: string | null = this.cursor): void {
    this.last = last;
    this.cursor = cursor;
    this.live = true;
  }

  /** Entries of the feed, in stream order: those after `last` that the filter lets through are sent. */
  offer(events: LiveEvent[]): void {
    if (!this.live || this.sink.closed) return;
    let out = events;
    // Most batches are all new (a client is live from before them): one comparison for the batch.
    if (compareStreamIds(events[0]!.streamId, this.last) <= 0) {
      out = events.filter((e) => compareStreamIds(e.streamId, this.last) > 0);
      if (out.length === 0) return;
    }
    this.last = out[out.length - 1]!.streamId;
    const kinds = this.request.kinds;
    if (kinds !== null) out = out.filter((e) => kinds.has(e.kind));
    if (out.length === 0) return;
    // A client that has not taken what it was sent is closed, not buffered for without end.
    if (this.sink.bufferedEvents >= MAX_BUFFERED_EVENTS || this.sink.bufferedBytes >= MAX_BUFFERED_BYTES) {
      this.sink.overflow(this.cursor);
      return;
    }
    this.sink.send(out);
    this.cursor = out[out.length - 1]!.id;
  }

  /** A page of history while catching up: sent whole (the caller waits for it to drain before the next). */
  replay(events: LiveEvent[]): void {
    if (events.length === 0 || this.sink.closed) return;
    this.last = events[events.length - 1]!.streamId;
    const kinds = this.request.kinds;
    const out = kinds === null ? events : events.filter((e) => kinds.has(e.kind));
    if (out.length === 0) return;
    this.sink.send(out);
    this.cursor = out[out.length - 1]!.id;
  }
}
