// Events reach the dispatcher's shard stream only when an active webhook of the instance
// subscribes to their kind; the instance's 7-day history keeps every event. Real Redis.
import type { EventKind } from "@gw/contracts";
import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, expect, it } from "vitest";
import { shardOf } from "../events/bus.ts";
import { loadConfig } from "../infra/config.ts";
import { createPlatform, type Platform } from "../platform.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv()));
});
afterAll(() => platform?.close());

async function newInstance() {
  const { instance } = await platform.instances.create({
    name: "subs",
    kind: "standard",
    provider: "sim",
    provisioned: true,
  });
  return instance;
}

/** The kinds of `instanceId`'s events on its shard stream (what the dispatcher reads), in order. */
async function dispatched(instanceId: string): Promise<string[]> {
  const all = await platform.events.read(shardOf(instanceId, platform.events.shards), 100_000);
  return all.filter((e) => e.instanceId === instanceId).map((e) => `${e.event}:${e.payload.n}`);
}

/** Publishes one event of each kind, numbered `n` in its payload. */
async function publishEach(instance: Awaited<ReturnType<typeof newInstance>>, n: number, kinds: EventKind[]) {
  for (const kind of kinds) await platform.events.publish(instance, kind, { n });
}

/** Pub/sub applies the invalidation shortly after the change: publish until the new rule shows. */
async function untilDispatched(instanceId: string, probe: () => Promise<void>, expected: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    await probe();
    if ((await dispatched(instanceId)).includes(expected)) return;
    if (Date.now() > deadline) throw new Error(`${expected} never reached the shard stream`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let probes = 1000;
/**
 * The opposite: publishes numbered probes of `kind` until one stays off the shard stream (the
 * invalidation has arrived; publishing is sequential, so everything after it sees the new rule).
 */
async function untilNotDispatched(instance: Awaited<ReturnType<typeof newInstance>>, kind: EventKind) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const n = ++probes;
    await publishEach(instance, n, [kind]);
    if (!(await dispatched(instance.id)).includes(`${kind}:${n}`)) return;
    if (Date.now() > deadline) throw new Error(`${kind} still reaches the shard stream`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it("no webhooks: only session.status goes to the dispatcher, the history keeps everything", async () => {
  const inst = await newInstance();
  await publishEach(inst, 1, ["message.any", "message.ack", "session.status"]);
  expect(await dispatched(inst.id)).toEqual(["session.status:1"]);
  const history = await platform.events.history(inst.id);
  expect(history.map((e) => `${e.event}:${e.payload.n}`)).toEqual([
    "message.any:1",
    "message.ack:1",
    "session.status:1",
  ]);
});

it("follows the webhooks' event lists as they are created, changed, deactivated and deleted", async () => {
  const inst = await newInstance();
  await publishEach(inst, 0, ["message.ack"]); // caches "no webhooks"
  const { webhook } = await platform.webhooks.create(inst.id, {
    url: "https://example.com/h",
    events: ["message.ack"],
  });
  await untilDispatched(inst.id, () => publishEach(inst, 1, ["message.ack"]), "message.ack:1");
  await publishEach(inst, 2, ["message.any", "message.ack"]);
  expect((await dispatched(inst.id)).filter((k) => k.endsWith(":2"))).toEqual(["message.ack:2"]);

  await platform.webhooks.update(inst.id, webhook.id, { events: ["*"] });
  await untilDispatched(inst.id, () => publishEach(inst, 3, ["message.any"]), "message.any:3");

  await platform.webhooks.update(inst.id, webhook.id, { active: false });
  await untilNotDispatched(inst, "message.any");
  await publishEach(inst, 4, ["message.any", "message.ack", "session.status"]);
  expect((await dispatched(inst.id)).filter((k) => k.endsWith(":4"))).toEqual(["session.status:4"]);

  await platform.webhooks.update(inst.id, webhook.id, { active: true });
  await untilDispatched(inst.id, () => publishEach(inst, 5, ["message.any"]), "message.any:5");
  await platform.webhooks.delete(inst.id, webhook.id);
  await untilNotDispatched(inst, "message.any");
  await publishEach(inst, 6, ["message.any", "message.ack"]);
  expect((await dispatched(inst.id)).some((k) => k.endsWith(":6"))).toBe(false);
  // The history has all of them.
  expect((await platform.events.history(inst.id)).filter((e) => e.payload.n === 6)).toHaveLength(2);
});

it("another instance's webhooks change nothing for this one", async () => {
  const a = await newInstance();
  const b = await newInstance();
  await platform.webhooks.create(b.id, { url: "https://example.com/b", events: ["*"] });
  await untilDispatched(b.id, () => publishEach(b, 1, ["message.any"]), "message.any:1");
  await publishEach(a, 1, ["message.any"]);
  expect(await dispatched(a.id)).toEqual([]);
});
