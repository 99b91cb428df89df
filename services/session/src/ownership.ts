import {
  ApiError,
  type ConnectionStatus,
  failure,
  type Instance,
  type OutboundContent,
  type StatusCause,
  statusReasonOf,
} from "@gw/contracts";
import { AuthStateStore, type Platform, type PodInfo, rankPods, Sealer, StaleLeaseError } from "@gw/platform";
import { applyProviderEvent } from "./events/provider-events.ts";
import { InFlight, Resume } from "./handover.ts";
import type { Held, SessionManagerOptions } from "./held.ts";
import { NotHeldHere } from "./not-held.ts";
import { providerRecords } from "./provider-records.ts";
import type { ProviderEvent, ProviderSession } from "./providers/contract.ts";

/** Statuses that say a connection is on: only a holder of the lease may leave them standing. */
const LIVE_STATUSES: ReadonlySet<ConnectionStatus> = new Set(["STARTING", "SCAN_QR_CODE", "WORKING"]);

/**
 * A session pod's owner of connections: the lease side of SessionManager (manager.ts, which adds
 * the operations asked of them). Every tick (a third of the lease TTL) it heartbeats,
 * renews its leases in one script — dropping at once any connection whose lease it lost — and
 * reconciles: instances that should run and rank this pod first (rendezvous hashing over live
 * pods with spare capacity) are acquired and connected; instances that no longer should run
 * are stopped; instances that now rank another live pod first are handed over.
 */
export abstract class ConnectionOwner {
  private readonly held = new Map<string, Held>();
  /** Instances being let go of right now: a reconcile must not take them back meanwhile. */
  private readonly releasing = new Set<string>();
  private readonly sealer: Sealer;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private kickPending = false;
  private subscriber: ReturnType<Platform["duplicate"]> | null = null;
  private stopped = false;
  /** When each other pod was first seen live: hand over only to pods that stayed up a while. */
  private readonly podsSeen = new Map<string, number>();

  constructor(
    protected readonly platform: Platform,
    protected readonly opts: SessionManagerOptions,
  ) {
    this.sealer = new Sealer(opts.authStateKey);
  }

  get podId(): string {
    return this.opts.podId;
  }

  get size(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    this.subscriber = this.platform.duplicate(`gw-session-${this.opts.podId}`);
    this.subscriber.on("message", () => this.kick());
    await this.subscriber.subscribe(this.platform.keys.sessionKick);
    await this.tick();
    const interval = Math.max(100, Math.floor(this.platform.leases.ttlMs / 3));
    this.timer = setInterval(() => this.kick(), interval);
  }

  /** Runs a reconciliation soon (coalesced). */
  kick(): void {
    if (this.stopped) return;
    // Before anything that needs Redis: a tick stuck on an unreachable Redis must not keep
    // connections whose leases may have expired (another pod may hold them by now).
    this.fence();
    if (this.ticking) {
      this.kickPending = true;
      return;
    }
    this.ticking = this.tick()
      .catch((err) => this.opts.log.error({ err }, "session reconcile failed"))
      .finally(() => {
        this.ticking = null;
        if (this.kickPending) {
          this.kickPending = false;
          this.kick();
        }
      });
  }

