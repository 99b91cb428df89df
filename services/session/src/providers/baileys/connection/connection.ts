import { ApiError, failure } from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import type { ConnectionState, GroupMetadata, WAMessage, WAMessageKey, WASocket } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";
import { isPaired } from "../account.ts";
import { type BaileysLogger, type RedisAuthState, useRedisAuthState } from "./auth-state.ts";
import { CredsWriter } from "./creds-writer.ts";
import { reportLocalLogout, unlink, unlinkOffline } from "./device-unlink.ts";
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
import { SocketFactory } from "./socket-config.ts";
import { StatusReports } from "./status-reports.ts";

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
 * and the creds it writes. Its parts: socket-config.ts (each socket it makes), status-reports.ts
 * (status and account events), device-unlink.ts (logout's unlinking), creds-writer.ts, qr-waiters.ts.
 */
export class BaileysConnection implements PairingConnection {
  /** Each socket: its config, the protocol version, and Baileys' caches that outlive a socket. */
  private readonly sockets: SocketFactory;

  private active = false;
  /** The lease went to another pod: calls answer `lease_lost` (503), not "not connected". */
  private leaseLost = false;
  private auth: RedisAuthState | null = null;
  private sock: WASocket | null = null;
  /** Bumped whenever the current socket is retired: events of older sockets are ignored. */
  private generation = 0;
  private opened = false;
  private qr: string | null = null;
  private history: DisconnectRecord[] = [];
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** The status and account events. */
  private readonly reports: StatusReports;
  /** Pairing-code requests waiting for the first QR. */
  private readonly qrWaiters = new QrWaiters();
  /** Creds writes, one at a time. */
  private readonly creds: CredsWriter;
  /** The feature areas' hooks on every socket (areas/area.ts). */
  private readonly socketListeners: ((sock: WASocket, current: () => boolean) => void)[] = [];

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
    private readonly log: BaileysLogger,
    private readonly hooks: ConnectionHooks,
  ) {
    this.creds = new CredsWriter({ log, currentAuth: () => this.auth });
    this.reports = new StatusReports(ctx);
    this.sockets = new SocketFactory(
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
      const auth = await this.readAuth();
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
    this.halt();
    await this.retireSocket();
    await this.creds.flush();
    this.auth = null;
    this.qr = null;
    this.reports.forgetStatus();
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
    this.halt();
    const budgetMs = this.opts.logoutTimeoutMs ?? 10_000;
    let notUnlinked: string | null;
    if (open) {
      // Retire first: the 401 "Intentional Logout" close that follows is ours, not the network's.
      this.detach(open);
      notUnlinked = await unlink(open, budgetMs);
      await this.retireSocket(open);
    } else {
      await this.retireSocket();
      notUnlinked = await unlinkOffline(budgetMs, {
        auth: async () => {
          const auth = this.auth ?? (await this.loadAuth());
          if (auth) this.auth = auth;
          return auth;
        },
        adopt: (auth) => {
          const sock = this.sockets.make(auth);
          this.sock = sock;
          this.opened = false;
          return sock;
        },
        retire: (sock) => this.retireSocket(sock),
      });
    }
    // Let queued creds writes land before the wipe, so none lands after it.
    await this.creds.settled();
    const auth = this.auth;
    this.auth = null;
    this.qr = null;
    this.reports.forgetStatus();
    if (auth) await auth.clear();
    else await this.ctx.auth.clear();
    if (notUnlinked !== null) reportLocalLogout(this.ctx, this.log, notUnlinked);
  }

  /** The stored auth state, its fenced writes stopping the connection when the lease is lost. */
  private readAuth(): Promise<RedisAuthState> {
    return useRedisAuthState(this.ctx.auth, { logger: this.log, onStaleLease: (err) => this.onStaleLease(err) });
  }

  /** The stored auth state, for a logout before any start; null when it cannot be read. */
  private async loadAuth(): Promise<RedisAuthState | null> {
    try {
      return await this.readAuth();
    } catch (err) {
      this.log.warn({ err }, "could not read the auth state for logout");
      return null;
    }
  }

  currentQr(): string | null {
    return this.qr;
  }

  /** `listen` runs for each socket made from now on, after the session's own handlers (areas/area.ts). */
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
    let sock: WASocket;
    try {
      sock = this.sockets.make(auth);
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
      if (this.opened) this.reports.emitAccount(sock);
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
      this.reports.setStatus("SCAN_QR_CODE");
      this.qrWaiters.resolveAll();
    }
    if (u.isNewLogin) {
      // pair-success: the QR is spent; the server restarts the stream (515) next.
      this.qr = null;
      this.reports.emitAccount(sock);
    }
    if (u.connection === "connecting") {
      this.reports.setStatus("STARTING");
    } else if (u.connection === "open") {
      this.opened = true;
      this.qr = null;
      this.qrWaiters.rejectAll(new ApiError("bad_request", "Este número já está pareado."));
      this.reports.setStatus("WORKING");
      this.reports.emitAccount(sock);
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
        if (action.kind === "backoff" && action.refreshVersion) await this.sockets.refreshVersion();
        this.reports.setStatus("STARTING", {
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
        this.reports.setStatus("STOPPED", { reason: action.reason });
        return;
      case "failed":
        this.halt();
        await this.creds.flush();
        this.reports.setStatus("FAILED", { reason: action.reason, detail: action.detail });
        return;
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
}
