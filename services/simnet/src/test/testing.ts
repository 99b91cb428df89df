// Helpers for tests that talk to simnet: a protocol client (a stand-in pod) and a control API client.
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import WebSocket from "ws";
import type { SimnetOptions } from "../config.ts";
import { createSimnet, type MessageContent, type Simnet } from "../index.ts";
import { type HelloFrame, type ServerFrame, serverFrameSchema } from "../wire/protocol.ts";

type FrameOf<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
type ResponseFrame = FrameOf<"response">;

export class SimRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

interface Waiter {
  match: (f: ServerFrame) => boolean;
  resolve: (f: ServerFrame) => void;
}

/** One WebSocket connection to simnet, as a session pod would hold it. */
export class SimClient {
  /** Every frame received, in order (responses included). */
  readonly received: ServerFrame[] = [];
  /** Frames that did not match `serverFrameSchema` (the contract): tests expect none. */
  readonly violations: string[] = [];
  private readonly buffer: ServerFrame[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly pending = new Map<string, (f: ResponseFrame) => void>();
  private nextId = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.onFrame(JSON.parse(data.toString()) as ServerFrame));
    this.closed = new Promise((resolve) =>
      ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens the socket (`<baseUrl>/ws`) and, unless `hello` is false, sends `hello`. */
  static async connect(baseUrl: string, hello: Partial<HelloFrame> | false = {}): Promise<SimClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const client = new SimClient(ws);
    if (hello !== false) client.send({ type: "hello", instanceId: "itest", pod: "pod-test", creds: null, ...hello });
    return client;
  }

  private onFrame(frame: ServerFrame): void {
    const checked = serverFrameSchema.safeParse(frame);
    if (!checked.success) this.violations.push(`${JSON.stringify(frame).slice(0, 300)}: ${checked.error.message}`);
    this.received.push(frame);
    if (frame.type === "response") {
      const done = this.pending.get(String(frame.id));
      if (done) {
        this.pending.delete(String(frame.id));
        done(frame);
        return;
      }
    }
    const i = this.waiters.findIndex((w) => w.match(frame));
    if (i >= 0) {
      const [w] = this.waiters.splice(i, 1);
      w?.resolve(frame);
      return;
    }
    this.buffer.push(frame);
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The next frame of that type (and matching `where`) not consumed yet. */
  next<T extends ServerFrame["type"]>(
    type: T,
    where: (f: FrameOf<T>) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<FrameOf<T>> {
    const match = (f: ServerFrame): boolean => f.type === type && where(f as FrameOf<T>);
    const i = this.buffer.findIndex(match);
    if (i >= 0) return Promise.resolve(this.buffer.splice(i, 1)[0] as FrameOf<T>);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f as FrameOf<T>);
        },
      };
      const timer = setTimeout(() => {
        const j = this.waiters.indexOf(waiter);
        if (j >= 0) this.waiters.splice(j, 1);
        reject(new Error(`no ${type} frame within ${timeoutMs} ms; got ${JSON.stringify(this.received.slice(-5))}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Frames of that type received and not consumed, without waiting. */
  take<T extends ServerFrame["type"]>(type: T): FrameOf<T>[] {
    const out: FrameOf<T>[] = [];
    for (let i = 0; i < this.buffer.length; ) {
      const f = this.buffer[i];
      if (f?.type === type) {
        out.push(f as FrameOf<T>);
        this.buffer.splice(i, 1);
      } else i++;
    }
    return out;
  }

  requestRaw(op: string, args: unknown = {}, timeoutMs = 5_000): Promise<ResponseFrame> {
    const id = `r${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no response to ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (f) => {
        clearTimeout(timer);
        resolve(f);
      });
      this.send({ type: "request", id, op, args });
    });
  }

  /** The result, or a `SimRequestError` with the error code. */
  async request<R = Record<string, unknown>>(op: string, args: unknown = {}, timeoutMs?: number): Promise<R> {
    const res = await this.requestRaw(op, args, timeoutMs);
    if (!res.ok) throw new SimRequestError(res.error?.code ?? "unknown", res.error?.message ?? "");
    return res.result as R;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close();
    await this.closed;
  }
}

export interface ControlResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** The control API over HTTP with the admin token. */
export function controlClient(baseUrl: string, token: string) {
  const call = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    json?: unknown,
  ): Promise<ControlResponse<T>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  };
  return {
    call,
    get: <T = Record<string, unknown>>(path: string) => call<T>("GET", path),
    post: <T = Record<string, unknown>>(path: string, json?: unknown) => call<T>("POST", path, json ?? {}),
    put: <T = Record<string, unknown>>(path: string, json?: unknown) => call<T>("PUT", path, json ?? {}),
    patch: <T = Record<string, unknown>>(path: string, json?: unknown) => call<T>("PATCH", path, json ?? {}),
  };
}
export type ControlClient = ReturnType<typeof controlClient>;

/**
 * A new connection paired to `phone` by scanning its QR: resolves once `open` arrived, with the
 * creds to reconnect.
 */
export async function pairByQr(
  baseUrl: string,
  control: ControlClient,
  phone: string,
  hello: Partial<HelloFrame> = {},
  pushName?: string,
) {
  const client = await SimClient.connect(baseUrl, { creds: null, ...hello });
  const qr = await client.next("qr");
  const scan = await control.post(`/simnet/phones/${phone}/scan`, { qr: qr.value, ...(pushName ? { pushName } : {}) });
  if (scan.status !== 200) throw new Error(`scan failed: ${scan.status} ${JSON.stringify(scan.body)}`);
  const paired = await client.next("paired");
  const open = await client.next("open");
  return { client, creds: paired.creds, me: open.me };
}

/**
 * One simnet per test file: listening before the tests, every client closed (and checked for
 * protocol violations) and the network reset after each test, closed at the end.
 */
export function useSimnet(options: Omit<SimnetOptions, "adminToken" | "port">) {
  const token = "simnet-test-token";
  const clients: SimClient[] = [];
  const net = {
    token,
    sim: undefined as unknown as Simnet,
    url: "",
    control: undefined as unknown as ControlClient,
    async connect(hello: Parameters<typeof SimClient.connect>[1] = {}) {
      const c = await SimClient.connect(net.url, hello);
      clients.push(c);
      return c;
    },
    async pair(phone: string, instanceId = "i1", pushName?: string) {
      const out = await pairByQr(net.url, net.control, phone, { instanceId }, pushName);
      clients.push(out.client);
      return out;
    },
  };
  beforeAll(async () => {
    net.sim = createSimnet({ port: 0, adminToken: token, logLevel: "silent", ...options });
    net.url = await net.sim.listen();
    net.control = controlClient(net.url, token);
  });
  afterEach(async () => {
    const done = clients.splice(0);
    await Promise.all(done.map((c) => c.close()));
    expect(done.flatMap((c) => c.violations)).toEqual([]);
    await net.control.post("/simnet/reset");
  });
  afterAll(() => net.sim.close());
  return net;
}

/** A text message's content. */
export const text = (t: string): MessageContent => ({ type: "text", text: t });
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** What a device's send answers. */
export type SendResult = { id: string; timestamp: number; chatId: string };

/** The statuses of the next `n` acks of message `id`. */
export async function acks(client: SimClient, id: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await client.next("ack", (f) => f.id === id)).status);
  return out;
}