  /**
   * Graceful stop (SIGTERM, a rolling restart): this pod leaves the live set first, so the others
   * no longer rank it for anything; then its connections close (pairings kept) and their leases
   * are released; then the other pods are kicked to reconcile at once instead of at their next
   * tick, so an instance is without an owner only for its own reconnection.
   */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.platform.leases.leave(this.opts.podId);
    await Promise.allSettled([...this.held.keys()].map((id) => this.release(id, { keepStatus: true })));
    await this.platform.redis.publish(this.platform.keys.sessionKick, "1").catch(() => {});
    await this.subscriber?.quit();
  }

  /** Drops every instance whose lease has not been renewed within its TTL (see Held.validUntil). */
  private fence(): void {
    const now = Date.now();
    for (const [id, held] of this.held) {
      if (now >= held.validUntil) this.drop(id, "lease not renewed in time");
    }
  }

  // --- reconciliation --------------------------------------------------------------------

  private async tick(): Promise<void> {
    const { leases, redis, keys } = this.platform;
    await leases.heartbeat({ ...this.self(), load: this.held.size });

    const renewing = new Map([...this.held].map(([id, h]) => [id, h]));
    const renewStart = Date.now();
    const lost = await leases.renew(this.opts.podId, new Map([...renewing].map(([id, h]) => [id, h.epoch])));
    for (const h of renewing.values()) h.validUntil = Math.max(h.validUntil, renewStart + leases.ttlMs);
    for (const id of lost) this.drop(id, "lease lost");

    const [running, pods] = await Promise.all([redis.smembers(keys.running), this.livePods()]);
    const runningSet = new Set(running);
    const now = Date.now();
    for (const p of pods) if (!this.podsSeen.has(p.podId)) this.podsSeen.set(p.podId, now);

    for (const id of this.held.keys()) {
      if (!runningSet.has(id)) await this.release(id, { status: "STOPPED" });
    }
    const starts: Promise<void>[] = [];
    let handedOver = 0;
    for (const id of running) {
      const target = this.target(id, pods);
      const mine = this.held.get(id);
      if (mine) {
        // Hand over to a better-ranked pod once it has been up for two lease periods.
        const seen = target ? this.podsSeen.get(target.podId) : undefined;
        if (target && target.podId !== this.opts.podId && seen && now - seen > 2 * leases.ttlMs) {
          await this.release(id, { keepStatus: true });
          handedOver++;
        }
        continue;
      }
      if (this.releasing.has(id)) continue;
      if (target?.podId !== this.opts.podId || this.held.size + starts.length >= this.opts.capacity) continue;
      starts.push(this.acquire(id));
    }
    await Promise.all(starts);
    // The pods we handed instances to take them now, not at their next tick.
    if (handedOver > 0) await redis.publish(keys.sessionKick, "1");
  }

  private self(): PodInfo {
    return { podId: this.opts.podId, url: this.opts.url, capacity: this.opts.capacity, load: this.held.size };
  }

  /** Live pods with their load as of their heartbeats (this pod as it is now). */
  private async livePods(): Promise<PodInfo[]> {
    const others = (await this.platform.leases.livePods()).filter((p) => p.podId !== this.opts.podId);
    return [...others, this.self()];
  }

  /** The first pod in rendezvous order that has room (or that already holds it). */
  private target(instanceId: string, pods: PodInfo[]) {
    return rankPods(instanceId, pods).find((p) => p.load < p.capacity || p.podId === this.opts.podId);
  }

  private async acquire(instanceId: string): Promise<void> {
    const acquireStart = Date.now();
    const epoch = await this.platform.leases.acquire(instanceId, this.opts.podId);
    if (epoch === null) return;
    // The running set was read before the lease: a stop may have come in between.
    if (!(await this.platform.redis.sismember(this.platform.keys.running, instanceId))) {
      await this.platform.leases.release(instanceId, this.opts.podId, epoch);
      return;
    }
    const instance = await this.platform.instances.get(instanceId);
    const factory = instance ? this.opts.providers[instance.provider] : undefined;
    if (!instance || !factory) {
      if (instance) {
        const cause: StatusCause = {
          reason: "provider_unavailable",
          detail: `provider ${instance.provider} is not available on this deployment`,
        };
        await this.platform.instances
          .setConnection(instanceId, epoch, { connectionStatus: "FAILED", statusReason: statusReasonOf(cause) })
          .catch(() => {});
        await this.publishStatus(instance, "FAILED", instance.connectionStatus, cause);
        await this.platform.redis.srem(this.platform.keys.running, instanceId);
      }
      await this.platform.leases.release(instanceId, this.opts.podId, epoch);
      return;
    }
    // Another pod may have written the instance's chats since this process last did.
    this.platform.readModel.forget(instanceId);
    const auth = new AuthStateStore(this.platform.redis, this.platform.keys, this.sealer, instanceId, epoch);
    const log = this.opts.log.child({ instanceId, epoch });
    const held: Held = {
      epoch,
      provider: instance.provider,
      status: instance.connectionStatus,
      chain: Promise.resolve(),
      closed: false,
      validUntil: acquireStart + this.platform.leases.ttlMs,
      resume: null,
      inflight: new InFlight(),
      session: undefined as unknown as ProviderSession,
    };
    const emit = (event: ProviderEvent) => {
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
        .then(() => this.applyEvent(instanceId, held, event))
        .catch((err) => {
          if (err instanceof StaleLeaseError) this.drop(instanceId, "stale lease");
          else log.error({ err, event: event.type }, "applying a provider event failed");
        });
    };
    // Its previous owner let go of it (or died) while it was WORKING: it resumes (handover.ts),
    // and a window that runs out writes the status the provider reported meanwhile.
    if (instance.connectionStatus === "WORKING") {
      held.resume = new Resume(this.opts.handoverSendWaitMs, ({ status, cause }) =>
        emit({ type: "status", status, ...(cause ? { cause } : {}) }),
      );
    }
    held.session = factory({
      instance,
      podId: this.opts.podId,
      auth,
      rawMessages: {
        save: (id, raw) => this.platform.messages.saveRaw(instanceId, id, raw),
        load: (id) => this.platform.messages.getRaw(instanceId, id),
      },
      log,
      identity: {
        rewrite: async (id) => (await this.platform.identity.rewrite(instanceId, id)) ?? id,
        lidOf: (phone) => this.platform.identity.lidOf(instanceId, phone),
        learn: (lid, phone) => this.platform.identity.learn(instanceId, lid, phone),
      },
      records: providerRecords(this.platform, instanceId),
      emit,
    });
    this.held.set(instanceId, held);
    log.info("instance acquired");
    // Taken to be logged out (a stopped instance's logout): unlinked on the network, never started.
    if (await this.platform.redis.sismember(this.platform.keys.logoutPending, instanceId)) {
      await this.logout(instanceId).catch((err) => log.error({ err }, "pending logout failed"));
      await this.platform.redis.srem(this.platform.keys.logoutPending, instanceId);
      return;
    }
    await held.session.start().catch((err) => log.error({ err }, "provider start failed"));
  }

  /** Unlinks the instance's device on the network and lets it go, STOPPED (manager.ts). */
  abstract logout(instanceId: string): Promise<void>;

  /** A provider event applied (events/provider-events.ts); nothing but a message once let go of. */
  private async applyEvent(instanceId: string, held: Held, event: ProviderEvent): Promise<void> {
    // A message received before the manager let go is still recorded (it is not the lease's
    // business: the new owner will not receive it again); anything else is the new owner's.
    if (held.closed && event.type !== "message") return;
    await applyProviderEvent(
      this.platform,
      this.opts.log,
      {
        instanceId,
        epoch: held.epoch,
        writeStatus: (status, cause) => this.writeStatus(instanceId, held, status, cause),
        releaseKeepingStatus: () => this.release(instanceId, { keepStatus: true }),
        rejectCall: (callId, from) => this.rejectCall(instanceId, callId, from),
        reply: (chatId, content) => this.reply(instanceId, chatId, content),
      },
      event,
    );
  }

  /** The status and why (the instance's `statusReason`: none while WORKING), and its `session.status`. */
  private async writeStatus(instanceId: string, held: Held, status: ConnectionStatus, cause: StatusCause | null) {
    const { previous, previousReason, instance } = await this.platform.instances.setConnection(instanceId, held.epoch, {
      connectionStatus: status,
      statusReason: status === "WORKING" ? null : statusReasonOf(cause),
    });
    held.status = status;
    // A new reason is news even without a change of status (a reconnect that now fails
    // otherwise; a stopped instance's logout that left the device linked); a new retry time alone
    // is only written.
    if (previous !== status || (cause && cause.reason !== previousReason)) {
      await this.publishStatus(instance, status, previous, cause);
    }
  }

  private publishStatus(
    instance: Instance,
    status: ConnectionStatus,
    previous: ConnectionStatus | null,
    cause: StatusCause | null,
  ) {
    return this.platform.events.sessionStatus(instance, status, previous, cause);
  }

  /**
   * Lease lost: close at once, write nothing (the new owner writes) — unless no owner will come:
   * an instance stopped meanwhile (a pod too slow to renew under load while its stop came in)
   * would otherwise keep a live status (`STARTING`, `WORKING`) with nobody holding it.
   */
  private drop(instanceId: string, why: string): void {
    const held = this.held.get(instanceId);
    if (!held) return;
    held.closed = true;
    held.resume?.end();
    this.held.delete(instanceId);
    this.opts.log.warn({ instanceId, why }, "dropping instance");
    held.session.stop().catch(() => {});
    void this.settleAbandoned(instanceId).catch((err) =>
      this.opts.log.warn({ err, instanceId }, "settling a dropped instance failed"),
    );
  }

  private async settleAbandoned(instanceId: string): Promise<void> {
    const { redis, keys, leases, instances } = this.platform;
    if (await redis.sismember(keys.running, instanceId)) return; // someone will own it
    if (await leases.owner(instanceId)) return;
    const instance = await instances.get(instanceId);
    if (!instance || !LIVE_STATUSES.has(instance.connectionStatus)) return;
    const cause = { reason: "lease_lost" } as const;
    const { previous, instance: now } = await instances.setConnection(instanceId, null, {
      connectionStatus: "STOPPED",
      statusReason: statusReasonOf(cause),
    });
    if (previous !== "STOPPED") await this.publishStatus(now, "STOPPED", previous, cause);
  }

  /** Lets go of an instance we own: close, optionally write the final status, free the lease. */
  protected async release(
    instanceId: string,
    opts: { status?: ConnectionStatus; keepStatus?: boolean },
  ): Promise<void> {
    const held = this.held.get(instanceId);
    if (!held) return;
    this.held.delete(instanceId);
    this.releasing.add(instanceId);
    try {
      await this.letGo(instanceId, held, opts);
    } finally {
      this.releasing.delete(instanceId);
    }
  }

  private async letGo(instanceId: string, held: Held, opts: { status?: ConnectionStatus; keepStatus?: boolean }) {
    held.resume?.end(); // its waiting sends find it gone and go to the next owner
    // Sends already on the network finish first (bounded): closing under them would fail them
    // with nothing known of whether they went out. New ones find it gone (out of `held`).
    await held.inflight.idle(this.opts.handoverSendWaitMs);
    await held.session.stop().catch(() => {});
    await held.chain;
    held.closed = true;
    try {
      // A provider that gave up (FAILED, or STOPPED with a reason) already wrote the final word.
      const settled = held.status === "FAILED" || held.status === "STOPPED";
      if (opts.status && !opts.keepStatus && !settled) await this.writeStatus(instanceId, held, opts.status, null);
    } catch (err) {
      if (!(err instanceof StaleLeaseError)) throw err;
    }
    await this.platform.leases.release(instanceId, this.opts.podId, held.epoch);
  }

  protected need(instanceId: string): Held {
    const held = this.held.get(instanceId);
    if (!held) throw new NotHeldHere();
    return held;
  }

  /**
   * {@link need}, once the connection is up when the instance is resuming from a handover: waits
   * for it at most until the resume window ends (handover.ts), then lets the provider answer as
   * it does (`instance_not_connected` when it is still not open). An instance let go of
   * meanwhile is not held here: the gateway asks its next owner ({@link NotHeldHere}).
   */
  protected async ready(instanceId: string): Promise<Held> {
    const held = this.need(instanceId);
    if (!held.resume?.active) return held;
    await held.resume.wait();
    if (this.held.get(instanceId) !== held) throw new NotHeldHere();
    return held;
  }

  /**
   * A network operation counted as under way (a release lets it finish); refused as not held
   * when the instance was let go of since the operation began: nothing was sent, so the gateway
   * may ask the next owner.
   */
  protected onNetwork<T>(instanceId: string, held: Held, fn: () => Promise<T>): Promise<T> {
    if (this.held.get(instanceId) !== held) return Promise.reject(new NotHeldHere());
    return held.inflight.run(fn).catch((err: unknown) => {
      throw this.lostMeanwhile(instanceId, held, err);
    });
  }

  /** An operation on the instance held here (else {@link NotHeldHere}), its errors read as {@link lostMeanwhile} says. */
  protected async asHeld<T>(instanceId: string, fn: (held: Held) => Promise<T>): Promise<T> {
    const held = this.need(instanceId);
    try {
      return await fn(held);
    } catch (err) {
      throw this.lostMeanwhile(instanceId, held, err);
    }
  }

  /**
   * Let go of while under way (fenced, handed over): the provider's "not connected" is this pod
   * closing, not the instance's state; another pod takes it within seconds (503, failures.ts).
   */
  private lostMeanwhile(instanceId: string, held: Held, err: unknown): unknown {
    const gone = this.held.get(instanceId) !== held;
    if (gone && err instanceof ApiError && err.code === "instance_not_connected") {
      return failure("lease_lost", "A instância está mudando de servidor; tente de novo.");
    }
    return err;
  }

  /** The `calls` app's answers to a call (the operations are the subclass's). */
  protected abstract rejectCall(instanceId: string, callId: string, from: string): Promise<unknown>;
  protected abstract reply(instanceId: string, chatId: string, content: OutboundContent): Promise<unknown>;
}
