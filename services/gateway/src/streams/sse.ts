import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { type EndReason, FlushCounter, type LiveEvent, MAX_BUFFERED_BYTES, type StreamSink } from "./sink.ts";

const PING = Buffer.from(": ping\n\n");
/** EventSource waits this long before it reconnects (with `Last-Event-ID`) after the stream ends. */
const RETRY = Buffer.from("retry: 1000\n\n");
/** A closed client that does not read its last bytes loses its socket after this. */
const LINGER_MS = 10_000;

/** A Server-Sent Events response (text/event-stream) as a stream sink. */
export class SseSink implements StreamSink {
  closed = false;
  private readonly flushed = new FlushCounter();
  private readonly closers: (() => void)[] = [];

  constructor(private readonly res: ServerResponse) {
    res.on("close", () => this.closeNow());
  }

  get bufferedEvents(): number {
    return this.flushed.pending;
  }

  /** The response's own buffer and its socket's (ServerResponse.writableLength counts both). */
  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  send(events: LiveEvent[]): void {
    if (this.closed) return;
    const chunk = events.length === 1 ? events[0]!.sse : Buffer.concat(events.map((e) => e.sse));
    this.res.write(chunk, this.flushed.wrote(events.length));
  }

  drained(): Promise<void> {
    return this.closed ? Promise.resolve() : this.flushed.whenFlushed();
  }

  heartbeat(): void {
    // A client that reads nothing gets no more bytes: its buffer stays as it is.
    if (!this.closed && this.bufferedBytes < MAX_BUFFERED_BYTES) this.res.write(PING);
  }

  overflow(cursor: string | null): void {
    if (this.closed) return;
    this.res.write(`event: overflow\ndata: ${JSON.stringify({ cursor })}\n\n`);
    this.finish();
  }

  /** Shut down or revoked: the response ends (EventSource reconnects, with Last-Event-ID). */
  end(_reason: EndReason, _cursor: string | null): void {
    if (!this.closed) this.finish();
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closers.push(fn);
  }

  private finish(): void {
    this.res.end();
    this.closeNow();
    // The response's last bytes wait for a slow reader: not forever.
    setTimeout(() => {
      if (!this.res.writableFinished) this.res.destroy();
    }, LINGER_MS).unref();
  }

  private closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    this.flushed.wake();
    for (const fn of this.closers.splice(0)) fn();
  }
}

/** Answers 200 text/event-stream on `reply` (Fastify lets go of it) and gives the sink to write to. */
export function startSse(reply: FastifyReply): SseSink {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    // nginx and its kin buffer responses unless told otherwise.
    "x-accel-buffering": "no",
    // A stream's connection serves nothing after it: closed with it, never left idle (a gateway
    // shutting down would wait for an idle keep-alive socket that appeared after it stopped listening).
    connection: "close",
  });
  res.write(RETRY);
  // The events go out as they come, not after Nagle's delay.
  res.socket?.setNoDelay(true);
  return new SseSink(res);
}
