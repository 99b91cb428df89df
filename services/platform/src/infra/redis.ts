import { Redis } from "ioredis";
import { createClient } from "redis";

export type OmClient = ReturnType<typeof createClient>;

/**
 * ioredis: leases, rate limits, streams, pub/sub and the auth script. Auto-pipelining batches
 * the many small commands of the background roles; the request path's one script call per turn
 * runs faster without it (measured: `pnpm bench gateway`, 0.23 → 0.26 of bare Fastify).
 */
export function createIoRedis(url: string, name: string, opts: { autoPipelining?: boolean } = {}): Redis {
  const client = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 3,
    enableAutoPipelining: opts.autoPipelining ?? true,
  });
  // It reconnects by itself; a failure surfaces on the commands (a shard down: its instances' 503s).
  client.on("error", () => {});
  return client;
}

/** node-redis, the client redis-om is written for. */
export async function createOmClient(url: string): Promise<OmClient> {
  const client = createClient({ url });
  client.on("error", () => {}); // reconnects by itself; failures surface on the commands
  await client.connect();
  return client;
}
