import { randomUUID } from "node:crypto";
import {
  type AccountInfo,
  ApiError,
  type Capping,
  deviceStillLinked,
  type EventKind,
  type ExistsResult,
  failure as failureOf,
  invalid,
  type OutboundContent,
  type PasskeyAssertion,
  type PasskeyChallenge,
  type PresenceState,
  parseMessageId,
  type SendOptions,
  type SendResult,
  type SessionOpHandlers,
  type StatusCause,
  type Timelock,
  UNREACHABLE_RE,
} from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import WebSocket from "ws";
import { backoffMs } from "../backoff.ts";
import type { AckStatus, Picture, ProviderContext, ProviderFactory, ProviderSession } from "../contract.ts";
import { sendInFlightLost } from "../in-flight.ts";
import { type SimAckFrame, SimAddressing } from "./addressing.ts";
import { simOps } from "./areas.ts";
import { simError } from "./errors.ts";
import { type SimMessageFrame, simInbound } from "./inbound.ts";
import { unlinkOnNetwork } from "./unlink.ts";

type Creds = { deviceId: string; secret: string };
type ServerFrame =
  | { type: "qr"; value: string }
  | { type: "paired"; creds: Creds; me: AccountInfo }
  | { type: "open"; me: AccountInfo }
  | { type: "response"; id: string; ok: true; result: unknown }
  | { type: "response"; id: string; ok: false; error: { code: string; message: string } }
  | { type: "close"; reason: string; message?: string }
  | { type: string; [k: string]: unknown };

const REQUEST_TIMEOUT_MS = 10_000;
/** How long a logout while not connected tries to reach the network to remove the device. */
const LOGOUT_TIMEOUT_MS = 5_000;
const ACK_STATUSES = new Set<string>(["sent", "delivered", "read", "played", "failed"]);
/** After this many `replaced` closes in a row, stop fighting: another client owns the device. */
const MAX_REPLACED = 3;

/**
 * The `sim` provider: one WebSocket to simnet per instance (docs/simnet.md), behaving like the
 * Baileys provider does on the real network — QR while unpaired, credentials in the fenced auth
 * state, reconnection with backoff on lost connections, logout on `logged_out`.
 */
export function createSimProvider(simnetUrl: string): ProviderFactory {
  return (ctx) => new SimSession(ctx, `${simnetUrl.replace(/\/$/, "")}/ws`);
}

class SimSession implements ProviderSession {
  readonly provider = "sim" as const;
  private ws: WebSocket | null = null;
  private qr: string | null = null;
  private open = false;
  private wanted = false;
  private attempt = 0;
  private replaced = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by every teardown: a connect that awaited across one gives up. */
  private generation = 0;
  private me: AccountInfo | null = null;
  /** The reason of simnet's last `close` frame (before the socket closes). */
  private closeReason: string | null = null;
  private readonly pending = new Map<
    string,
    { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout; op: string; args: unknown }
  >();

