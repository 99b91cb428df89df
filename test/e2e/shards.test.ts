// The keyspace sharded by instance (docs/architecture.md "Sharding the keyspace"): two Redis
// Stack servers, the stack's (control, shard 0) and one of this file's own (shard 1, AOF). An
// instance's keys live on its shard only; sends, reads, inbound messages, webhooks and the queue
// work on both; an instance moves between shards losing nothing (503 + Retry-After meanwhile);
// with shard 1 killed, shard 0's instances keep sending, and shard 1's recover after its restart.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";

let c: Cluster;
let shard1: RedisServer;
let hooks: Receiver;
const a = { id: "", token: "", phone: "5531966660001" }; // shard 0
const b = { id: "", token: "", phone: "5531966660002" }; // shard 1
const CONTACT = "5531966660009";

const api = (inst: { id: string; token: string }) => (path: string, init?: RequestInit & { json?: unknown }) =>
  c.as(inst.token)(`/v1/instances/${inst.id}${path}`, init);

/** Every key of the instance on one shard's Redis, by name. */
async function keysOn(shard: number, id: string): Promise<string[]> {
  const redis = c.platform.shards.clients[shard]!;
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${c.platform.keys.prefix}*${id}*`, "COUNT", 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== "0");
  return found;
}

const instanceKeys = async (shard: number, id: string) =>
  (await keysOn(shard, id)).filter((k) => c.platform.shards.instanceOfKey(k) === id);

async function sendText(inst: { id: string; token: string }, text: string) {
  return api(inst)("/messages/text", { method: "POST", json: { phone: CONTACT, text } });
}

beforeAll(async () => {
  shard1 = await startRedisServer({ aof: true });
  hooks = await startReceiver();
  c = await startCluster({
    env: { REDIS_SHARDS: shard1.url, WEBHOOK_ALLOW_PRIVATE: "true" },
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [100] },
  });
  await c.sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "Contato" });
  for (const inst of [a, b]) {
    Object.assign(inst, await c.createInstance());
    await api(inst)("/start", { method: "POST" });
    await c.pair(inst.id, inst.phone);
    const hook = await api(inst)("/webhooks", { method: "POST", json: { url: hooks.url, events: ["message.any"] } });
    expect(hook.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await c?.close();
  await hooks?.close();
  await shard1?.close();
});

it("new instances are placed on the emptiest shard, and their ids name it", () => {
  expect(c.platform.shards.of(a.id)).toBe(0);
  expect(c.platform.shards.of(b.id)).toBe(1);
});

it("sends, reads and webhooks work on both shards, and each instance's keys are on its shard only", async () => {
  for (const inst of [a, b]) {
    const res = await sendText(inst, `olá de ${inst.id}`);
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    // The read model (chats through the shard's own search index) and the event history.
    await expect
      .poll(async () => (await (await api(inst)(`/chats/${CONTACT}@c.us/messages?limit=5`)).json()) as unknown[], {
        timeout: 10_000,
      })
      .toEqual(expect.arrayContaining([expect.objectContaining({ id })]));
    const chats = (await (await api(inst)("/chats?sortBy=name")).json()) as { id: string }[];
    expect(chats.map((ch) => ch.id)).toContain(`${CONTACT}@c.us`);
    // The webhook delivery: read from the shard's own dispatch streams.
    await expect.poll(() => hooks.received.some((r) => r.rawBody.includes(id)), { timeout: 15_000 }).toBe(true);
  }
  const onOwn = await instanceKeys(1, b.id);
  expect(onOwn.length).toBeGreaterThan(5);
  expect(await instanceKeys(0, b.id)).toEqual([]);
  expect(await instanceKeys(1, a.id)).toEqual([]);
  // What shard 0 keeps of b is global data only: its record, auth, lease.
  for (const key of await keysOn(0, b.id)) expect(c.platform.shards.instanceOfKey(key)).toBeUndefined();
}, 60_000);

it("an inbound message to a shard-1 instance is recorded there", async () => {
  const sent = await c.sim("POST", `/simnet/phones/${CONTACT}/send`, {
    to: b.phone,
    message: { type: "text", text: "resposta" },
  });
  expect(sent.status).toBeLessThan(300);
  await expect
    .poll(
      async () =>
        ((await (await api(b)(`/chats/${CONTACT}@c.us/messages?limit=10`)).json()) as { text?: string }[]).some((m) =>
          JSON.stringify(m).includes("resposta"),
        ),
      { timeout: 10_000 },
    )
    .toBe(true);
});

it("a queued send on shard 1 is sent by the queue workflow", async () => {
  const res = await api(b)("/messages/text", {
    method: "POST",
    json: { phone: CONTACT, text: "pela fila", delayMessage: 0, delayTyping: 0 },
  });
  expect(res.status).toBe(202);
  const item = (await res.json()) as { id: string };
  await expect
    .poll(async () => ((await (await api(b)(`/queue/${item.id}`)).json()) as { status: string }).status, {
      timeout: 20_000,
    })
    .toBe("sent");
}, 30_000);

/** Sends `text` until it is accepted (201), waiting out each 503's Retry-After; one Idempotency-Key. */
async function sendSurely(inst: { id: string; token: string }, text: string, key: string, log: number[]) {
  for (let tries = 0; tries < 200; tries++) {
    const res = await api(inst)("/messages/text", {
      method: "POST",
      json: { phone: CONTACT, text },
      headers: { "idempotency-key": key },
    });
    log.push(res.status);
    if (res.status === 201) return;
    expect(res.status, await res.text()).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${text}: never accepted`);
}

