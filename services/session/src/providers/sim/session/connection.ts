import {
  type AccountInfo,
  ApiError,
  deviceStillLinked,
  failure as failureOf,
  type StatusCause,
  UNREACHABLE_RE,
} from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import WebSocket from "ws";
import { backoffMs } from "../../backoff.ts";
import type { ProviderContext } from "../../contract.ts";
import { unlinkOnNetwork } from "../unlink.ts";
import { SimRequests, type SimResponseFrame } from "./requests.ts";

/**
 * The sim session's connection to simnet and its pairing (docs/simnet.md): one WebSocket per
 * instance, `hello` with the credentials of the fenced auth state, QR while unpaired and the
 * credentials kept once paired, reconnection with backoff on a lost connection (each try written
 * with its cause), and what simnet's `close` reasons mean (logged out, replaced, QR expired).
 * Logout too: on the open connection, or on one of its own when not connected (unlink.ts).
 *
 * The frames that are the connection's own (`qr`, `paired`, `open`, `response`, `close`) are
 * handled here; every other frame (messages, acks, events, the areas' notifications) goes to
 * `onTraffic` (frames.ts).
 */

type Creds = { deviceId: string; secret: string };
export type ServerFrame =
  | { type: "qr"; value: string }
  | { type: "paired"; creds: Creds; me: AccountInfo }
  | { type: "open"; me: AccountInfo }
  | { type: "response"; id: string; ok: true; result: unknown }
  | { type: "response"; id: string; ok: false; error: { code: string; message: string } }
  | { type: "close"; reason: string; message?: string }
  | { type: string; [k: string]: unknown };

/** How long a logout while not connected tries to reach the network to remove the device. */
const LOGOUT_TIMEOUT_MS = 5_000;
/** After this many `replaced` closes in a row, stop fighting: another client owns the device. */
const MAX_REPLACED = 3;

export interface SimConnectionHooks {
  /** A frame that is not the connection's own (frames.ts). */
  onTraffic(frame: ServerFrame): void | Promise<void>;
  /** The connection opened (after pairing or a reconnection), with the account. */
  onOpen(me: AccountInfo): void;
}

