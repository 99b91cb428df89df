import { ApiError, failure } from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import { sendInFlightLost } from "../../in-flight.ts";
import { mapNetworkError } from "../errors.ts";
import type { BaileysLogger } from "./auth-state.ts";

/** What the call wrapper needs from the session. */
export interface SocketCallsDeps {
  readonly log: BaileysLogger;
  /** The lease is gone (a call failed on it): the session stops. */
  onStaleLease(err: StaleLeaseError): void;
}

/** The session's messaging calls on its socket (its own and the feature areas'), and their aborts. */
export class SocketCalls {
  /** Aborts of messaging calls in flight on the current socket, with their op. */
  private readonly pending = new Map<(err: ApiError) => void, string>();

  constructor(private readonly deps: SocketCallsDeps) {}

  /**
   * Runs one messaging call on the open socket, with its errors mapped. When that socket closes
   * (or is retired) first, the call answers `instance_not_connected` at once: Baileys' `end()`
   * removes its listeners, so a pending query would otherwise wait out the query timeout.
   */
  async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    let abort: (err: ApiError) => void = () => {};
    const aborted = new Promise<never>((_, reject) => {
      abort = reject;
    });
    this.pending.set(abort, op);
    try {
      return await Promise.race([fn(), aborted]);
    } catch (err) {
      throw this.messagingError(op, err);
    } finally {
      this.pending.delete(abort);
    }
  }

  /**
   * The socket closed or was retired: every call in flight answers `instance_not_connected`,
   * except a send, which may have left already (`network_timeout`, providers/in-flight.ts).
   */
  abortAll(): void {
    const pending = [...this.pending];
    this.pending.clear();
    for (const [abort, op] of pending) abort(op === "send" ? sendInFlightLost() : failure("connection_closed"));
  }

  private messagingError(op: string, err: unknown): ApiError {
    if (err instanceof StaleLeaseError) this.deps.onStaleLease(err);
    const mapped = mapNetworkError(err);
    if (!(err instanceof ApiError)) this.deps.log.warn({ err, op, code: mapped.code }, "messaging call failed");
    return mapped;
  }
}