async function textsOf(inst: { id: string; token: string }, tag: string): Promise<string[]> {
  const res = await api(inst)(`/chats/${CONTACT}@c.us/messages?limit=100`);
  const list = (await res.json()) as { text?: { message?: string } | string; body?: string }[];
  return list.map((m) => JSON.stringify(m)).filter((s) => s.includes(tag));
}

it("moving an instance to another shard while it sends loses nothing and doubles nothing", async () => {
  const statuses: number[] = [];
  const texts = Array.from({ length: 30 }, (_, i) => `mover #${i}`);
  const sending = (async () => {
    for (const [i, text] of texts.entries()) await sendSurely(b, text, `move-${i}`, statuses);
  })();
  await new Promise((r) => setTimeout(r, 300));
  const moved = await c.admin("POST", `/v1/admin/instances/${b.id}/shard`, { shard: 0 });
  const result = (await moved.json()) as { from: number; to: number; keys: number; blockedMs: number };
  expect(moved.status, JSON.stringify(result)).toBe(200);
  expect(result).toMatchObject({ from: 1, to: 0 });
  expect(result.keys).toBeGreaterThan(5);
  await sending;
  expect(c.platform.shards.of(b.id)).toBe(0);
  expect(await instanceKeys(1, b.id)).toEqual([]);
  expect((await instanceKeys(0, b.id)).length).toBeGreaterThan(5);
  // Every text once in the read model, once in the event history, whatever answered 503 meanwhile.
  await expect.poll(async () => (await textsOf(b, "mover #")).length, { timeout: 15_000 }).toBe(30);
  const history = (await c.events(b.id, "message.any")).map((e) => JSON.stringify(e.payload));
  for (const text of texts) expect(history.filter((h) => h.includes(`"${text}"`)).length, text).toBe(1);
  // The session pod took it again: the next send goes out.
  await sendSurely(b, "depois da mudança", "after-move", statuses);

  // And back to its home shard: the directory forgets it (its id names shard 1 again).
  const back = await c.admin("POST", `/v1/admin/instances/${b.id}/shard`, { shard: 1 });
  expect(back.status).toBe(200);
  expect(c.platform.shards.of(b.id)).toBe(1);
  expect(await c.platform.shards.control.hget(c.platform.shards.directory.keys.moved, b.id)).toBeNull();
  await expect.poll(async () => (await textsOf(b, "mover #")).length, { timeout: 15_000 }).toBe(30);
}, 120_000);

it("a move to a shard that does not exist is 422; of an unknown instance 404", async () => {
  expect((await c.admin("POST", `/v1/admin/instances/${b.id}/shard`, { shard: 2 })).status).toBe(422);
  expect((await c.admin("POST", `/v1/admin/instances/i0000000000000000/shard`, { shard: 0 })).status).toBe(404);
  const shards = (await (await c.admin("GET", "/v1/admin/shards")).json()) as {
    data: { shard: number; up: boolean }[];
  };
  expect(shards.data.map((s) => [s.shard, s.up])).toEqual([
    [0, true],
    [1, true],
  ]);
});

it("with shard 1 killed, shard 0's instance sends with no failure; shard 1's recovers after the restart", async () => {
  await sendSurely(b, "antes da queda", "before-kill", []);
  await new Promise((r) => setTimeout(r, 1_500)); // the AOF is fsynced every second
  await shard1.kill();
  try {
    const outcomes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await sendText(a, `durante a queda #${i}`);
      outcomes.push(res.status);
    }
    expect(outcomes.filter((s) => s !== 201)).toEqual([]);
    const down = await sendText(b, "no shard caído");
    expect(down.status).toBe(503);
    const shards = (await (await c.admin("GET", "/v1/admin/shards")).json()) as { data: { up: boolean }[] };
    expect(shards.data.map((s) => s.up)).toEqual([true, false]);
    // The fleet gauges still read (shard 1's queue and backlog left out), and say which shard is down.
    const metrics = await (await fetch(`${c.worker!.healthUrl}/metrics`)).text();
    expect(metrics).toContain('gateway_redis_shard_up{shard="0"} 1');
    expect(metrics).toContain('gateway_redis_shard_up{shard="1"} 0');
    expect(metrics).toMatch(/^gateway_instances_running \d+$/m);
  } finally {
    await shard1.restart();
  }
  const statuses: number[] = [];
  await sendSurely(b, "depois da volta", "after-restart", statuses);
  await expect.poll(async () => (await textsOf(b, "antes da queda")).length, { timeout: 15_000 }).toBe(1);
  expect((await textsOf(b, "mover #")).length).toBe(30);
}, 120_000);
