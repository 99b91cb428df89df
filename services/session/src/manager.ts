import {
  type AccountInfo,
  ApiError,
  type Capping,
  type ConnectionStatus,
  type ExistsResult,
  formatMessageId,
  type Instance,
  isSessionOp,
  type OutboundContent,
  type PasskeyAssertion,
  type PasskeyChallenge,
  type PresenceState,
  type Provider,
  SESSION_OPS,
  type SendOptions,
  type SendResult,
  type SessionOpInput,
  type SessionOpName,
  type SessionOpOutput,
  type Timelock,
} from "@gw/contracts";
import {
  AuthStateStore,
  contentHash,
  extensionOf,
  isUnavailable,
  type Logger,
  MESSAGE_MEDIA_KEEP_MAX,
  type Platform,
  type PodInfo,
  rankPods,
  Sealer,
  StaleLeaseError,
  storedHash,
  validationDetails,
} from "@gw/platform";
import { onIncomingCall } from "./events/calls.ts";
import { avatarLinks, recordAck, recordInbound } from "./events/record.ts";
import { sentEvent } from "./events/sent.ts";
import { InFlight, Resume } from "./handover.ts";
import { NotHeldHere } from "./not-held.ts";
import { providerRecords } from "./provider-records.ts";
import type { Picture, ProviderEvent, ProviderFactory, ProviderSession } from "./providers/contract.ts";

