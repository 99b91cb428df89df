import { ApiError, type ConnectionStatus, deviceStillLinked, failure, type StatusCause } from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import {
  type ConnectionState,
  DisconnectReason,
  type GroupMetadata,
  makeWASocket,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
  type WAVersion,
} from "@whiskeysockets/baileys";
import type { ProviderContext } from "../contract.ts";
import { accountFromMe, isPaired } from "./account.ts";
import { type BaileysLogger, type RedisAuthState, useRedisAuthState } from "./auth-state.ts";
import { CredsWriter } from "./creds-writer.ts";
import type { PairingConnection } from "./pairing.ts";
import {
  type DisconnectAction,
  type DisconnectRecord,
  decideDisconnect,
  describeDisconnectError,
  recordDisconnect,
} from "./policy.ts";
import { QrWaiters } from "./qr-waiters.ts";
import type { BaileysSessionOptions } from "./session-options.ts";
import { SocketConfigs } from "./socket-config.ts";
import { withTimeout } from "./with-timeout.ts";

/** What the connection needs from the rest of the session. */
export interface ConnectionHooks {
  /** The stored message for a key (Baileys' `getMessage`, for retries). */
  loadMessage(key: WAMessageKey): Promise<WAMessage | undefined>;
  /** The current socket closed or was retired: messaging calls in flight answer `instance_not_connected`. */
  abortCalls(): void;
  /**
   * The session's own handlers on a new socket (received messages, contacts, groups); registered
   * after its `connection.update` handler and before its `creds.update` one and the areas' hooks.
   */
  listen(sock: WASocket): void;
  /** A group's metadata for Baileys' group sends (`cachedGroupMetadata`): cached, else asked once on `sock`. */
  groupMetadata(sock: WASocket, jid: string): Promise<GroupMetadata>;
}

/**
 * One instance's connection to the network: the socket (never two), its lifecycle and the
 * disconnect policy's actions (policy.ts), reconnect timers, the QR / status / account events,
 * and the creds it writes.
 */
export class BaileysConnection implements PairingConnection {
  private readonly makeSocket: typeof makeWASocket;
  private version: WAVersion | undefined;
  /** Each socket's config, and Baileys' caches that outlive a socket. */
  private readonly socketConfigs: SocketConfigs;

