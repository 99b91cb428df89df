import type { Platform } from "@gw/platform";
import type { ProviderContext } from "./providers/contract.ts";

/** The `records` of a provider context: hashes under the instance (platform keys `providerRecords`). */
export function providerRecords(
  platform: Pick<Platform, "keys" | "redis">,
  instanceId: string,
): ProviderContext["records"] {
  const key = (name: string) => platform.keys.providerRecords(instanceId, name);
  return {
    async put(name, entries) {
      if (Object.keys(entries).length > 0) await platform.redis.hset(key(name), entries);
    },
    all: (name) => platform.redis.hgetall(key(name)),
    get: (name, field) => platform.redis.hget(key(name), field),
    async remove(name, fields) {
      if (fields.length > 0) await platform.redis.hdel(key(name), ...fields);
    },
  };
}