export class SimConnection {
  private ws: WebSocket | null = null;
  private qr: string | null = null;
  private open = false;
  private wanted = false;
  private attempt = 0;
  private replaced = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by every teardown: a connect that awaited across one gives up. */
  private generation = 0;
  /** The reason of simnet's last `close` frame (before the socket closes). */
  private closeReason: string | null = null;
  /** The requests waiting on this connection's socket. */
  readonly requests: SimRequests;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly url: string,
    private readonly hooks: SimConnectionHooks,
  ) {
    this.requests = new SimRequests(
      ctx.log,
      () => this.ws,
      () => this.notOpen(),
    );
  }

  get isOpen(): boolean {
    return this.open;
  }

  async start(): Promise<void> {
    this.wanted = true;
    this.ctx.emit({ type: "status", status: "STARTING" });
    await this.connect();
  }

  async stop(): Promise<void> {
    this.wanted = false;
    this.teardown();
  }

  async logout(): Promise<void> {
    this.wanted = false; // the `close logged_out` that answers is ours, not news
    if (this.ws && this.open) {
      const closed = new Promise<void>((resolve) => this.ws?.once("close", () => resolve()));
      this.ws.send(JSON.stringify({ type: "logout" }));
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2_000))]);
    } else {
      // Not connected: a connection of its own removes the device on the phone (unlink.ts).
      this.teardown();
      const raw = await this.ctx.auth.readCreds();
      const why = raw ? await unlinkOnNetwork(this.url, this.ctx, JSON.parse(raw), LOGOUT_TIMEOUT_MS) : null;
      if (why) {
        this.ctx.log.warn({ why }, "logout: the device could not be removed on the network; wiped here only");
        this.ctx.emit({ type: "status", status: "STOPPED", cause: deviceStillLinked(why) });
      }
    }
    this.wanted = false;
    this.teardown();
    await this.ctx.auth.clear();
  }

  currentQr(): string | null {
    return this.open ? null : this.qr;
  }

  /** Not connected: reconnecting (transient, 503) while it is wanted, else stopped (422). */
  notOpen(): ApiError {
    return this.wanted
      ? failureOf("reconnecting", "A instância está reconectando à rede; tente de novo.")
      : failureOf("not_connected", "A instância não está conectada à rede.");
  }

  /** An error of the session's work: a lost lease ends the connection for good, others are logged. */
  onError(err: unknown): void {
    if (err instanceof StaleLeaseError) {
      this.wanted = false;
      this.teardown();
      return;
    }
    this.ctx.log.warn({ err }, "sim session error");
  }

  private async connect(): Promise<void> {
    this.teardown();
    if (!this.wanted) return;
    const generation = this.generation;
    const raw = await this.ctx.auth.readCreds();
    // Stopped, or another connect started, while the credentials were read: this one is stale.
    if (!this.wanted || generation !== this.generation) return;
    const creds = raw ? (JSON.parse(raw) as Creds) : null;
    // The instance in the URL: simnet can cut one instance off the network (its `unreachable` fault).
    const ws = new WebSocket(`${this.url}?instance=${encodeURIComponent(this.ctx.instance.id)}`, {
      handshakeTimeout: 5_000,
    });
    this.ws = ws;
    /** Why the socket failed before it closed: what the status's `detail` says. */
    let failure: string | null = null;
    ws.on("open", () => {
      const { client } = this.ctx.instance.settings;
      ws.send(
        JSON.stringify({
          type: "hello",
          instanceId: this.ctx.instance.id,
          pod: this.ctx.podId,
          creds,
          deviceName: client.deviceName,
          browserName: client.browserName,
        }),
      );
    });
    ws.on("message", (data) => {
      if (this.ws !== ws) return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(data)) as ServerFrame;
      } catch {
        return;
      }
      this.onFrame(frame).catch((err) => this.onError(err));
    });
    ws.on("error", (err) => {
      failure = err.message; // followed by close
    });
    ws.on("close", () => {
      if (this.ws !== ws) return; // an old socket we already replaced
      this.ws = null;
      this.requests.failAll(failureOf("connection_closed", "Conexão com a rede perdida."));
      this.open = false;
      if (!this.wanted) return;
      const delay = backoffMs(this.attempt++);
      // Every try is written with its cause and next attempt (docs/lifecycle.md "Reasons").
      this.ctx.emit({ type: "status", status: "STARTING", cause: closeCause(this.closeReason, failure, delay) });
      this.closeReason = null;
      this.scheduleReconnect(delay);
    });
  }

  private async onFrame(frame: ServerFrame): Promise<void> {
    switch (frame.type) {
      case "qr": {
        this.qr = String((frame as { value: string }).value);
        this.ctx.emit({ type: "qr", value: this.qr });
        this.ctx.emit({ type: "status", status: "SCAN_QR_CODE" });
        return;
      }
      case "paired": {
        const f = frame as { creds: Creds; me: AccountInfo };
        // Persist before anything else: a lost credential after pairing means a new QR.
        await this.ctx.auth.writeCreds(JSON.stringify(f.creds));
        this.ctx.emit({ type: "account", account: f.me });
        return;
      }
      case "open": {
        const f = frame as { me: AccountInfo };
        this.open = true;
        this.qr = null;
        this.attempt = 0;
        this.replaced = 0;
        this.ctx.emit({ type: "account", account: f.me });
        this.ctx.emit({ type: "status", status: "WORKING" });
        this.hooks.onOpen(f.me);
        return;
      }
      case "response":
        this.requests.answer(frame as SimResponseFrame);
        return;
      case "close":
        return this.onClose(String((frame as { reason: string }).reason));
      default:
        await this.hooks.onTraffic(frame);
    }
  }

  private async onClose(reason: string): Promise<void> {
    this.closeReason = reason;
    if (!this.wanted) return;
    if (reason === "logged_out" || reason === "bad_credentials") {
      this.wanted = false;
      this.teardown();
      await this.ctx.auth.clear();
      this.ctx.emit({ type: "logged-out", reason });
      return;
    }
    if (reason === "replaced") {
      // Another client holds this device. Never loop: back off hard, give up after a few.
      if (++this.replaced >= MAX_REPLACED) {
        this.wanted = false;
        this.teardown();
        this.ctx.emit({ type: "status", status: "FAILED", cause: { reason: "replaced_by_another_connection" } });
        return;
      }
      this.attempt = Math.max(this.attempt, 6);
    }
    if (reason === "qr_timeout") {
      this.wanted = false;
      this.teardown();
      this.ctx.emit({ type: "status", status: "STOPPED", cause: { reason: "qr_expired" } });
    }
    // `outage` and others: the socket close that follows schedules the reconnection.
  }

  private scheduleReconnect(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().catch((err) => {
        this.onError(err);
        // Reading credentials failed (Redis unreachable): keep trying, never give up silently.
        if (this.wanted && !(err instanceof StaleLeaseError)) this.scheduleReconnect(backoffMs(this.attempt++));
      });
    }, ms);
  }

  private teardown(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    this.open = false;
    this.qr = null;
    if (ws) {
      ws.removeAllListeners("message");
      ws.on("error", () => {});
      ws.terminate();
    }
    this.requests.failAll(new ApiError("instance_not_connected", "A conexão foi encerrada."));
  }
}

/**
 * Why a connection ended, as the instance's reason (contracts status-reasons.ts): simnet's outage,
 * a socket that failed before it opened (unreachable: reset, refused, not resolved), or a drop.
 */
function closeCause(closeReason: string | null, failure: string | null, delayMs: number): StatusCause {
  const retryAt = Date.now() + delayMs;
  if (closeReason === "outage" || /\b503\b/.test(failure ?? "")) {
    return { reason: "network_unavailable", detail: failure ?? "the network is down (outage)", retryAt };
  }
  if (failure && UNREACHABLE_RE.test(failure)) return { reason: "network_unreachable", detail: failure, retryAt };
  return { reason: "connection_lost", detail: failure ?? closeReason ?? "the connection closed", retryAt };
}
