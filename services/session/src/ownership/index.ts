import { ApiError, type ConnectionStatus, failure, type OutboundContent } from "@gw/contracts";
import { type Platform, type PodInfo, Sealer, StaleLeaseError } from "@gw/platform";
import { applyProviderEvent } from "../events/provider-events.ts";
import type { Held, SessionManagerOptions } from "../held.ts";
import { NotHeldHere } from "../not-held.ts";
import type { ProviderEvent } from "../providers/contract.ts";
import { Placement } from "./placement.ts";
import { failUnavailableProvider, settleAbandoned, writeStatus } from "./statuses.ts";
import { takeOver } from "./takeover.ts";

/**
 * A session pod's owner of connections: the lease side of SessionManager (manager.ts, which adds
 * the operations asked of them). Every tick (a third of the lease TTL) it heartbeats,
 * renews its leases in one script — dropping at once any connection whose lease it lost — and
 * reconciles: instances that should run and rank this pod first (rendezvous hashing over live
 * pods with spare capacity, placement.ts) are acquired and connected (takeover.ts); instances that
 * no longer should run are stopped; instances that now rank another live pod first are handed over.
 *
 * This file holds the lease side itself — the tick, lease acquisition, renewal and fencing,
 * letting go — and the guards of the operations on what it holds; where instances go is
 * placement.ts, opening a taken instance takeover.ts, the statuses it writes statuses.ts.
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
  private readonly placement: Placement;

  constructor(
    protected readonly platform: Platform,
    protected readonly opts: SessionManagerOptions,
  ) {
    this.sealer = new Sealer(opts.authStateKey);
    this.placement = new Placement(platform, opts.podId);
  }

  get podId(): string {
    return this.opts.podId;
  }

  get size(): number {
    return this.held.size;
  }

  /** The connections held now (the pod's metrics count them by provider and status). */
  connections(): IterableIterator<Held> {
    return this.held.values();
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

    const [running, pods] = await Promise.all([
      redis.smembers(keys.running),
      this.placement.livePods(() => this.self()),
    ]);
    const runningSet = new Set(running);
    const now = Date.now();
    this.placement.see(pods, now);

    for (const id of this.held.keys()) {
      if (!runningSet.has(id)) await this.release(id, { status: "STOPPED" });
    }
    // Instances moving to another Redis shard are let go (their writes done) and not taken until
    // the move ends (platform infra/shards/move.ts); the status stays as it was.
    const moving = new Set(this.platform.shards.directory.movingIds());
    for (const id of moving) if (this.held.has(id)) await this.release(id, { keepStatus: true });
    const starts: Promise<void>[] = [];
    let handedOver = 0;
    for (const id of running) {
      const target = this.placement.target(id, pods);
      const mine = this.held.get(id);
      if (mine) {
        // Hand over to a better-ranked pod once it has been up for two lease periods.
        if (this.placement.handsOver(target, now)) {
          await this.release(id, { keepStatus: true });
          handedOver++;
        }
        continue;
      }
      if (this.releasing.has(id) || moving.has(id)) continue;
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
      if (instance) await failUnavailableProvider(this.platform, instanceId, instance, epoch);
      await this.platform.leases.release(instanceId, this.opts.podId, epoch);
      return;
    }
    // Another pod may have written the instance's chats since this process last did.
    this.platform.readModel.forget(instanceId);
    const log = this.opts.log.child({ instanceId, epoch });
    const held = takeOver(
      {
        platform: this.platform,
        opts: this.opts,
        sealer: this.sealer,
        log,
        apply: (h, event) => this.applyEvent(instanceId, h, event),
        drop: (why) => this.drop(instanceId, why),
      },
      instanceId,
      instance,
      epoch,
      factory,
      acquireStart,
    );
    this.held.set(instanceId, held);
    this.opts.observer?.leaseAcquired(held.resume !== null);
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
        writeStatus: (status, cause) => writeStatus(this.platform, instanceId, held, status, cause),
        releaseKeepingStatus: () => this.release(instanceId, { keepStatus: true }),
        rejectCall: (callId, from) => this.rejectCall(instanceId, callId, from),
        reply: (chatId, content) => this.reply(instanceId, chatId, content),
      },
      event,
    );
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
    this.opts.observer?.leaseLost(why);
    this.opts.log.warn({ instanceId, why }, "dropping instance");
    held.session.stop().catch(() => {});
    void settleAbandoned(this.platform, instanceId).catch((err) =>
      this.opts.log.warn({ err, instanceId }, "settling a dropped instance failed"),
    );
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
      if (opts.status && !opts.keepStatus && !settled) {
        await writeStatus(this.platform, instanceId, held, opts.status, null);
      }
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
