// A TCP proxy in front of the test Redis that a test can cut, as if Redis died (or the network
// to it did) and came back: processes under test keep their REDIS_URL and see the outage.
import { connect, createServer, type Socket } from "node:net";
import { inject } from "vitest";

export interface RedisProxy {
  /** redis://127.0.0.1:<proxy port> */
  url: string;
  /** Cuts every open connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(inject("redisUrl"));
  let down = false;
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
    client.pipe(upstream).pipe(client);
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
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
