// Invalidations between replicas over real Redis pub/sub: the announcing replica applies its
// own change before it publishes (read-your-writes through one replica), the others when the
// message arrives, and everyone forgets everything after a reconnection.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it, vi } from "vitest";
import { Invalidations } from "./invalidations.ts";
import { keys } from "./keys.ts";
import { createIoRedis } from "./redis.ts";

const k = keys(`inv${randomBytes(4).toString("hex")}:`);
const connections: ReturnType<typeof createIoRedis>[] = [];
const connect = (name: string) => {
  const c = createIoRedis(inject("redisUrl"), name);
  connections.push(c);
  return c;
};

interface Replica {
  invalidations: Invalidations;
  subscriber: ReturnType<typeof createIoRedis>;
  heard: [string, string | null][];
}
let a: Replica;
let b: Replica;

async function replica(name: string): Promise<Replica> {
  const subscriber = connect(`${name}-sub`);
  const invalidations = new Invalidations(connect(name), subscriber, k.invalidations);
  await subscriber.subscribe(k.invalidations);
  const heard: [string, string | null][] = [];
  invalidations.on("instance", (id) => heard.push(["instance", id]));
  invalidations.on("queue", (id) => heard.push(["queue", id]));
  return { invalidations, subscriber, heard };
}

beforeAll(async () => {
  a = await replica("a");
  b = await replica("b");
});
afterAll(() => {
  for (const c of connections) c.disconnect();
});

it("the announcing replica forgets at once, before the message is published; the others when it arrives", async () => {
  const announced = a.invalidations.announce("instance", "i1");
  // Synchronously, before any I/O: a read through this replica right after the write sees it.
  expect(a.heard).toEqual([["instance", "i1"]]);
  expect(b.heard).toEqual([]);
  await announced;
  await vi.waitFor(() => expect(b.heard).toEqual([["instance", "i1"]]), { timeout: 10_000 });
  // Its own message comes back too (a second forget, harmless).
  await vi.waitFor(
    () =>
      expect(a.heard).toEqual([
        ["instance", "i1"],
        ["instance", "i1"],
      ]),
    { timeout: 10_000 },
  );
});

it("handlers hear only their kind", async () => {
  a.heard.length = 0;
  b.heard.length = 0;
  // Nobody here listens to webhooks. Published first: by the time the queue message has
  // arrived (one connection, in order), the webhooks one has been handled too.
  await b.invalidations.announce("webhooks", "i3");
  await b.invalidations.announce("queue", "i2");
  await vi.waitFor(() => expect(a.heard.length).toBeGreaterThan(0), { timeout: 10_000 });
  expect(a.heard).toEqual([["queue", "i2"]]);
  expect(b.heard[0]).toEqual(["queue", "i2"]);
});

it("after the subscription reconnects, every kind forgets everything (messages may have been missed)", async () => {
  a.heard.length = 0;
  a.subscriber.disconnect(true); // reconnects, resubscribes, then "ready"
  await vi.waitFor(
    () =>
      expect(a.heard).toEqual(
        expect.arrayContaining([
          ["instance", null],
          ["queue", null],
        ]),
      ),
    {
      timeout: 10_000,
    },
  );
});
