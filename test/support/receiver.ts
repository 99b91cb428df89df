// A real HTTP webhook receiver on 127.0.0.1 that records what arrives and answers as told.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { EventEnvelope } from "@gw/contracts";

export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
  envelope: EventEnvelope;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status to answer for the next requests (default 200); a function decides per request. */
  respond: number | ((r: Received, n: number) => number);
  /** Waits until `predicate` holds over what was received. */
  waitFor(predicate: (all: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = "/hook"): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    received: [],
    respond: 200,
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        if (predicate(receiver.received)) return receiver.received;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`receiver: condition not met within ${timeoutMs} ms (${receiver.received.length} received)`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const r: Received = {
        headers: req.headers,
        rawBody,
        envelope: JSON.parse(rawBody) as EventEnvelope,
        at: Date.now(),
      };
      receiver.received.push(r);
      const status =
        typeof receiver.respond === "function" ? receiver.respond(r, receiver.received.length) : receiver.respond;
      res.writeHead(status).end();
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
