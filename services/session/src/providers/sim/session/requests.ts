import { randomUUID } from "node:crypto";
import { ApiError } from "@gw/contracts";
import type { Logger } from "@gw/platform";
import WebSocket from "ws";
import { sendInFlightLost } from "../../in-flight.ts";
import { simError } from "../errors.ts";

/**
 * The sim session's requests to simnet (docs/simnet.md "Operations"): a `request` frame on the
 * connection of the moment, answered by the `response` frame of the same id, or refused as the
 * spec's errors (errors.ts), or timed out. Calls pending when the connection ends are failed
 * here (a send that may have gone out answers "outcome unknown", in-flight.ts). The connection
 * (connection.ts) owns the socket; this holds only what is waiting on it.
 */

const REQUEST_TIMEOUT_MS = 10_000;

/** simnet's answer to one request. */
export type SimResponseFrame = {
  id: string;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
};

type Pending = { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout; op: string; args: unknown };

export class SimRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly log: Logger,
    /** The open socket, if any. */
    private readonly socket: () => WebSocket | null,
    /** Why a request cannot go now (the connection is not open). */
    private readonly notOpen: () => ApiError,
  ) {}

  request(op: string, args: unknown): Promise<unknown> {
    const ws = this.socket();
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(this.notOpen());
    }
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError("network_timeout"));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, op, args });
      ws.send(JSON.stringify({ type: "request", id, op, args }));
    });
  }

  /** A `response` frame: its request resolves, or rejects with simnet's refusal as the spec's error. */
  answer(f: SimResponseFrame): void {
    const p = this.pending.get(f.id);
    if (!p) return;
    this.pending.delete(f.id);
    clearTimeout(p.timer);
    if (f.ok) p.resolve(f.result);
    else {
      if (f.error?.message) this.log.debug({ op: p.op, error: f.error }, "simnet refused");
      // The simnet code stays on the error: an area may map it its own way (area.ts).
      p.reject(Object.assign(simError(p.op, p.args, f.error?.code), { simCode: f.error?.code }));
    }
  }

  /** The connection ended: every call waiting on it fails with `err`. */
  failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      // A send already written to the socket may have reached the network: unknown, not refused.
      p.reject(p.op === "send" ? sendInFlightLost() : err);
      this.pending.delete(id);
    }
  }
}
