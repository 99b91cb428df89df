// What Redis holds of a test's keyspace, for the media store's tests: every key's MEMORY USAGE,
// and whether any value anywhere (strings, hashes, lists, sets, sorted sets, streams, JSON)
// contains some bytes of a file, raw or base64.
import { type Platform, readHistoryEntry } from "@gw/platform";

type Redis = Platform["redis"];

export interface Footprint {
  keys: number;
  bytes: number;
  /** Keys whose value holds the needle. */
  holding: string[];
}

/** Needles of a file: 300 bytes from its middle, raw and as they appear inside its base64 (3-byte aligned). */
export function needlesOf(file: Buffer): Buffer[] {
  const at = Math.floor(file.length / 2 / 3) * 3;
  const slice = file.subarray(at, at + 300);
  return [slice, Buffer.from(slice.toString("base64"))];
}

async function valuesOf(redis: Redis, key: string): Promise<Buffer[]> {
  const type = await redis.type(key);
  switch (type) {
    case "string":
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case "hash":
      return Object.values(await redis.hgetallBuffer(key));
    case "list":
      return redis.lrangeBuffer(key, 0, -1);
    case "set":
      return redis.smembersBuffer(key);
    case "zset":
      return redis.zrangeBuffer(key, "0", "-1");
    case "stream": {
      const entries = (await redis.xrangeBuffer(key, "-", "+")) as [Buffer, Buffer[]][];
      // An event history's entry (its field starts with \x01) keeps its envelope smaller
      // (services/platform/src/events/history-codec.ts): searched as stored and as read back.
      return entries.flatMap(([, fields]) =>
        fields.length === 2 && fields[0]![0] === 1
          ? [...fields, Buffer.from(readHistoryEntry(fields.map((f) => f.toString())).envelope)]
          : fields,
      );
    }
    case "ReJSON-RL":
      return [Buffer.from(String(await redis.call("JSON.GET", key)))];
    default:
      return [];
  }
}

/** Every key under `prefix`: their memory and which hold any of `needles`. */
export async function footprint(redis: Redis, prefix: string, needles: Buffer[]): Promise<Footprint> {
  const out: Footprint = { keys: 0, bytes: 0, holding: [] };
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      out.keys++;
      out.bytes += Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
      const values = await valuesOf(redis, key);
      if (values.some((v) => needles.some((n) => v.includes(n)))) out.holding.push(key);
    }
  } while (cursor !== "0");
  return out;
}
