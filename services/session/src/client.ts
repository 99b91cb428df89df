import { request as httpRequest } from "node:http";
import type { Socket } from "node:net";
import { ApiError, ERROR_STATUS, type ErrorCode } from "@gw/contracts";
import { currentTraceparent, inSpan, SpanKind, tracingEnabled } from "@gw/platform/telemetry";
import { Pool } from "undici";
import {
  type AnswerFrame,
  BULKY_ANSWERS,
  CHANNEL_MAX_INPUT,
  CHANNEL_PATH,
  CHANNEL_PROTOCOL,
  FrameWriter,
  readFrames,
} from "./channel.ts";
import type { SessionApi } from "./manager.ts";
import { NotHeldHere } from "./not-held.ts";

export const INTERNAL_SECRET_HEADER = "x-internal-secret";

/**
 * The client of a session pod, shaped as {@link SessionApi}. Calls go over the pod's
 * multiplexed channel (channel.ts); inputs above {@link CHANNEL_MAX_INPUT} (media sent inline),
 * answers that carry bytes ({@link BULKY_ANSWERS}) and every call while the channel cannot be
 * opened go as `POST /rpc/<op>` over a keep-alive
 * undici pool. Either way a call that loses its connection fails with `network_unavailable`.
 */
export function createSessionClient(url: string, secret: string): SessionApi {
  const base = url.replace(/\/$/, "");
  const pool = new Pool(base, { connections: 64, keepAliveTimeout: 30_000 });
  const headers = { "content-type": "application/json", [INTERNAL_SECRET_HEADER]: secret };
  const channel = new Channel(base, secret);
  const overHttp = async (
    op: string,
    body: string,
    traceparent?: string,
  ): Promise<{ status: number; body: unknown }> => {
    try {
      const res = await pool.request({
        path: `/rpc/${op}`,
        method: "POST",
        headers: traceparent ? { ...headers, traceparent } : headers,
        body,
        headersTimeout: CALL_TIMEOUT_MS,
        bodyTimeout: CALL_TIMEOUT_MS,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : {} };
    } catch (err) {
      // Refused: the call never reached a pod (one that exited after handing its instances
      // over), nothing was done; the gateway asks the instance's owner again (directory.ts).
      if ((err as { code?: string }).code === "ECONNREFUSED") throw new NotHeldHere();
      throw unavailable();
    }
  };
  // Traced as a client span whose `traceparent` the pod continues (role.ts); with tracing off,
  // straight to the pod with no trace context (the hop of every send: nothing allocated for it).
  const call = <T>(op: string, input: unknown): Promise<T> =>
    tracingEnabled()
      ? inSpan(
          `session ${op}`,
          { kind: SpanKind.CLIENT, attributes: { "rpc.system": "gw-rpc", "rpc.method": op } },
          () => callPod<T>(op, input),
        )
      : callPod<T>(op, input);
  const callPod = async <T>(op: string, input: unknown): Promise<T> => {
    const json = JSON.stringify(input);
    const traceparent = currentTraceparent();
    const answer =
      (json.length <= CHANNEL_MAX_INPUT && !BULKY_ANSWERS.has(op) && channel.usable()
        ? await channel.call(op, json, traceparent)
        : null) ?? (await overHttp(op, json, traceparent));
    const body = answer.body as { result?: T } & Partial<RpcErrorBody>;
    if (answer.status === 200) return body.result as T;
    if (body.notHeld) throw new NotHeldHere();
    const api = body.api;
    if (api && api.code in ERROR_STATUS) {
      throw new ApiError(api.code as ErrorCode, api.message, api.details, api.retryAfter);
    }
    throw unavailable();
  };
  return {
    stop: (instanceId) => call("stop", { instanceId }),
    restart: (instanceId) => call("restart", { instanceId }),
    logout: (instanceId) => call("logout", { instanceId }),
    qr: (instanceId) => call("qr", { instanceId }),
    pairingCode: (instanceId, phone, method) => call("pairingCode", { instanceId, phone, method }),
    passkeyChallenge: (instanceId) => call("passkeyChallenge", { instanceId }),
    submitPasskey: (instanceId, assertion) => call("submitPasskey", { instanceId, assertion }),
    passkeyConfirmation: (instanceId) => call("passkeyConfirmation", { instanceId }),
    confirmPasskey: (instanceId) => call("confirmPasskey", { instanceId }),
    account: (instanceId) => call("account", { instanceId }),
    capping: (instanceId) => call("capping", { instanceId }),
    timelock: (instanceId) => call("timelock", { instanceId }),
    send: (instanceId, chatId, content, options) => call("send", { instanceId, chatId, content, options }),
    checkExists: (instanceId, phone) => call("checkExists", { instanceId, phone }),
    markRead: (instanceId, chatId, messageIds) => call("markRead", { instanceId, chatId, messageIds }),
    presence: (instanceId, state, chatId) => call("presence", { instanceId, state, chatId }),
    picture: (instanceId, chatId) => call("picture", { instanceId, chatId }),
    downloadMedia: (instanceId, networkId) => call("downloadMedia", { instanceId, networkId }),
    op: (instanceId, name, input) => call("op", { instanceId, name, input }),
  };
}

/** Longer than any operation a pod runs for a caller (a send waits up to 10 s for the network). */
const CALL_TIMEOUT_MS = 60_000;
/** After the channel could not be opened, calls go over HTTP this long before it is tried again. */
const CHANNEL_RETRY_MS = 5_000;

const unavailable = () =>
  new ApiError("network_unavailable", "Servidor da sessão indisponível; tente de novo.", undefined, 1);

interface Pending {
  resolve: (answer: { status: number; body: unknown }) => void;
  reject: (err: unknown) => void;
  at: number;
}

/** One pod's channel: opened on first use, reopened on the next call after it closes. */
class Channel {
  private socket: Socket | undefined;
  private writer: FrameWriter | undefined;
  private opening: Promise<void> | undefined;
  private failedAt = 0;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly base: string,
    private readonly secret: string,
  ) {}

  /** False for a while after an attempt to open it failed (an older pod, a proxy in between). */
  usable(): boolean {
    return Date.now() - this.failedAt > CHANNEL_RETRY_MS;
  }

  /** The answer, or null when the channel cannot be opened now (the caller goes over HTTP). */
  async call(op: string, inputJson: string, traceparent?: string): Promise<{ status: number; body: unknown } | null> {
    if (!this.writer) {
      this.opening ??= this.open().finally(() => {
        this.opening = undefined;
      });
      await this.opening;
    }
    const writer = this.writer;
    if (!writer) return null;
    const i = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(i, { resolve, reject, at: Date.now() });
      const t = traceparent ? `,"t":${JSON.stringify(traceparent)}` : "";
      writer.send(`{"i":${i},"op":${JSON.stringify(op)}${t},"input":${inputJson}}`);
    });
  }

  private open(): Promise<void> {
    const target = new URL(this.base);
    return new Promise<void>((resolve) => {
      const req = httpRequest({
        host: target.hostname,
        port: target.port,
        path: CHANNEL_PATH,
        agent: false,
        headers: { connection: "Upgrade", upgrade: CHANNEL_PROTOCOL, [INTERNAL_SECRET_HEADER]: this.secret },
      });
      const fail = () => {
        this.failedAt = Date.now();
        resolve();
      };
      req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy());
      req.on("error", fail);
      req.on("response", (res) => {
        res.resume();
        fail();
      });
      req.on("upgrade", (_res, socket, head) => {
        req.setTimeout(0);
        socket.setNoDelay(true);
        socket.setTimeout(0);
        this.socket = socket;
        this.writer = new FrameWriter(socket);
        readFrames(socket, head, (frame) => this.answer(frame as AnswerFrame));
        const closed = () => this.closed(socket);
        socket.on("close", closed);
        socket.on("error", closed);
        this.sweeper ??= setInterval(() => this.sweep(), CALL_TIMEOUT_MS / 4).unref();
        resolve();
      });
      req.end();
    });
  }

  private answer(frame: AnswerFrame): void {
    const p = this.pending.get(frame.i);
    if (!p) return;
    this.pending.delete(frame.i);
    p.resolve({ status: frame.s, body: frame.b });
  }

  /** The connection is gone: its calls fail (the pod may or may not have done them). */
  private closed(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.writer = undefined;
    for (const p of this.pending.values()) p.reject(unavailable());
    this.pending.clear();
  }

  /** Calls older than the call timeout fail, as their HTTP form would. */
  private sweep(): void {
    const limit = Date.now() - CALL_TIMEOUT_MS;
    for (const [i, p] of this.pending) {
      if (p.at < limit) {
        this.pending.delete(i);
        p.reject(unavailable());
      }
    }
  }
}

type RemoteError = { code: string; message: string; details?: Record<string, string>; retryAfter?: number };
/** A failed call's answer: the public error, and whether the pod does not hold the instance ({@link NotHeldHere}). */
export type RpcErrorBody = { api: RemoteError; notHeld?: true };
