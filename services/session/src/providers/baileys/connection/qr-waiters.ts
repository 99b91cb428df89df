import { ApiError } from "@gw/contracts";

/**
 * Pairing-code requests (pairing.ts) wait for the connection's first QR, the sign that its socket
 * can ask for a code; the connection settles them all when a QR comes, or when it stops or opens.
 */

interface QrWaiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Pairing-code requests waiting for the socket to be ready to ask for a code (its first QR). */
export class QrWaiters {
  private waiters: QrWaiter[] = [];

  /** Settles on the next `resolveAll` / `rejectAll`, or rejects `network_timeout` after `timeoutMs`. */
  wait(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: QrWaiter = {
        resolve: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        reject: (err) => {
          clearTimeout(waiter.timer);
          reject(err);
        },
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new ApiError("network_timeout", "A conexão não ficou pronta para parear a tempo. Tente novamente."));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  resolveAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
  }

  rejectAll(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}
