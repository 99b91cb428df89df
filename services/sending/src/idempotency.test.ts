// The running mark of an Idempotency-Key on a real Redis: renewed while its request runs, taken
// over once its process died (issue 19 §3: a gateway SIGKILLed mid-request blocked every retry
// with the key for 10 minutes — the chaos bench's clients gave up).
import type { SendRequest } from "@gw/contracts";
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, expect, it } from "vitest";
import { IdempotencyStore } from "./idempotency.ts";
import { QueueStore } from "./queue-store.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv()));
});
afterAll(() => platform?.close());

const LEASE_MS = 600;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a key whose request died with its process is taken over after the running lease", async () => {
  // The first request's process: its own Redis connection, gone mid-request (SIGKILL).
  const dying = platform.duplicate("idem-dying");
  const first = new IdempotencyStore(dying, platform.keys, { leaseMs: LEASE_MS, waitMs: 20_000 });
  const fp = IdempotencyStore.fingerprint("POST /messages/text", { text: "x" });
  void first.run("iidem0001", "k-crash", fp, () => new Promise(() => {})); // never answers
  await sleep(100);
  dying.disconnect(); // renewals stop, like everything else of that process

  const retry = new IdempotencyStore(platform.redis, platform.keys, { leaseMs: LEASE_MS, waitMs: 20_000 });
  const started = Date.now();
  const answer = await retry.run("iidem0001", "k-crash", fp, async () => ({ status: 201, body: { id: "m1" } }));
  expect(answer).toEqual({ status: 201, body: { id: "m1" }, replayed: false });
  expect(Date.now() - started).toBeLessThan(10_000); // the lease, not the 20 s wait
});

it("a request still running keeps its key past the lease: a concurrent one waits for its answer", async () => {
  const store = new IdempotencyStore(platform.redis, platform.keys, { leaseMs: LEASE_MS, waitMs: 20_000 });
  const fp = IdempotencyStore.fingerprint("POST /messages/text", { text: "y" });
  let runs = 0;
  const slow = async () => {
    runs++;
    await sleep(LEASE_MS * 4); // four leases long: only its renewals keep the mark
    return { status: 201, body: { id: "m2" } };
  };
  const a = store.run("iidem0002", "k-slow", fp, slow);
  await sleep(50);
  const b = store.run("iidem0002", "k-slow", fp, slow);
  const [ra, rb] = await Promise.all([a, b]);
  expect(runs).toBe(1);
  expect(ra).toEqual({ status: 201, body: { id: "m2" }, replayed: false });
  expect(rb).toEqual({ status: 201, body: { id: "m2" }, replayed: true });
});

it("a queued send taken over after its gateway died past the enqueue is queued once", async () => {
  // The chaos bench: a gateway SIGKILLed after the enqueue, before the key's answer was stored;
  // the client's retry took over 15 s later and queued a second item (sent twice).
  const store = new QueueStore(platform.redis, platform.keys, platform.invalidations);
  const instanceId = `iidemq${Date.now().toString(36)}`;
  const enqueue = (queueId: string) =>
    store.enqueue(instanceId, {
      queueId,
      now: Date.now(),
      route: "POST /messages/text",
      chatId: "15550000001@c.us",
      request: { route: "text", body: { chatId: "15550000001", text: "uma vez", delayMessage: 1 } } as SendRequest,
      ownDelayMs: 1000,
      ownTypingMs: null,
      textLength: 7,
    });
  const dying = platform.duplicate("idem-dying-queue");
  const first = new IdempotencyStore(dying, platform.keys, { leaseMs: LEASE_MS, waitMs: 20_000 });
  const fp = IdempotencyStore.fingerprint("POST /messages/text", { text: "uma vez", delayMessage: 1 });
  let firstId = "";
  void first.run(instanceId, "k-queued", fp, async ({ origin }) => {
    firstId = IdempotencyStore.queueId(instanceId, origin);
    await enqueue(firstId);
    // Its workflow moved on meanwhile (here: cancelled; sending or sent alike).
    await store.finish(instanceId, firstId, "cancelled", { onlyFrom: "queued" });
    return new Promise(() => {}); // the gateway dies before answering
  });
  while (!firstId) await sleep(20);
  await sleep(100);
  dying.disconnect();

  const retry = new IdempotencyStore(platform.redis, platform.keys, { leaseMs: LEASE_MS, waitMs: 20_000 });
  const answer = await retry.run(instanceId, "k-queued", fp, async ({ origin }) => {
    const r = await enqueue(IdempotencyStore.queueId(instanceId, origin));
    if (!r.ok) throw new Error("queue full");
    return { status: 202, body: { id: r.item.id, status: r.item.status } };
  });
  // The same item, as it is now: not a second one, and not put back in line.
  expect(answer).toEqual({ status: 202, body: { id: firstId, status: "cancelled" }, replayed: false });
  expect((await store.settings(instanceId)).pending).toBe(0);
});