  readonly ops: SessionOpHandlers;
  /** Handlers of the feature areas' own simnet frames (providers/sim/areas.ts). */
  private readonly frameHandlers = new Map<string, (frame: Record<string, unknown>) => void | Promise<void>>();
  private eventChain: Promise<void> = Promise.resolve();
  private readonly openHandlers: ((me: AccountInfo) => void | Promise<void>)[] = [];
  private readonly eventTransforms = new Map<
    string,
    (payload: Record<string, unknown>) => Promise<Record<string, unknown>>
  >();
  /** Which address each conversation takes, and one retry on the other when refused (addressing.ts). */
  private readonly addressing: SimAddressing;
  /** Acks one at a time: a retry's lookup must not let a later ack overtake. */
  private ackChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ProviderContext,
    private readonly url: string,
  ) {
    this.addressing = new SimAddressing(ctx);
    this.ops = simOps({
      request: (op, args, errors) =>
        this.request(op, args).catch((err: unknown) => {
          const own = errors?.[(err as { simCode?: string }).simCode ?? ""];
          throw own ? own() : err;
        }),
      ctx,
      onFrame: (type, handler) => this.frameHandlers.set(type, handler),
      onEvent: (kind, transform) => this.eventTransforms.set(kind, transform),
      onOpen: (handler) => this.openHandlers.push(handler),
    });
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

  async requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string> {
    const { code } = (await this.request("pairing-code", { phone, method })) as { code: string };
    return code;
  }

  passkeyChallenge(): Promise<PasskeyChallenge> {
    return this.request("passkey-challenge", {}) as Promise<PasskeyChallenge>;
  }

  async submitPasskey(assertion: PasskeyAssertion): Promise<void> {
    await this.request("passkey", assertion);
  }

  passkeyConfirmation(): Promise<{ code: string }> {
    return this.request("passkey-confirmation", {}) as Promise<{ code: string }>;
  }

  async confirmPasskey(): Promise<void> {
    await this.request("passkey-confirm", {});
  }

  async account(): Promise<AccountInfo> {
    if (!this.open) throw this.notOpen();
    return (await this.request("me", {})) as AccountInfo;
  }

  capping(): Promise<Capping> {
    return this.request("capping", {}) as Promise<Capping>;
  }

  timelock(): Promise<Timelock> {
    return this.request("timelock", {}) as Promise<Timelock>;
  }

  async send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    const { quotedId, id, forwarded, status } = options; // derivedId and quotedApiId are ours, not the network's
    let mentions = options.mentions;
    if (mentions?.includes("all")) {
      // `["all"]` (spec 4.4): every participant of the group, as the network wants them listed.
      if (!chatId.endsWith("@g.us")) {
        throw invalid("mentions", '"all" só vale em grupos');
      }
      const group = (await this.request("group-metadata", { groupId: chatId })) as { participants: { id: string }[] };
      mentions = group.participants.map((p) => p.id);
    }
    // A status audience by LID where known; a person where the conversation is (addressing.ts).
    const audience = status ? await this.addressing.audience(status.audience) : undefined;
    const to = await this.addressing.destination(chatId);
    // Fields left undefined are left out of the frame by JSON.stringify.
    const args = {
      message: content,
      quotedId,
      mentions,
      forwarded,
      status: status && audience ? { ...status, audience } : status, // a status post's audience and style (spec 4.8)
    };
    const sent = (await this.request("send", { ...args, to, id })) as SendResult;
    this.addressing.track(sent.id, to, args);
    // The number's form when either id is one (spec 1 rule 3).
    return sent.chatId.endsWith("@c.us") || !chatId.trim().endsWith("@c.us")
      ? sent
      : { ...sent, chatId: chatId.trim() };
  }

  checkExists(phone: string): Promise<ExistsResult> {
    // The pair it reveals is learnt by the manager (identity), where addressing.ts finds it.
    return this.request("check-exists", { phone }) as Promise<ExistsResult>;
  }

  async markRead(chatId: string, messageIds: string[]): Promise<void> {
    // API ids (`{fromMe}_{chatId}_{id}`) or bare network ids: simnet knows the network's. A
    // group's receipt names the sender, so a bare id is refused there, as the Baileys provider
    // refuses it (the real network needs the participant).
    const ids = messageIds.map((v) => {
      const parsed = parseMessageId(v);
      if (parsed) return parsed.id;
      if (chatId.endsWith("@g.us")) {
        throw invalid(
          "messageIds",
          "em grupos, use o id completo {fromMe}_{chatId}_{id}_{participant}",
          "Em grupos, use o id completo da mensagem (com o participante).",
        );
      }
      return v;
    });
    if (ids.length > 0) await this.request("read", { ids });
  }

  async chatTitle(chatId: string): Promise<string | null> {
    if (!chatId.endsWith("@g.us")) return null;
    const group = (await this.request("group-metadata", { groupId: chatId })) as { subject?: string };
    return group.subject ?? null;
  }

  async picture(chatId: string): Promise<Picture | null> {
    const r = (await this.request("picture", { chatId })) as { picture: Picture | null };
    return r.picture;
  }

  async presence(state: PresenceState, chatId?: string): Promise<void> {
    await this.request("presence", { state, ...(chatId ? { to: chatId } : {}) });
  }

  /** An ack: a refusal goes once more to the contact's other address before it is reported (addressing.ts). */
  private async onAck(f: SimAckFrame): Promise<void> {
    const id = String(f.id);
    const error = await this.addressing.onAck(f, async (to, args) => {
      await this.request("send", { ...args, to, id });
    });
    if (error === "retried") return;
    this.ctx.emit({
      type: "ack",
      id,
      chatId: String(f.chatId),
      status: f.status as AckStatus,
      timestamp: Number(f.timestamp),
      ...(error !== undefined ? { error } : {}),
    });
  }

  // --- connection -------------------------------------------------------------------------

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
      this.failPending(failureOf("connection_closed", "Conexão com a rede perdida."));
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
        this.me = f.me;
        this.ctx.emit({ type: "account", account: f.me });
        return;
      }
      case "open": {
        const f = frame as { me: AccountInfo };
        this.open = true;
        this.qr = null;
        this.attempt = 0;
        this.replaced = 0;
        this.me = f.me;
        this.ctx.emit({ type: "account", account: f.me });
        this.ctx.emit({ type: "status", status: "WORKING" });
        // The areas' work of a new connection (presence applied again), without holding up the frames.
        for (const handler of this.openHandlers) {
          void Promise.resolve()
            .then(() => handler(f.me))
            .catch((err) => this.onError(err));
        }
        return;
      }
      case "response": {
        const f = frame as { id: string; ok: boolean; result?: unknown; error?: { code: string; message: string } };
        const p = this.pending.get(f.id);
        if (!p) return;
        this.pending.delete(f.id);
        clearTimeout(p.timer);
        if (f.ok) p.resolve(f.result);
        else {
          if (f.error?.message) this.ctx.log.debug({ op: p.op, error: f.error }, "simnet refused");
          // The simnet code stays on the error: an area may map it its own way (areas.ts).
          p.reject(Object.assign(simError(p.op, p.args, f.error?.code), { simCode: f.error?.code }));
        }
        return;
      }
      case "message": {
        const f = frame as unknown as SimMessageFrame;
        this.addressing
          .learn(f)
          .catch((err) => this.ctx.log.debug({ err }, "keeping a conversation's addressing failed"));
        this.ctx.emit({ type: "message", message: simInbound(f) });
        return;
      }
      case "ack": {
        const f = frame as unknown as SimAckFrame;
        if (!ACK_STATUSES.has(f.status)) return;
        this.ackChain = this.ackChain.then(() => this.onAck(f)).catch((err) => this.onError(err));
        return;
      }
      case "close":
        return this.onClose(String((frame as { reason: string }).reason));
      case "event": {
        // A spec 6.2 event simnet already shaped (labels, presence, groups, calls, …).
        const f = frame as { kind?: EventKind; payload?: Record<string, unknown> };
        const { kind, payload } = f;
        if (!kind || !payload) return;
        const transform = this.eventTransforms.get(kind);
        // One after the other: a reshaping that waits (a Redis lookup) must not reorder events.
        this.eventChain = this.eventChain
          .then(async () =>
            this.ctx.emit({ type: "event", kind, payload: transform ? await transform(payload) : payload }),
          )
          .catch((err) => this.onError(err));
        return;
      }
      default:
        await this.frameHandlers.get(frame.type)?.(frame as Record<string, unknown>);
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

  private onError(err: unknown): void {
    if (err instanceof StaleLeaseError) {
      this.wanted = false;
      this.teardown();
      return;
    }
    this.ctx.log.warn({ err }, "sim session error");
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
    this.failPending(new ApiError("instance_not_connected", "A conexão foi encerrada."));
  }

  private failPending(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      // A send already written to the socket may have reached the network: unknown, not refused.
      p.reject(p.op === "send" ? sendInFlightLost() : err);
      this.pending.delete(id);
    }
  }

  /** Not connected: reconnecting (transient, 503) while it is wanted, else stopped (422). */
  private notOpen(): ApiError {
    return this.wanted
      ? failureOf("reconnecting", "A instância está reconectando à rede; tente de novo.")
      : failureOf("not_connected", "A instância não está conectada à rede.");
  }

  private request(op: string, args: unknown): Promise<unknown> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(this.notOpen());
    }
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError("network_timeout"));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, op, args });
      ws.send(JSON.stringify({ type: "request", id, op, args }));
    });
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
