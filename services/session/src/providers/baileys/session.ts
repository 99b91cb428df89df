import {
  ApiError,
  type ConnectionStatus,
  type ExistsResult,
  type OutboundContent,
  type PresenceState,
  type SendOptions,
  type SendResult,
  type SessionOpHandlers,
} from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import {
  type ConnectionState,
  makeWASocket,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
  type WAVersion,
} from "@whiskeysockets/baileys";
import type { Picture, ProviderContext, ProviderSession } from "../contract.ts";
import { accountFromMe, isPaired, mapCapping, mapTimelock } from "./account.ts";
import { baileysOps } from "./areas.ts";
import { type BaileysLogger, BoundedCache, type RedisAuthState, useRedisAuthState } from "./auth-state.ts";
import { CredsWriter } from "./creds-writer.ts";
import { toApiError } from "./errors.ts";
import { GroupCache } from "./group-cache.ts";
import { parseStoredMessage } from "./inbound.ts";
import { InboundEvents } from "./inbound-events.ts";
import { BaileysMessaging } from "./messaging.ts";
import { PASSKEY_MESSAGE, PairingCodes } from "./pairing.ts";
import {
  type DisconnectAction,
  type DisconnectRecord,
  decideDisconnect,
  describeDisconnectError,
  recordDisconnect,
} from "./policy.ts";
import { QrWaiters } from "./qr-waiters.ts";
import { type BaileysSessionOptions, baileysLogger, browserFromSettings } from "./session-options.ts";
import { SocketCalls } from "./socket-calls.ts";
import { withTimeout } from "./with-timeout.ts";

export { type BaileysSessionOptions, browserFromSettings } from "./session-options.ts";

class BaileysSession implements ProviderSession {
  readonly provider = "baileys" as const;

  private readonly log: BaileysLogger;
  private readonly makeSocket: typeof makeWASocket;
  private version: WAVersion | undefined;
  /** Outside the socket so retry counts survive reconnects (reference §1.1). */
  private readonly msgRetryCounterCache = new BoundedCache(5_000, 60 * 60_000);
  private readonly userDevicesCache = new BoundedCache(5_000, 5 * 60_000);
  private readonly callOfferCache = new BoundedCache(500, 5 * 60_000);
  private readonly placeholderResendCache = new BoundedCache(1_000, 60 * 60_000);
  /** Participants and subjects of groups (sends' `mentions: ["all"]`, received messages' `chatName`). */
  private readonly groups = new GroupCache();
  /** Received messages, acks and contact names from the socket's events. */
  private readonly inbound: InboundEvents;
  /** Sends, receipts, presence, number checks, pictures and media downloads. */
  private readonly messaging: BaileysMessaging;
  /** Pairing-code requests. */
  private readonly pairing: PairingCodes;