  private active = false;
  /** The lease went to another pod: calls answer `lease_lost` (503), not "not connected". */
  private leaseLost = false;
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
  /** The feature areas' hooks on every socket (areas.ts). */
  private readonly socketListeners: ((sock: WASocket, current: () => boolean) => void)[] = [];

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
    private readonly log: BaileysLogger,
    private readonly hooks: ConnectionHooks,
  ) {
    this.makeSocket = opts.makeSocket ?? makeWASocket;
    this.version = opts.version;
    this.creds = new CredsWriter({ log, currentAuth: () => this.auth });
    this.socketConfigs = new SocketConfigs(
      ctx,
      opts,
      log,
      (key) => hooks.loadMessage(key),
      (sock, jid) => hooks.groupMetadata(sock, jid),
    );
  }

  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    this.leaseLost = false;
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

  /**
   * Unlinks the device on the network, then wipes the auth state. Open: Baileys' `logout()` sends
   * the remove-companion-device IQ (lib/Socket/socket.js:572-595). Not open but paired: a socket
   * of its own is made for it, within the same budget; otherwise the phone would keep listing a
   * dead device. When that cannot be done the wipe is local only, and said so (a warning, and the
   * `STOPPED` status with reason `device_still_linked` and why): the phone must remove the device.
   */
  async logout(): Promise<void> {
    const open = this.sock && this.opened ? this.sock : null;
    this.active = false;
    this.clearReconnect();
    this.qrWaiters.rejectAll(new ApiError("instance_not_connected"));
    const budgetMs = this.opts.logoutTimeoutMs ?? 10_000;
    let notUnlinked: string | null;
    if (open) {
      // Retire first: the 401 "Intentional Logout" close that follows is ours, not the network's.
      this.detach(open);
      notUnlinked = await this.unlink(open, budgetMs);
      await this.retireSocket(open);
    } else {
      await this.retireSocket();
      notUnlinked = await this.unlinkOffline(budgetMs);
    }
    // Let queued creds writes land before the wipe, so none lands after it.
    await this.creds.settled();
    const auth = this.auth;
    this.auth = null;
    this.qr = null;
    this.status = null;
    if (auth) await auth.clear();
    else await this.ctx.auth.clear();
    if (notUnlinked !== null) this.reportLocalLogout(notUnlinked);
  }

  /** Sends the remove-companion-device IQ on an open socket; why it failed, else null. */
  private async unlink(sock: WASocket, budgetMs: number): Promise<string | null> {
    try {
      await withTimeout(sock.logout(), budgetMs);
      return null;
    } catch (err) {
      return `remove-companion-device failed (${describeDisconnectError(err).message})`;
    }
  }

  /**
   * Not connected: connects just to unlink, then ends. Null when unlinked, or when there is no
   * device to unlink (never paired) or the network already dropped it (401 on connect); else why not.
   */
  private async unlinkOffline(budgetMs: number): Promise<string | null> {
    const deadline = Date.now() + budgetMs;
    const left = () => Math.max(1, deadline - Date.now());
    const auth = this.auth ?? (await this.loadAuth());
    if (!auth) return "the stored pairing could not be read";
    this.auth = auth;
    if (!isPaired(auth.state.creds)) return null;
    let sock: WASocket | undefined;
    try {
      sock = this.makeSocket(this.socketConfigs.build(auth, this.version, () => sock));
    } catch (err) {
      return `could not create a socket (${describeDisconnectError(err).message})`;
    }
    // The current socket, with none of the session's handlers: never two sockets (a start() or
    // stop() meanwhile ends it), and its events are nobody's news.
    this.sock = sock;
    this.opened = false;
    try {
      await sock.waitForConnectionUpdate(async (u) => u.connection === "open", left());
    } catch (err) {
      await this.retireSocket(sock);
      const { statusCode, message } = describeDisconnectError(err);
      // Refused as logged out: the device is no longer linked (removed on the phone meanwhile).
      if (statusCode === DisconnectReason.loggedOut) return null;
      return statusCode === DisconnectReason.timedOut && /timed out/i.test(message)
        ? `no connection to the network within ${budgetMs} ms`
        : `the connection failed (${statusCode ?? "no code"}: ${message})`;
    }
    const why = await this.unlink(sock, left());
    await this.retireSocket(sock);
    return why;
  }

  /** The stored auth state, for a logout before any start; null when it cannot be read. */
  private async loadAuth(): Promise<RedisAuthState | null> {
    try {
      return await useRedisAuthState(this.ctx.auth, {
        logger: this.log,
        onStaleLease: (err) => this.onStaleLease(err),
      });
    } catch (err) {
      this.log.warn({ err }, "could not read the auth state for logout");
      return null;
    }
  }

  /** The wipe was local only: the operator must know the phone still lists the device. */
  private reportLocalLogout(why: string): void {
    this.log.warn(
      { why },
      "logout: the device could not be removed on the network; credentials wiped here only — remove it on the phone (Linked devices)",
    );
    this.ctx.emit({ type: "status", status: "STOPPED", cause: deviceStillLinked(why) });
  }

  currentQr(): string | null {
    return this.qr;
  }

  /** `listen` runs for each socket made from now on, after the session's own handlers (areas.ts). */
  onSocket(listen: (sock: WASocket, current: () => boolean) => void): void {
    this.socketListeners.push(listen);
  }

  /**
   * The open socket. Otherwise (contracts failures.ts): the lease was lost, `503` (another pod takes
   * the instance); reconnecting, `503` with Retry-After; stopped, logged out or given up, `422`.
   */
  openSocket(): WASocket {
    if (this.sock && this.opened) return this.sock;
    if (this.leaseLost) throw failure("lease_lost");
    if (this.active) throw failure("reconnecting", "A conexão com a rede está sendo refeita; tente de novo.");
    throw failure("not_connected");
  }

  /** Whether `sock` is the current socket and open. */
  isOpen(sock: WASocket): boolean {
    return sock === this.sock && this.opened;
  }

  isActive(): boolean {
    return this.active;
  }

  currentAuth(): RedisAuthState | null {
    return this.auth;
  }

  currentSocket(): WASocket | null {
    return this.sock;
  }

  /** Resolves once the current socket shows a QR (pairing.ts). */
  waitForQr(timeoutMs: number): Promise<void> {
    if (this.qr && this.sock) return Promise.resolve();
    return this.qrWaiters.wait(timeoutMs);
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
    let sock: WASocket | undefined;
    try {
      sock = this.makeSocket(this.socketConfigs.build(auth, this.version, () => sock));
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
    this.hooks.listen(sock);
    sock.ev.on("creds.update", () => {
      if (gen !== this.generation) return;
      void this.creds.save();
      if (this.opened) this.emitAccount(sock);
    });
    for (const listen of this.socketListeners) listen(sock, () => gen === this.generation);
  }

  /** Ends a socket we no longer want; its close event is ignored. */
  private async retireSocket(sock: WASocket | undefined = this.sock ?? undefined): Promise<void> {
    if (!sock) return;
    this.detach(sock);
    try {
      await sock.end(undefined);
    } catch (err) {
      this.log.warn({ err }, "error while ending the socket");
    }
  }

  /** `sock` is no longer the current socket (if it was): its events are ignored from now on. */
  private detach(sock: WASocket): void {
    if (sock !== this.sock) return;
    this.generation++;
    this.sock = null;
    this.opened = false;
    this.hooks.abortCalls();
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
    this.hooks.abortCalls();
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
      case "replaced-backoff":
        if (action.kind === "backoff" && action.refreshVersion) await this.refreshVersion();
        this.setStatus("STARTING", {
          reason: action.reason,
          detail: action.detail,
          retryAt: Date.now() + action.delayMs,
        });
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
        this.setStatus("STOPPED", { reason: action.reason });
        return;
      case "failed":
        this.halt();
        await this.creds.flush();
        this.setStatus("FAILED", { reason: action.reason, detail: action.detail });
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

  /** The lease is gone: stop at once, nothing reconnects. */
  onStaleLease(err: StaleLeaseError): void {
    if (!this.active && !this.sock) return;
    this.leaseLost = true;
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

  /** A new status, or the same with a cause (a reconnect's new reason or time: kept on the instance). */
  private setStatus(status: ConnectionStatus, cause?: StatusCause): void {
    if (this.status === status && !cause) return;
    this.status = status;
    this.ctx.emit(cause ? { type: "status", status, cause } : { type: "status", status });
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
}
