import type { ConnectionStatus, Provider } from "@gw/contracts";
import type { Logger } from "@gw/platform";
import type { InFlight, Resume } from "./handover.ts";
import type { ProviderFactory, ProviderSession } from "./providers/contract.ts";

/** One connection a session pod holds under its lease (ownership/). */
export interface Held {
  epoch: number;
  session: ProviderSession;
  provider: Provider;
  status: ConnectionStatus;
  /** Serializes status writes so that events keep the order the provider reported. */
  chain: Promise<void>;
  /** Set once the manager let go of it: late provider events are ignored (messages excepted). */
  closed: boolean;
  /**
   * Until when the lease is surely ours (local clock): the start of its last successful renewal
   * (or acquisition) plus the TTL. Past it the pod fences itself: it drops the connection
   * whether or not Redis could tell it that the lease is lost (Redis unreachable).
   */
  validUntil: number;
  /** Taken over WORKING and not reconnected yet (handover.ts); null once it ended. */
  resume: Resume | null;
  /** Sends under way on its connection, let finish before it closes (handover.ts). */
  inflight: InFlight;
}

export interface SessionManagerOptions {
  podId: string;
  url: string;
  capacity: number;
  /** HANDOVER_SEND_WAIT_MS: the resume window of a taken-over instance and the drain limit. */
  handoverSendWaitMs: number;
  authStateKey: string;
  providers: Partial<Record<Provider, ProviderFactory>>;
  log: Logger;
  /** What the pod's metrics see of its leases and sends (metrics.ts); absent in tests and tools. */
  observer?: SessionObserver;
}

/** The lease and network events a session pod counts (metrics.ts implements it). */
export interface SessionObserver {
  /** A lease taken; `takeover` when the instance was WORKING under its previous owner (handover, failover). */
  leaseAcquired(takeover: boolean): void;
  /** A lease lost, the connection dropped at once; `why` as ownership/index.ts `drop` logs it. */
  leaseLost(why: string): void;
  /** The provider reports it is reconnecting (a STARTING with a reason: the connection dropped). */
  reconnect(provider: Provider, reason: string): void;
  /** A send on the network: counted in flight while `fn` runs, timed to the network's answer. */
  send<T>(provider: Provider, fn: () => Promise<T>): Promise<T>;
}