  private active = false;
  private auth: RedisAuthState | null = null;
  private sock: WASocket | null = null;
  /** Bumped whenever the current socket is retired: events of older sockets are ignored. */
  private generation = 0;
  private opened = false;
  private qr: string | null = null;
  private status: ConnectionStatus | null = null;
  private lastAccountKey = "";
  private history: DisconnectRecord[] = [];
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Pairing-code requests waiting for the first QR. */
  private readonly qrWaiters = new QrWaiters();
  /** Creds writes, one at a time. */
  private readonly creds: CredsWriter;
  /** Messaging calls in flight on the current socket (the session's and the areas'). */
  private readonly calls: SocketCalls;
  /** The feature areas' hooks on every socket (areas.ts). */
  private readonly socketListeners: ((sock: WASocket, current: () => boolean) => void)[] = [];
  readonly ops: SessionOpHandlers;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
  ) {
    this.log = baileysLogger(ctx);
    this.makeSocket = opts.makeSocket ?? makeWASocket;
    this.version = opts.version;
    this.creds = new CredsWriter({ log: this.log, currentAuth: () => this.auth });
    this.calls = new SocketCalls({ log: this.log, onStaleLease: (err) => this.onStaleLease(err) });
    this.inbound = new InboundEvents({
      ctx,
      log: this.log,
      groups: this.groups,
      loadMessage: (key) => this.loadMessage(key),
      isOpen: (sock) => sock === this.sock && this.opened,
    });
    this.messaging = new BaileysMessaging({
      ctx,
      log: this.log,
      groups: this.groups,
      lidLookupTimeoutMs: opts.lidLookupTimeoutMs,
      openSocket: () => this.openSocket(),
      call: (op, fn) => this.calls.run(op, fn),
      loadMessage: (key) => this.loadMessage(key),
      markOwnSend: (id) => this.inbound.markOwnSend(id),
    });
    this.pairing = new PairingCodes({
      log: this.log,
      opts,
      isActive: () => this.active,
      currentAuth: () => this.auth,
      currentSocket: () => this.sock,
      waitForQr: (timeoutMs) => this.waitForQr(timeoutMs),
    });
    this.ops = baileysOps({
      ctx,
      socket: () => this.openSocket(),
      call: (op, fn) => this.calls.run(op, () => fn(this.openSocket())),
      onSocket: (listen) => this.socketListeners.push(listen),
    });
  }

  // ── lifecycle ────────────────────────────────────────────────────────────

  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    this.history = [];
    try {
      const auth = await useRedisAuthState(this.ctx.auth, {
        logger: this.log,
        onStaleLease: (err) => this.onStaleLease(err),
      });
      if (!this.active) return;
      this.auth = auth;
      await this.connect();
    } catch (err) {
      this.active = false;
      this.auth = null;
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.active = false;
    this.clearReconnect();
    this.qrWaiters.rejectAll(new ApiError("instance_not_connected"));
    await this.retireSocket();
    await this.creds.flush();
    this.auth = null;
    this.qr = null;
    this.status = null;
  }

  async logout(): Promise<void> {
    const sock = this.sock;
    const wasOpen = this.opened;
    this.active = false;
    this.clearReconnect();
    this.qrWaiters.rejectAll(new ApiError("instance_not_connected"));
    if (sock && wasOpen) {
      // Retire first: the 401 "Intentional Logout" close that follows is ours, not the network's.
      this.generation++;
      this.sock = null;
      this.opened = false;
      this.calls.abortAll();
      try {
        await withTimeout(sock.logout(), this.opts.logoutTimeoutMs ?? 10_000);
      } catch (err) {
        this.log.warn({ err }, "remove-companion-device failed; wiping the auth state anyway");
      }
    }
    await this.retireSocket(sock ?? undefined);
    // Let queued creds writes land before the wipe, so none lands after it.
    await this.creds.settled();
    const auth = this.auth;
    this.auth = null;
    this.qr = null;
    this.status = null;
    if (auth) await auth.clear();
    else await this.ctx.auth.clear();
  }

  currentQr(): string | null {
    return this.qr;
  }

  // ── pairing (pairing.ts) ─────────────────────────────────────────────────

  requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string> {
    return this.pairing.request(phone, method);
  }

  async passkeyChallenge(): Promise<never> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async submitPasskey(): Promise<void> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async passkeyConfirmation(): Promise<never> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async confirmPasskey(): Promise<void> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  // ── account routes ───────────────────────────────────────────────────────

  async account() {
    return accountFromMe(this.openSocket().authState.creds.me);
  }

  async capping() {
    const sock = this.openSocket();
    try {
      return mapCapping(await sock.fetchNewChatMessageCap());
    } catch (err) {
      this.log.warn({ err }, "message capping query failed");
      throw toApiError(err);
    }
  }

  async timelock() {
    const sock = this.openSocket();
    try {
      return mapTimelock(await sock.fetchAccountReachoutTimelock());
    } catch (err) {
      this.log.warn({ err }, "reachout timelock query failed");
      throw toApiError(err);
    }
  }

  // ── messaging (messaging.ts) ─────────────────────────────────────────────

  send(chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult> {
    return this.messaging.send(chatId, content, options);
  }

  picture(chatId: string): Promise<Picture | null> {
    return this.messaging.picture(chatId);
  }

  checkExists(phone: string): Promise<ExistsResult> {
    return this.messaging.checkExists(phone);
  }

  markRead(chatId: string, messageIds: string[]): Promise<void> {
    return this.messaging.markRead(chatId, messageIds);
  }

  presence(state: PresenceState, chatId?: string): Promise<void> {
    return this.messaging.presence(state, chatId);
  }

  downloadMedia(networkId: string): Promise<Picture | null> {
    return this.messaging.downloadMedia(networkId);
  }

  private async loadMessage(key: WAMessageKey): Promise<WAMessage | undefined> {
    if (this.opts.loadMessage) return this.opts.loadMessage(key);
    if (!key.id) return undefined;
    const raw = await this.ctx.rawMessages.load(key.id);
    return raw ? parseStoredMessage(raw) : undefined;
  }

  // ── internals ────────────────────────────────────────────────────────────

  private openSocket(): WASocket {
    if (!this.sock || !this.opened) throw new ApiError("instance_not_connected");
    return this.sock;
  }

  private socketConfig(auth: RedisAuthState): UserFacingSocketConfig {
    return {
      auth: auth.state,
      logger: this.log,
      browser: this.opts.browser ?? browserFromSettings(this.ctx.instance),
      ...(this.version ? { version: this.version } : {}),
      markOnlineOnConnect: false,
      syncFullHistory: false,
      // Sent and received messages are kept (ctx.rawMessages); a miss is the honest answer (reference §1.1).
      getMessage: async (key) => {
        try {
          return (await this.loadMessage(key))?.message ?? undefined;
        } catch (err) {
          this.log.warn({ err }, "getMessage lookup failed");
          return undefined;
        }
      },
      // A stale lease fails every retry: give up fast (the session stops on the first one anyway).
      transactionOpts: { maxCommitRetries: 3, delayBetweenTriesMs: 250 },
      msgRetryCounterCache: this.msgRetryCounterCache,
      userDevicesCache: this.userDevicesCache,
      callOfferCache: this.callOfferCache,
      placeholderResendCache: this.placeholderResendCache,
    };
  }

  /** Ends the current socket (if any) and builds the next one. Never two sockets. */
  private async connect(): Promise<void> {
    // Loop: a concurrent connect may have built a socket while this one waited for an end().
    // Socket creation below is synchronous, so once no socket is left, this one is the only one.
    while (this.sock) await this.retireSocket();
    const auth = this.auth;
    if (!this.active || !auth) return;
    const creds = auth.state.creds;
    if (!isPaired(creds) && creds.me) {
      // Left over by a pairing-code request that never completed: with `me` set Baileys would
      // try to log in instead of registering, and get refused.
      creds.me = undefined;
      creds.pairingCode = undefined;
    }
    const gen = ++this.generation;
    let sock: WASocket;
    try {
      sock = this.makeSocket(this.socketConfig(auth));
    } catch (err) {
      this.log.error({ err }, "could not create the socket");
      await this.onClose(gen, err);
      return;
    }
    this.sock = sock;
    this.opened = false;
    sock.ev.on("connection.update", (update) => {
      if (gen !== this.generation) return;
      this.onConnectionUpdate(gen, sock, update).catch((err) => this.log.error({ err }, "connection.update handler"));
    });
    this.inbound.listen(sock);
    this.groups.listen(sock);
    sock.ev.on("creds.update", () => {
      if (gen !== this.generation) return;
      void this.creds.save();
      if (this.opened) this.emitAccount(sock);
    });
    for (const listen of this.socketListeners) listen(sock, () => gen === this.generation);
  }

  /** Ends a socket we no longer want; its close event is ignored. */
  private async retireSocket(sock: WASocket | undefined = this.sock ?? undefined): Promise<void> {
    if (sock === this.sock) {
      this.generation++;
      this.sock = null;
      this.opened = false;
      this.calls.abortAll();
    }
    if (!sock) return;
    try {
      await sock.end(undefined);
    } catch (err) {
      this.log.warn({ err }, "error while ending the socket");
    }
  }

  private async onConnectionUpdate(gen: number, sock: WASocket, u: Partial<ConnectionState>): Promise<void> {
    if (u.qr) {
      this.qr = u.qr;
      this.ctx.emit({ type: "qr", value: u.qr });
      this.setStatus("SCAN_QR_CODE");
      this.qrWaiters.resolveAll();
    }
    if (u.isNewLogin) {
      // pair-success: the QR is spent; the server restarts the stream (515) next.
      this.qr = null;
      this.emitAccount(sock);
    }
    if (u.connection === "connecting") {
      this.setStatus("STARTING");
    } else if (u.connection === "open") {
      this.opened = true;
      this.qr = null;
      this.qrWaiters.rejectAll(new ApiError("bad_request", "Este número já está pareado."));
      this.setStatus("WORKING");
      this.emitAccount(sock);
    } else if (u.connection === "close") {
      await this.onClose(gen, u.lastDisconnect?.error);
    }
  }

  private async onClose(gen: number, error: unknown): Promise<void> {
    if (gen !== this.generation) return;
    this.generation++;
    this.sock = null;
    this.opened = false;
    this.qr = null;
    this.calls.abortAll();
    if (!this.active) return;
    if (error instanceof StaleLeaseError) {
      this.onStaleLease(error);
      return;
    }
    const auth = this.auth;
    const described = describeDisconnectError(error);
    const { statusCode, message } = described;
    const registered = auth ? isPaired(auth.state.creds) : false;
    const now = Date.now();
    const action = decideDisconnect({ ...described, registered }, this.history, {
      now,
      tuning: this.opts.policy,
    });
    this.history = recordDisconnect(this.history, { at: now, statusCode });
    this.log.warn({ statusCode, message, action }, "connection closed");
    await this.apply(action);
  }

  private async apply(action: DisconnectAction): Promise<void> {
    switch (action.kind) {
      case "reconnect-now":
        // The pairing just written by pair-success must be in Redis before the restart.
        await this.creds.flush();
        this.scheduleConnect(0);
        return;
      case "backoff":
        if (action.refreshVersion) await this.refreshVersion();
        this.setStatus("STARTING", action.reason);
        this.scheduleConnect(action.delayMs);
        return;
      case "replaced-backoff":
        this.setStatus("STARTING", action.reason);
        this.scheduleConnect(action.delayMs);
        return;
      case "logged-out":
        this.halt();
        this.auth = null;
        await this.creds.settled();
        try {
          await this.ctx.auth.clear();
        } catch (err) {
          if (err instanceof StaleLeaseError) return this.onStaleLease(err);
          this.log.error({ err }, "could not wipe the auth state after logout");
        }
        this.ctx.emit({ type: "logged-out", reason: action.reason });
        return;
      case "qr-expired":
        this.halt();
        this.setStatus("STOPPED", action.reason);
        return;
      case "failed":
        this.halt();
        await this.creds.flush();
        this.setStatus("FAILED", action.reason);
        return;
    }
  }

  private async refreshVersion(): Promise<void> {
    try {
      const v = this.opts.resolveVersion ? await this.opts.resolveVersion() : this.opts.version;
      this.version = v;
    } catch (err) {
      this.log.warn({ err }, "could not refresh the protocol version; keeping the current one");
    }
  }

  /** The network ended the session: nothing reconnects. */
  private halt(): void {
    this.active = false;
    this.clearReconnect();
    this.qrWaiters.rejectAll(new ApiError("instance_not_connected"));
  }

  private onStaleLease(err: StaleLeaseError): void {
    if (!this.active && !this.sock) return;
    this.log.warn({ err: err.message }, "lease lost: stopping the connection");
    this.halt();
    this.auth = null;
    void this.retireSocket();
  }

  private scheduleConnect(delayMs: number): void {
    this.clearReconnect();
    if (!this.active) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch((err) => this.log.error({ err }, "reconnect failed"));
    }, delayMs);
  }

  private clearReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private setStatus(status: ConnectionStatus, reason?: string): void {
    if (this.status === status) return;
    this.status = status;
    this.ctx.emit(reason ? { type: "status", status, reason } : { type: "status", status });
  }

  // Not `sock.user`: Baileys builds the socket by spreading each layer, which evaluates that
  // getter once at creation; `authState.creds` is the live object creds.update merges into.
  private emitAccount(sock: WASocket): void {
    const account = accountFromMe(sock.authState.creds.me);
    const key = `${account.phone}|${account.lid}|${account.pushName}`;
    if (key === this.lastAccountKey || !account.phone) return;
    this.lastAccountKey = key;
    this.ctx.emit({ type: "account", account });
  }

  private waitForQr(timeoutMs: number): Promise<void> {
    if (this.qr && this.sock) return Promise.resolve();
    return this.qrWaiters.wait(timeoutMs);
  }
}

export function createBaileysSession(ctx: ProviderContext, opts: BaileysSessionOptions = {}): ProviderSession {
  return new BaileysSession(ctx, opts);
}
