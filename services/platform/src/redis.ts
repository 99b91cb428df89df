import { Redis } from "ioredis";
import { createClient } from "redis";

export type OmClient = ReturnType<typeof createClient>;

/** ioredis: leases, rate limits, streams, pub/sub and the auth script. */
export function createIoRedis(url: string, name: string): Redis {
  return new Redis(url, { connectionName: name, maxRetriesPerRequest: 3, enableAutoPipelining: true });
}

/** node-redis, the client redis-om is written for. */
export async function createOmClient(url: string): Promise<OmClient> {
  const client = createClient({ url });
  client.on("error", () => {}); // reconnects by itself; failures surface on the commands
  await client.connect();
  return client;
}
