// Clients of the live event streams for test/e2e/streams*.test.ts (docs/streams.md): an SSE client
// over fetch, raw sockets that stop reading (slow consumers), and publishing through the platform.
import { randomBytes } from "node:crypto";
import { type ClientRequest, get as httpGet, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import type { EventEnvelope, EventKind } from "@gw/contracts";
import type { Platform } from "@gw/platform";

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Parses SSE text into events and comments; answers what is left of an unfinished block. */
function parseBlocks(text: string, events: SseEvent[], comments: string[]): string {
  let rest = text;
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const ev: SseEvent = { data: "" };
    let isEvent = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      else if (line.startsWith("id: ")) ev.id = line.slice(4);
      else if (line.startsWith("event: ")) ev.event = line.slice(7);
      else if (line.startsWith("data: ")) {
        ev.data = line.slice(6);
        isEvent = true;
      }
    }
    if (isEvent) events.push(ev);
  }
  return rest;
}

/**
 * An SSE connection read as it comes. Through node:http with a connection of its own (fetch's
 * pool opens a fresh idle connection for each aborted request, which a closing server then waits
 * for). Non-200 answers keep their JSON body in `errorBody`.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;
  errorBody: unknown;

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly req: ClientRequest,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = httpGet(url, { headers, agent: false }, (res) => {
        const client = new SseClient(res.statusCode ?? 0, res.headers, req);
        const decoder = new TextDecoder();
        let pending = "";
        const parts: string[] = [];
        res.on("data", (chunk: Buffer) => {
          if (client.status !== 200) return void parts.push(chunk.toString());
          pending = parseBlocks(pending + decoder.decode(chunk, { stream: true }), client.events, client.comments);
        });
        const done = () => {
          client.ended = true;
          if (client.status !== 200) client.errorBody = JSON.parse(parts.join("") || "null");
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", () => {});
        if (client.status === 200) resolve(client);
        else res.on("end", () => resolve(client));
      });
      req.on("error", reject);
    });
  }

  /** The envelopes received, in order (SSE `data:`), leaving out control events such as `overflow`. */
  envelopes(): EventEnvelope[] {
    return this.events.filter((e) => e.event !== "overflow").map((e) => JSON.parse(e.data) as EventEnvelope);
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<EventEnvelope[]> {
    await until(() => this.events.length >= count, `${count} SSE events (got ${this.events.length})`, timeoutMs);
    return this.envelopes();
  }

  async waitEnded(timeoutMs = 10_000): Promise<void> {
    await until(() => this.ended, "the SSE stream to end", timeoutMs);
  }

  close(): void {
    this.req.destroy();
  }
}

export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A client that sends its request and then reads nothing (a paused socket): the server's buffers
 * fill as they would for a client on a slow link. `readAll()` reads what the server sent, until it closed.
 */
export class StalledClient {
  private readonly socket: Socket;
  private constructor(socket: Socket) {
    this.socket = socket;
  }

  /** `GET path` as HTTP/1.0 (no chunked encoding: the body is the raw stream); `ws`: as a WebSocket upgrade. */
  static async open(
    baseUrl: string,
    path: string,
    headers: Record<string, string>,
    ws = false,
  ): Promise<StalledClient> {
    const url = new URL(baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const lines = ws
      ? [
          `GET ${path} HTTP/1.1`,
          `Host: ${url.host}`,
          "Upgrade: websocket",
          "Connection: Upgrade",
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
          "Sec-WebSocket-Version: 13",
        ]
      : [`GET ${path} HTTP/1.0`, `Host: ${url.host}`, "Accept: text/event-stream"];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    socket.pause();
    return new StalledClient(socket);
  }

  /**
   * Starts reading: everything the server sent, once it closed the connection (or, with `done`,
   * once what came satisfies it: a WebSocket's close frame, which the server follows by waiting
   * for ours).
   */
  readAll(timeoutMs = 30_000, done?: (sofar: Buffer) => boolean): Promise<Buffer> {
    const parts: Buffer[] = [];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the server did not close the connection")), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.socket.destroy();
        resolve(Buffer.concat(parts));
      };
      this.socket.on("data", (c: Buffer) => {
        parts.push(c);
        if (done?.(Buffer.concat(parts))) finish();
      });
      this.socket.once("close", finish);
      this.socket.resume();
    });
  }

  /** {@link readAll} of a WebSocket: until its close frame. */
  readWs(timeoutMs = 30_000): Promise<Buffer> {
    return this.readAll(timeoutMs, (sofar) => wsFramesOf(sofar).close !== undefined);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The SSE events of a raw HTTP/1.0 answer (headers, blank line, the stream). */
export function sseOf(raw: Buffer): { status: number; events: SseEvent[] } {
  const text = raw.toString("utf8");
  const head = text.indexOf("\r\n\r\n");
  const events: SseEvent[] = [];
  parseBlocks(text.slice(head + 4), events, []);
  return { status: Number(text.slice(9, 12)), events };
}

/** The text frames and the close frame of a raw WebSocket answer (the 101, then server frames: unmasked). */
export function wsFramesOf(raw: Buffer): { status: number; texts: string[]; close?: { code: number; reason: string } } {
  const head = raw.indexOf("\r\n\r\n");
  const status = Number(raw.subarray(9, 12).toString());
  const texts: string[] = [];
  let close: { code: number; reason: string } | undefined;
  let at = head + 4;
  while (at + 2 <= raw.length) {
    const opcode = raw[at]! & 0x0f;
    let len = raw[at + 1]! & 0x7f;
    let start = at + 2;
    if (len === 126) {
      len = raw.readUInt16BE(at + 2);
      start = at + 4;
    } else if (len === 127) {
      len = Number(raw.readBigUInt64BE(at + 2));
      start = at + 10;
    }
    if (start + len > raw.length) break;
    const payload = raw.subarray(start, start + len);
    if (opcode === 1) texts.push(payload.toString("utf8"));
    if (opcode === 8) close = { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString("utf8") };
    at = start + len;
  }
  return { status, texts, ...(close ? { close } : {}) };
}

/** Publishes through the platform, as the session pods and the queue do; answers the envelope. */
export async function publish(
  platform: Platform,
  instanceId: string,
  kind: EventKind,
  payload: Record<string, unknown> = {},
): Promise<EventEnvelope> {
  const instance = await platform.instances.get(instanceId);
  if (!instance) throw new Error(`no instance ${instanceId}`);
  const env = await platform.events.publish(instance, kind, payload);
  if (!env) throw new Error("event not published");
  return env;
}
