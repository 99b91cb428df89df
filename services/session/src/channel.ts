import type { Duplex } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/**
 * The gateway → session pod channel: one upgraded HTTP connection (`GET /rpc/channel`,
 * `Upgrade: gw-rpc`) that carries many calls at once as newline-delimited JSON. A call is
 * `{"i":n,"op":"send","input":{…}}` (plus `"t"`, its `traceparent`, while tracing), its answer `{"i":n,"s":status,"b":{result}|{api}}` (the
 * body of `POST /rpc/<op>`), in any order. Frames written in one turn of the event loop leave
 * in one socket write: under load, one syscall carries tens of calls where the HTTP hop paid
 * a request, a response and their parsing for each (the hop of every send, `pnpm bench send`).
 * JSON.stringify escapes newlines, so a frame is always one line.
 */
export const CHANNEL_PATH = "/rpc/channel";
export const CHANNEL_PROTOCOL = "gw-rpc";

/** Inputs above this go over plain HTTP: a large frame would hold up every call behind it. */
export const CHANNEL_MAX_INPUT = 64 * 1024;
/** Operations whose answers carry bytes (a picture, a message's media): always over HTTP. */
export const BULKY_ANSWERS: ReadonlySet<string> = new Set(["picture", "downloadMedia"]);
/** A line longer than this is not from a working peer: the connection is dropped. */
const MAX_LINE = 64 * 1024 * 1024;

export interface CallFrame {
  i: number;
  op: string;
  input: unknown;
  /** The caller's W3C `traceparent`, while tracing is on (the pod's span joins the caller's trace). */
  t?: string;
}
export interface AnswerFrame {
  i: number;
  s: number;
  b: unknown;
}

/** Queues frames and writes each turn's frames together. */
export class FrameWriter {
  private lines: string[] = [];
  private scheduled = false;

  constructor(private readonly socket: Duplex) {}

  /** `line` is one frame already serialized (no newline). */
  send(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const out = this.lines;
    this.lines = [];
    if (out.length > 0 && !this.socket.destroyed) this.socket.write(`${out.join("\n")}\n`);
  };
}

/** Calls `onFrame` with each parsed line of `socket` (after `head`, bytes read with the upgrade). */
export function readFrames(socket: Duplex, head: Buffer, onFrame: (frame: unknown) => void, maxLine = MAX_LINE): void {
  // A decoder, not setEncoding: Node forbids changing the encoding of an HTTP server's socket,
  // upgraded or not. It keeps a character split over two chunks whole.
  const decoder = new StringDecoder("utf8");
  let rest = head.length > 0 ? decoder.write(head) : "";
  const take = (chunk: string) => {
    let start = 0;
    let text = rest + chunk;
    let nl = text.indexOf("\n", rest.length);
    while (nl >= 0) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.length > 0) {
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch {
          socket.destroy(new Error("unparseable frame on the session channel"));
          return;
        }
        onFrame(frame);
      }
      nl = text.indexOf("\n", start);
    }
    text = text.slice(start);
    if (text.length > maxLine) {
      socket.destroy(new Error("frame too long on the session channel"));
      return;
    }
    rest = text;
  };
  if (rest.length > 0) {
    const first = rest;
    rest = "";
    take(first);
  }
  socket.on("data", (chunk: Buffer) => take(decoder.write(chunk)));
}
