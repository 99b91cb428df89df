// A TCP proxy in front of the test Redis that a test can cut, as if Redis died (or the network
// to it did) and came back: processes under test keep their REDIS_URL and see the outage.
import { connect, createServer, type Socket } from "node:net";
import { inject } from "vitest";

export interface RedisProxy {
  /** redis://127.0.0.1:<proxy port> */
  url: string;
  /** Cuts every open connection and refuses new ones until `restore()`. */
  cut(): void;
  /**
   * Redis restarting from its AOF: connections stay up, and every command is answered
   * `-LOADING` until `restore()`.
   */
  loading(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(inject("redisUrl"));
  let down = false;
  let isLoading = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    let pending = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      if (!isLoading) return void upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      // One `-LOADING` reply per complete RESP command (an array of bulk strings).
      for (let used = commandLength(pending); used > 0; used = commandLength(pending)) {
        pending = pending.subarray(used);
        client.write("-LOADING Redis is loading the dataset in memory\r\n");
      }
    });
    upstream.pipe(client);
    for (const s of [client, upstream]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      down = true;
      server.close(); // new connections are refused (ECONNREFUSED), as with Redis killed
      for (const s of open) s.destroy();
      open.clear();
    },
    loading() {
      isLoading = true;
    },
    restore() {
      isLoading = false;
      if (!down) return;
      down = false;
      server.listen(port, "127.0.0.1");
    },
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        if (down) return r();
        server.close(() => r());
      }),
  };
}

/** Bytes of the first complete RESP array command in `buf`, or 0 if it is not complete yet. */
function commandLength(buf: Buffer): number {
  const line = (from: number) => {
    const end = buf.indexOf("\r\n", from);
    return end < 0 ? null : { text: buf.toString("latin1", from, end), next: end + 2 };
  };
  const head = line(0);
  if (head?.text[0] !== "*") return 0;
  let at = head.next;
  for (let i = 0; i < Number(head.text.slice(1)); i++) {
    const len = line(at);
    if (!len) return 0;
    at = len.next + Number(len.text.slice(1)) + 2;
    if (at > buf.length) return 0;
  }
  return at;
}
