import { StaleLeaseError } from "@gw/platform";
import { isPaired } from "../account.ts";
import type { BaileysLogger, RedisAuthState } from "./auth-state.ts";

/** What the creds writer needs from the connection. */
export interface CredsWriterDeps {
  readonly log: BaileysLogger;
  /** The auth state in use; null once stopped or wiped (a write queued for an older one is dropped). */
  currentAuth(): RedisAuthState | null;
}

/**
 * Creds: one write at a time, bursts coalesced; each write stores the whole creds object.
 * Only paired creds are stored, so "has creds" in Redis keeps meaning "was paired".
 */
export class CredsWriter {
  private chain: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(private readonly deps: CredsWriterDeps) {}

  /** Queues a write of the current creds (unless one is queued already); resolves when it has landed. */
  save(): Promise<void> {
    const auth = this.deps.currentAuth();
    if (!auth) return this.chain;
    if (this.queued) return this.chain;
    this.queued = true;
    const write = async () => {
      this.queued = false;
      if (this.deps.currentAuth() !== auth || !isPaired(auth.state.creds)) return;
      await auth.saveCreds();
    };
    this.chain = this.chain.then(write).catch((err) => {
      if (!(err instanceof StaleLeaseError)) this.deps.log.error({ err }, "could not save creds");
    });
    return this.chain;
  }

  flush(): Promise<void> {
    return this.save();
  }

  /** Resolves once the writes queued so far have landed (none is queued by this). */
  settled(): Promise<void> {
    return this.chain;
  }
}
