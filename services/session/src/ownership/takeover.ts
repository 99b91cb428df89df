import type { Instance } from "@gw/contracts";
import { AuthStateStore, type Logger, type Platform, type Sealer, StaleLeaseError } from "@gw/platform";
import { InFlight, Resume } from "../handover.ts";
import type { Held, SessionManagerOptions } from "../held.ts";
import { providerRecords } from "../provider-records.ts";
import type { ProviderEvent, ProviderFactory, ProviderSession } from "../providers/contract.ts";

/**
 * Taking an instance over once its lease is ours (the owner, index.ts, acquired it): its held
 * record, the provider session with its context (the auth state fenced by the lease's epoch, raw
 * messages, identity, records), and how its events reach the instance — in order, one chain per
 * instance, a stale lease dropping it. An instance its previous owner let go of (or that died)
 * while it was WORKING resumes (handover.ts): its reconnection is not news.
 */

export interface Takeover {
  platform: Platform;
  opts: SessionManagerOptions;
  sealer: Sealer;
  log: Logger;
  /** A provider event applied (the owner's; events/provider-events.ts). */
  apply(held: Held, event: ProviderEvent): Promise<void>;
  /** Lets go at once of an instance whose lease turned out stale. */
  drop(why: string): void;
}

/** The held record of `instance` under `epoch`, its provider session created (not started). */
export function takeOver(
  t: Takeover,
  instanceId: string,
  instance: Instance,
  epoch: number,
  factory: ProviderFactory,
  acquireStart: number,
): Held {
  const { platform, opts, log } = t;
  const auth = new AuthStateStore(
    platform.redis,
    platform.keys,
    t.sealer,
    instanceId,
    epoch,
    platform.leases.fenceKey(instanceId),
  );
  const held: Held = {
    epoch,
    provider: instance.provider,
    status: instance.connectionStatus,
    chain: Promise.resolve(),
    closed: false,
    validUntil: acquireStart + platform.leases.ttlMs,
    resume: null,
    inflight: new InFlight(),
    session: undefined as unknown as ProviderSession,
  };
  const emit = (event: ProviderEvent) => {
    // A STARTING with a reason is the provider reconnecting on its own (a first connect has none).
    if (event.type === "status" && event.status === "STARTING" && event.cause) {
      opts.observer?.reconnect(held.provider, event.cause.reason);
    }
    // Resuming: its reconnection is not news (the status stays WORKING); anything else ends it.
    // Decided as the provider reports, not in the chain: a window that runs out after the
    // connection opened must not write its STARTING after the WORKING.
    if (event.type === "status" && held.resume?.active) {
      if (event.status === "STARTING") {
        held.resume.holdBack(event.status, event.cause ?? null);
        return;
      }
      held.resume.end();
    }
    held.chain = held.chain
      .then(() => t.apply(held, event))
      .catch((err) => {
        if (err instanceof StaleLeaseError) t.drop("stale lease");
        else log.error({ err, event: event.type }, "applying a provider event failed");
      });
  };
  // Its previous owner let go of it (or died) while it was WORKING: it resumes (handover.ts),
  // and a window that runs out writes the status the provider reported meanwhile.
  if (instance.connectionStatus === "WORKING") {
    held.resume = new Resume(opts.handoverSendWaitMs, ({ status, cause }) =>
      emit({ type: "status", status, ...(cause ? { cause } : {}) }),
    );
  }
  held.session = factory({
    instance,
    podId: opts.podId,
    auth,
    rawMessages: {
      save: (id, raw) => platform.messages.saveRaw(instanceId, id, raw),
      load: (id) => platform.messages.getRaw(instanceId, id),
    },
    log,
    identity: {
      rewrite: async (id) => (await platform.identity.rewrite(instanceId, id)) ?? id,
      lidOf: (phone) => platform.identity.lidOf(instanceId, phone),
      learn: (lid, phone) => platform.identity.learn(instanceId, lid, phone),
    },
    records: providerRecords(platform, instanceId),
    emit,
  });
  return held;
}