interface Held {
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

/** How long a provider event is retried while Redis is unreachable before it is given up. */
const EVENT_RETRY_MS = 120_000;

export interface SessionManagerOptions {
  podId: string;
  url: string;
  capacity: number;
  /** HANDOVER_SEND_WAIT_MS: the resume window of a taken-over instance and the drain limit. */
  handoverSendWaitMs: number;
  authStateKey: string;
  providers: Partial<Record<Provider, ProviderFactory>>;
  log: Logger;
}

/** The operations the gateway asks of an instance's owner (local or over internal tRPC). */
export interface SessionApi {
  stop(instanceId: string): Promise<void>;
  restart(instanceId: string): Promise<void>;
  logout(instanceId: string): Promise<void>;
  qr(instanceId: string): Promise<string>;
  pairingCode(instanceId: string, phone: string, method?: "sms" | "voice"): Promise<string>;
  passkeyChallenge(instanceId: string): Promise<PasskeyChallenge>;
  submitPasskey(instanceId: string, assertion: PasskeyAssertion): Promise<void>;
  passkeyConfirmation(instanceId: string): Promise<{ code: string }>;
  confirmPasskey(instanceId: string): Promise<void>;
  account(instanceId: string): Promise<AccountInfo>;
  capping(instanceId: string): Promise<Capping>;
  timelock(instanceId: string): Promise<Timelock>;
  send(instanceId: string, chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult>;
  checkExists(instanceId: string, phone: string): Promise<ExistsResult>;
  markRead(instanceId: string, chatId: string, messageIds: string[]): Promise<void>;
  presence(instanceId: string, state: PresenceState, chatId?: string): Promise<void>;
  picture(instanceId: string, chatId: string): Promise<Picture | null>;
  downloadMedia(instanceId: string, networkId: string): Promise<Picture | null>;
  /** A feature area's operation (contracts/session-ops.ts) on the instance's provider. */
  op<N extends SessionOpName>(instanceId: string, name: N, input: SessionOpInput<N>): Promise<SessionOpOutput<N>>;
}

/** Statuses that say a connection is on: only a holder of the lease may leave them standing. */
const LIVE_STATUSES: ReadonlySet<ConnectionStatus> = new Set(["STARTING", "SCAN_QR_CODE", "WORKING"]);

/**
 * A session pod's owner of connections. Every tick (a third of the lease TTL) it heartbeats,
 * renews its leases in one script — dropping at once any connection whose lease it lost — and
 * reconciles: instances that should run and rank this pod first (rendezvous hashing over live
 * pods with spare capacity) are acquired and connected; instances that no longer should run
 * are stopped; instances that now rank another live pod first are handed over.
 */
export class SessionManager implements SessionApi {
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
    private readonly platform: Platform,
    private readonly opts: SessionManagerOptions,
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
        await this.platform.instances.setConnection(instanceId, epoch, { connectionStatus: "FAILED" }).catch(() => {});
        await this.publishStatus(
          instance,
          "FAILED",
          instance.connectionStatus,
          `provider ${instance.provider} is not available`,
        );
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
          held.resume.holdBack(event.status, event.reason ?? null);
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
      held.resume = new Resume(this.opts.handoverSendWaitMs, ({ status, reason }) =>
        emit({ type: "status", status, ...(reason ? { reason } : {}) }),
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
        learn: (lid, phone) => this.platform.identity.learn(instanceId, lid, phone),
      },
      records: providerRecords(this.platform, instanceId),
      emit,
    });
    this.held.set(instanceId, held);
    log.info("instance acquired");
    await held.session.start().catch((err) => log.error({ err }, "provider start failed"));
  }

  /**
   * Applies a provider event, again and again while Redis is unreachable (up to EVENT_RETRY_MS):
   * a received message the network handed over is not handed over again, so failing to record
   * it would lose it.
   */
  private async applyEvent(instanceId: string, held: Held, event: ProviderEvent): Promise<void> {
    const deadline = Date.now() + EVENT_RETRY_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await this.onEvent(instanceId, held, event);
      } catch (err) {
        if (!isUnavailable(err) || Date.now() + wait > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async onEvent(instanceId: string, held: Held, event: ProviderEvent): Promise<void> {
    // A message received before the manager let go is still recorded (it is not the lease's
    // business: the new owner will not receive it again); anything else is the new owner's.
    if (held.closed && event.type !== "message") return;
    const store = this.platform.instances;
    switch (event.type) {
      case "status":
        if (event.status === "FAILED" || (event.status === "STOPPED" && event.reason)) {
          // The provider gave up: the instance no longer runs until started again. Out of the
          // running set before the status says so, so whoever reads the final status never
          // sees the instance still running.
          await this.platform.redis.srem(this.platform.keys.running, instanceId);
        }
        await this.writeStatus(instanceId, held, event.status, event.reason ?? null);
        return;
      case "account":
        await store.setConnection(instanceId, held.epoch, {
          phone: event.account.phone,
          pushName: event.account.pushName,
        });
        return;
      case "qr":
        return;
      case "message": {
        const instance = await this.platform.instanceCache.get(instanceId);
        if (instance) await recordInbound(this.platform, this.opts.log, instance, event.message);
        return;
      }
      case "ack": {
        const instance = await this.platform.instanceCache.get(instanceId);
        if (instance) await recordAck(this.platform, this.opts.log, instance, event);
        return;
      }
      case "event": {
        const instance = await this.platform.instanceCache.get(instanceId);
        if (!instance) return;
        // A group changed: its stored metadata is no longer the network's (GET /groups asks again).
        if (event.kind.startsWith("group.") && typeof event.payload.chatId === "string") {
          await this.platform.groups.forget(instanceId, event.payload.chatId);
        }
        // GET /presence answers from what was heard (docs/profile-presence.md).
        if (event.kind === "presence.update") await this.platform.presence.heard(instanceId, event.payload);
        await this.platform.events.publish(instance, event.kind, event.payload);
        if (event.kind === "call.received") {
          // After the event: the `calls` app's rejection (its own event) comes after the call's.
          void onIncomingCall(this.platform, this.opts.log, instance, event.payload, {
            reject: (callId, from) => this.op(instanceId, "calls.reject", { callId, from, by: "auto" }),
            reply: (chatId, content) => this.send(instanceId, chatId, content),
          });
        }
        return;
      }
      case "logged-out":
        await this.platform.redis.srem(this.platform.keys.running, instanceId);
        await store.setConnection(instanceId, held.epoch, { phone: "", pushName: "" });
        await this.writeStatus(instanceId, held, "FAILED", `logged_out: ${event.reason}`);
        await this.release(instanceId, { keepStatus: true });
        return;
    }
  }

  private async writeStatus(instanceId: string, held: Held, status: ConnectionStatus, reason: string | null) {
    const { previous, instance } = await this.platform.instances.setConnection(instanceId, held.epoch, {
      connectionStatus: status,
    });
    held.status = status;
    if (previous !== status) await this.publishStatus(instance, status, previous, reason);
  }

  private publishStatus(
    instance: Instance,
    status: ConnectionStatus,
    previous: ConnectionStatus | null,
    reason: string | null,
  ) {
    return this.platform.events.sessionStatus(instance, status, previous, reason);
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
    const { previous, instance: now } = await instances.setConnection(instanceId, null, {
      connectionStatus: "STOPPED",
    });
    if (previous !== "STOPPED") await this.publishStatus(now, "STOPPED", previous, "lease_lost");
  }

  /** Lets go of an instance we own: close, optionally write the final status, free the lease. */
  private async release(instanceId: string, opts: { status?: ConnectionStatus; keepStatus?: boolean }): Promise<void> {
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

  private need(instanceId: string): Held {
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
  private async ready(instanceId: string): Promise<Held> {
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
  private onNetwork<T>(instanceId: string, held: Held, fn: () => Promise<T>): Promise<T> {
    if (this.held.get(instanceId) !== held) return Promise.reject(new NotHeldHere());
    return held.inflight.run(fn);
  }

  // --- SessionApi ------------------------------------------------------------------------

  async stop(instanceId: string): Promise<void> {
    await this.platform.redis.srem(this.platform.keys.running, instanceId);
    await this.release(instanceId, { status: "STOPPED" });
  }

  async restart(instanceId: string): Promise<void> {
    const held = this.need(instanceId);
    held.resume?.end(); // a restart asked for is news: its statuses are written
    await held.session.stop();
    await held.session.start();
  }

  async logout(instanceId: string): Promise<void> {
    const held = this.need(instanceId);
    await this.platform.redis.srem(this.platform.keys.running, instanceId);
    await held.session.logout();
    await held.chain;
    await this.platform.instances.setConnection(instanceId, held.epoch, { phone: "", pushName: "" });
    await this.release(instanceId, { status: "STOPPED" });
  }

  async qr(instanceId: string): Promise<string> {
    const value = this.need(instanceId).session.currentQr();
    if (!value)
      throw new ApiError("instance_not_connected", "Nenhum QR disponível: a instância não está em SCAN_QR_CODE.");
    return value;
  }

  async pairingCode(instanceId: string, phone: string, method?: "sms" | "voice"): Promise<string> {
    return this.need(instanceId).session.requestPairingCode(phone, method);
  }

  async passkeyChallenge(instanceId: string): Promise<PasskeyChallenge> {
    return this.need(instanceId).session.passkeyChallenge();
  }

  async submitPasskey(instanceId: string, assertion: PasskeyAssertion): Promise<void> {
    return this.need(instanceId).session.submitPasskey(assertion);
  }

  async passkeyConfirmation(instanceId: string): Promise<{ code: string }> {
    return this.need(instanceId).session.passkeyConfirmation();
  }

  async confirmPasskey(instanceId: string): Promise<void> {
    return this.need(instanceId).session.confirmPasskey();
  }

  async account(instanceId: string): Promise<AccountInfo> {
    return this.need(instanceId).session.account();
  }

  async capping(instanceId: string): Promise<Capping> {
    return this.need(instanceId).session.capping();
  }

  async timelock(instanceId: string): Promise<Timelock> {
    return this.need(instanceId).session.timelock();
  }

  /**
   * Sends, then keeps the message (forwards, reactions and quotes find it by id) and publishes
   * its `message.any` (or reaction/edit/revoke) event. The network's own `sent` ack follows as
   * `message.ack` from the provider.
   */
  async send(
    instanceId: string,
    chatId: string,
    content: OutboundContent,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const held = await this.ready(instanceId);
    const { messages, identity, mediaLinks } = this.platform;
    if (options.id) {
      // A message already sent under this id: the same send again answers what it answered
      // (nothing is sent or announced twice); other content under a used id is a conflict.
      const prior = await messages.get(instanceId, options.id);
      if (prior) {
        if (prior.fromMe && (options.derivedId || storedHash(prior) === contentHash(content))) {
          return { id: prior.id, chatId: prior.chatId, timestamp: prior.timestamp };
        }
        throw new ApiError("validation_error", "Campos inválidos.", { id: "este id já foi usado por outra mensagem" });
      }
    }
    const raw = await this.onNetwork(instanceId, held, () => held.session.send(chatId, content, options));
    // Spec 1 rule 3: a lid whose number is known is shown as the number (the lid in chatLid).
    const sentTo = raw.chatId || chatId;
    const shown = (await identity.rewrite(instanceId, sentTo)) ?? sentTo;
    const result: SendResult = { id: raw.id, chatId: shown, timestamp: raw.timestamp };
    const instance = await this.platform.instanceCache.get(instanceId);
    if (instance) {
      const chatLid = sentTo.endsWith("@lid")
        ? sentTo
        : shown.endsWith("@c.us")
          ? await identity.lidOf(instanceId, shown.split("@")[0]!)
          : null;
      const event = sentEvent(instance, shown, content, options, result, avatarLinks(this.platform, instance), {
        chatLid,
        chatName: await this.chatName(instanceId, held, shown),
      });
      const media = "media" in content ? content.media : undefined;
      if (event && media && event.payload.media && media.data.length * 0.75 <= MESSAGE_MEDIA_KEEP_MAX) {
        const ext = extensionOf(media.mimetype, media.filename);
        const url = mediaLinks.sign(`/v1/files/${instanceId}/${String(event.payload.id)}.${ext}`);
        event.payload.media = { ...(event.payload.media as object), url };
      }
      // A text-like send's read-model document keeps its content whole: it is the kept message
      // (messages.ts), one write instead of two.
      const keep = event?.kind === "message.any" && this.platform.readModel.keeps(instance, event.payload, content);
      await Promise.all([
        keep
          ? null
          : messages.save(instanceId, {
              id: result.id,
              chatId: shown,
              fromMe: true,
              timestamp: result.timestamp,
              content,
            }),
        event ? this.platform.events.publish(instance, event.kind, event.payload) : null,
        event
          ? this.platform.readModel.record(instance, event.kind, event.payload, {
              networkId: result.id,
              targetId: "targetId" in content ? content.targetId : null,
              content,
              keep,
            })
          : null,
        // The network accepting the send is its `sent` ack: announced here, with the message, in
        // the same write. Neither network reports it to the device that sent (simnet answers the
        // send instead, as the real network does; the Baileys provider drops a `sender` receipt).
        held.session.reportsSentAck
          ? null
          : this.platform.events.publish(instance, "message.ack", {
              id: formatMessageId({ fromMe: true, chatId: shown, id: result.id }),
              chatId: shown,
              status: "sent",
              timestamp: result.timestamp,
            }),
      ]).catch((err) => this.opts.log.error({ err, instanceId }, "recording a sent message failed"));
    }
    return result;
  }

  async checkExists(instanceId: string, phone: string): Promise<ExistsResult> {
    const found = await (await this.ready(instanceId)).session.checkExists(phone);
    // What the number check reveals about privacy ids is kept (spec 1 rule 3).
    if (found.exists && found.lid && found.chatId) {
      await this.platform.identity.learn(instanceId, found.lid, found.chatId.split("@")[0]!).catch(() => {});
    }
    return found;
  }

  /** A chat's name as learnt from its messages, else as the provider tells it (a group's subject). */
  private async chatName(instanceId: string, held: Held, chatId: string): Promise<string | null> {
    const known = await this.platform.identity.nameOf(instanceId, chatId);
    if (known || !held.session.chatTitle) return known;
    const name = await held.session.chatTitle(chatId).catch(() => null);
    if (name) await this.platform.identity.learnName(instanceId, chatId, name);
    return name;
  }

  async markRead(instanceId: string, chatId: string, messageIds: string[]): Promise<void> {
    return this.need(instanceId).session.markRead(chatId, messageIds);
  }

  async presence(instanceId: string, state: PresenceState, chatId?: string): Promise<void> {
    return this.need(instanceId).session.presence(state, chatId);
  }

  async picture(instanceId: string, chatId: string): Promise<Picture | null> {
    return this.need(instanceId).session.picture(chatId);
  }

  async downloadMedia(instanceId: string, networkId: string): Promise<Picture | null> {
    const session = this.need(instanceId).session;
    return session.downloadMedia ? session.downloadMedia(networkId) : null;
  }

  async op<N extends SessionOpName>(
    instanceId: string,
    name: N,
    input: SessionOpInput<N>,
  ): Promise<SessionOpOutput<N>> {
    const { session } = this.need(instanceId);
    if (!isSessionOp(name)) throw new ApiError("not_found", `Operação desconhecida: ${String(name)}.`);
    const handler = session.ops?.[name] as ((input: unknown) => Promise<SessionOpOutput<N>>) | undefined;
    if (!handler) throw new ApiError("not_supported", `O provedor ${session.provider} não implementa ${name}.`);
    // The gateway validated the request; this guards the internal hop (another version, a tool).
    const parsed = SESSION_OPS[name].input.safeParse(input);
    if (!parsed.success) {
      throw new ApiError("validation_error", "Campos inválidos.", validationDetails(parsed.error));
    }
    return handler(parsed.data);
  }
}
