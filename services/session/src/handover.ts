import type { ConnectionStatus, StatusCause } from "@gw/contracts";

/**
 * The two sides of a graceful handover (docs/lifecycle.md, "Handover"), as a session pod holds
 * them per instance.
 *
 * The new owner's side, {@link Resume}: an instance taken over while its status is WORKING (its
 * previous owner let go of it on a rolling restart or a rebalance, or died) is *resuming* until its
 * connection is up again, at most a window (`HANDOVER_SEND_WAIT_MS`) from when the lease was taken.
 * Meanwhile the provider's `STARTING` is not written — the instance stays WORKING, no
 * `session.status` event — and a send waits for the connection instead of failing. Whatever else
 * the provider reports (WORKING, SCAN_QR_CODE, FAILED, STOPPED) ends it and is written as usual;
 * a window that runs out writes the `STARTING` it held back, and from then on a send answers
 * `instance_not_connected` at once, as for any instance that is not connected.
 *
 * The old owner's side, {@link InFlight}: the operations that reached the network, which the pod
 * lets finish (bounded) before it closes the connection, so that a send under way is neither
 * lost nor failed by the pod going away.
 */
export class Resume {
  private active_ = true;
  private readonly timer: NodeJS.Timeout;
  private readonly ended: Promise<void>;
  private resolve: () => void = () => {};
  /** The provider's last status while resuming, not written yet (its `STARTING`). */
  private heldBack: { status: ConnectionStatus; cause: StatusCause | null } | null = null;

  /** `onTimeout` gets the held-back status, to write it, when the window runs out first. */
  constructor(
    windowMs: number,
    onTimeout: (heldBack: { status: ConnectionStatus; cause: StatusCause | null }) => void,
  ) {
    this.ended = new Promise((resolve) => {
      this.resolve = resolve;
    });
    this.timer = setTimeout(() => {
      const heldBack = this.heldBack;
      this.end();
      if (heldBack) onTimeout(heldBack);
    }, windowMs);
    this.timer.unref();
  }

  get active(): boolean {
    return this.active_;
  }

  /** A status the provider reported while resuming that is not written (yet). */
  holdBack(status: ConnectionStatus, cause: StatusCause | null): void {
    this.heldBack = { status, cause };
  }

  /** Resolves once resuming ended: the connection opened, another state, the window, a release. */
  wait(): Promise<void> {
    return this.ended;
  }

  end(): void {
    if (!this.active_) return;
    this.active_ = false;
    clearTimeout(this.timer);
    this.resolve();
  }
}

/** Operations under way on an instance's connection (see {@link Resume} for why). */
export class InFlight {
  private count = 0;
  private idleWaiters: (() => void)[] = [];

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.count++;
    try {
      return await fn();
    } finally {
      this.count--;
      if (this.count === 0) {
        for (const wake of this.idleWaiters.splice(0)) wake();
      }
    }
  }

  /** Resolves once nothing is under way, or after `limitMs` (a send the network never answers). */
  idle(limitMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
