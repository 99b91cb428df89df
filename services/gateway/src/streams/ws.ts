import type { WebSocket } from "@fastify/websocket";
import { STREAM_CLOSE_CODES } from "@gw/contracts";
import { type EndReason, FlushCounter, type LiveEvent, type StreamSink } from "./sink.ts";

/** A closed client that does not finish the closing handshake loses its socket after this. */
const LINGER_MS = 10_000;
const PONG = JSON.stringify({ type: "pong" });

/**
 * A WebSocket client as a stream sink: one text frame per event. The server pings at every
 * heartbeat and drops a peer that did not answer the previous one; browsers answer pings on
 * their own, and since they cannot send one, a text `{"type":"ping"}` is answered `{"type":"pong"}`.
 */
export class WsSink implements StreamSink {
  closed = false;
  private alive = true;
  private readonly flushed = new FlushCounter();
  private readonly closers: (() => void)[] = [];

  constructor(private readonly socket: WebSocket) {
    socket.on("pong", () => {
      this.alive = true;
    });
    socket.on("message", (data, isBinary) => {
      this.alive = true;
      if (!isBinary && String(data).includes('"ping"')) socket.send(PONG);
    });
    socket.on("close", () => this.closeNow());
  }

  get bufferedEvents(): number {
    return this.flushed.pending;
  }

  get bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  send(events: LiveEvent[]): void {
    if (this.closed) return;
    for (const e of events) this.socket.send(e.ws, { binary: false }, this.flushed.wrote(1));
  }

  drained(): Promise<void> {
    return this.closed ? Promise.resolve() : this.flushed.whenFlushed();
  }

  heartbeat(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  overflow(cursor: string | null): void {
    this.close(STREAM_CLOSE_CODES.overflow, cursor ?? "");
  }

  end(reason: EndReason, cursor: string | null): void {
    if (reason === "revoked") this.close(STREAM_CLOSE_CODES.revoked, "token revoked");
    else this.close(STREAM_CLOSE_CODES.going_away, cursor ?? "");
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closers.push(fn);
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    // The close frame follows what is queued: the client reads every event sent before it.
    this.socket.close(code, reason);
    this.closeNow();
    setTimeout(() => this.socket.terminate(), LINGER_MS).unref();
  }

  private closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    this.flushed.wake();
    for (const fn of this.closers.splice(0)) fn();
  }
}
