// Who owns each instance, sampled from the outside every `everyMs`: the lease key in Redis
// (`<prefix>lease:<id>` = `<podId>|<epoch>`). An instance with no lease for a while is owner-less
// (a pod died and nobody took it over yet); each such stretch is one sample of owner-less
// seconds. Two pods at once is checked on the network side (simnet's instanceOverlaps and
// conflicts), where it would do harm: a sample of a key cannot see two holders.
import { requireFrom, sleep } from "../lib.mjs";

export function sampleOwners({ redisUrl, prefix, instanceIds, everyMs = 250 }) {
  const { Redis } = requireFrom("services/platform")("ioredis");
  const redis = new Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    connectionName: "chaos-owners",
    retryStrategy: () => 200,
    lazyConnect: false,
  });
  redis.on("error", () => {});
  const since = new Map(); // instance → when it was first seen without an owner
  const gaps = []; // owner-less stretches, seconds
  let unknownMs = 0; // Redis unreachable: nothing can be said
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = Date.now();
      let values;
      try {
        values = await redis.mget(...instanceIds.map((id) => `${prefix}lease:${id}`));
      } catch {
        unknownMs += everyMs;
      }
      if (values) {
        instanceIds.forEach((id, i) => {
          if (values[i] === null) {
            if (!since.has(id)) since.set(id, t);
          } else if (since.has(id)) {
            gaps.push((t - since.get(id)) / 1000);
            since.delete(id);
          }
        });
      }
      await sleep(Math.max(0, everyMs - (Date.now() - t)));
    }
  })();
  return {
    /** Stops sampling: owner-less stretches still open count to now, and are reported open. */
    async stop() {
      running = false;
      await loop;
      redis.disconnect();
      const now = Date.now();
      const open = [...since.entries()].map(([id, t]) => ({ id, seconds: (now - t) / 1000 }));
      for (const o of open) gaps.push(o.seconds);
      return { gaps, open, unknownS: unknownMs / 1000 };
    },
  };
}
