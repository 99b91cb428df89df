// The writes of one loop turn run by one script call, in the order they were asked, each caller
// getting its own result or error. Real Redis.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createIoRedis } from "./redis.ts";
import { ScriptBatch } from "./script-batch.ts";

const prefix = `sb${randomBytes(4).toString("hex")}:`;
let redis: ReturnType<typeof createIoRedis>;
let batch: ScriptBatch;

beforeAll(() => {
  redis = createIoRedis(inject("redisUrl"), "script-batch-test");
  batch = new ScriptBatch(redis);
  batch.register("append", "return redis.call('RPUSH', KEYS[1], ARGV[1])", { keys: 1, args: 1 });
  batch.register("fail", "return redis.call('INCR', KEYS[1])", { keys: 1, args: 0 }); // INCR of a list: an error
  batch.register("nothing", "local x = 1", { keys: 0, args: 0 });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

it("runs a turn's calls in one script call, in order, each caller getting its own result", async () => {
  const key = `${prefix}list`;
  const before = batch.stats.calls;
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => batch.run("append", [key], [`v${i}`])));
  expect(batch.stats.calls - before).toBe(1);
  expect(results).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(await redis.lrange(key, 0, -1)).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));
  // Calls of different turns: a call each.
  await batch.run("append", [key], ["a"]);
  await batch.run("append", [key], ["b"]);
  expect(batch.stats.calls - before).toBe(3);
});

it("a failing operation rejects its own caller only; nil comes back as null", async () => {
  const list = `${prefix}other`;
  const [a, b, c, d] = await Promise.allSettled([
    batch.run("append", [list], ["x"]),
    batch.run("fail", [list], []),
    batch.run("nothing", [], []),
    batch.run("append", [list], ["y"]),
  ]);
  expect(a).toEqual({ status: "fulfilled", value: 1 });
  expect(b.status).toBe("rejected");
  expect(String((b as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE|wrong kind/i);
  expect(c).toEqual({ status: "fulfilled", value: null });
  expect(d).toEqual({ status: "fulfilled", value: 2 });
});

it("more calls than one script run takes are split over several, still in order", async () => {
  const key = `${prefix}many`;
  const n = 130;
  const before = batch.stats.calls;
  await Promise.all(Array.from({ length: n }, (_, i) => batch.run("append", [key], [String(i)])));
  expect(batch.stats.calls - before).toBe(Math.ceil(n / 48));
  expect(await redis.lrange(key, 0, -1)).toEqual(Array.from({ length: n }, (_, i) => String(i)));
});

it("refuses an unknown script and a registration after the first run", async () => {
  await expect(batch.run("missing", [], [])).rejects.toThrow(/no script missing/);
  expect(() => batch.register("late", "return 1", { keys: 0, args: 0 })).toThrow(/after the first run/);
  await expect(batch.run("append", [], ["x"])).rejects.toThrow(/takes 1 keys and 1 args/);
});

it("sealed before use, it runs in an auto-pipeline that ioredis opened earlier", async () => {
  const client = createIoRedis(inject("redisUrl"), "script-batch-test-2");
  try {
    const early = new ScriptBatch(client);
    early.register("append", "return redis.call('RPUSH', KEYS[1], ARGV[1])", { keys: 1, args: 1 });
    early.seal();
    await client.ping();
    const key = `${prefix}sealed`;
    // ioredis keeps one pipeline in flight per connection and queues what follows in the next
    // one: that next pipeline exists before the batch's first run. (Sealed lazily at that run, the
    // command would be missing from it: "pipeline[functionName] is not a function".)
    const first = client.blpop(`${prefix}never`, 0.2); // holds the connection for 200 ms
    await new Promise((r) => setImmediate(r)); // the first pipeline is on its way
    const second = client.get(key);
    const n = await early.run("append", [key], ["x"]);
    await Promise.all([first, second]);
    expect(n).toBe(1);
  } finally {
    client.disconnect();
  }
});
