// The live streams on a sharded keyspace (docs/streams.md "Shards"): two Redis Stack servers, the
// stack's (control, shard 0) and one of this file's own (shard 1, AOF). An instance's stream is
// read on its shard (one blocking reader per shard); the admin stream reads every shard's
// all-instances stream, merged, and resumes by id across shards. With shard 1 killed, shard 0's
// streams go on and shard 1's pick up again after its restart.
import type { EventEnvelope, EventKind } from "@gw/contracts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { adminHeaders } from "../support/e2e-helpers.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { publish, SseClient, until } from "./streams-client.ts";

interface Inst {
  id: string;
  token: string;
  phone: string;
}

let c: Cluster;
let shard1: RedisServer;
const a: Inst = { id: "", token: "", phone: "5531955550001" }; // shard 0
const b: Inst = { id: "", token: "", phone: "5531955550002" }; // shard 1
const open: SseClient[] = [];
const sockets: WebSocket[] = [];

/** The events this file publishes: the paired instances' own (session.status and such) are left out. */
const TAG = "streams-shards";
let n = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Publishes a tagged event; a few ms apart, so that stream ids on the two shards never share a millisecond. */
async function emit(inst: Inst, kind: EventKind = "message"): Promise<EventEnvelope> {
  const e = await publish(c.platform, inst.id, kind, { tag: TAG, n: n++ });
  await sleep(3);
  return e;
}

const tagged = (envelopes: EventEnvelope[]) => envelopes.filter((e) => (e.payload as { tag?: string }).tag === TAG);
const mine = (client: SseClient) => tagged(client.envelopes());

async function waitMine(client: SseClient, count: number, timeoutMs = 15_000): Promise<EventEnvelope[]> {
  await until(() => mine(client).length >= count, `${count} events (got ${mine(client).length})`, timeoutMs);
  return mine(client);
}

/** Waits, then answers everything received: for checks that nothing more (a repeat) comes. */
async function settled(client: SseClient, count: number): Promise<EventEnvelope[]> {
  await waitMine(client, count);
  await sleep(300);
  return mine(client);
}

/**
 * Publishes untagged probes on `inst` until `client` gets one: the stream reads from then on (a
 * stream's answer and headers come before its feeds are read).
 */
async function ready(client: SseClient, inst: Inst): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const probe = await publish(c.platform, inst.id, "message", { tag: "probe" });
    const seen = () => client.envelopes().some((e) => e.id === probe.id);
    const until = Date.now() + 300;
    while (!seen() && Date.now() < until) await sleep(20);
    if (seen()) return;
    if (Date.now() > deadline) throw new Error(`the stream never got ${inst.id}'s events`);
  }
}

async function sse(path: string, headers: Record<string, string>): Promise<SseClient> {
  const client = await SseClient.open(`${c.url}${path}`, headers);
  open.push(client);
  expect(client.status).toBe(200);
  return client;
}
const instanceStream = (inst: Inst, headers: Record<string, string> = {}) =>
  sse(`/v1/instances/${inst.id}/events/stream`, { "x-instance-token": inst.token, ...headers });
const adminStream = (headers: Record<string, string> = {}, query = "") =>
  sse(`/v1/admin/events/stream${query}`, adminHeaders(headers));

beforeAll(async () => {
  shard1 = await startRedisServer({ aof: true });
  c = await startCluster({ env: { REDIS_SHARDS: shard1.url } });
  // New instances alternate between the shards: one on each.
  for (let i = 0; i < 6 && (!a.id || !b.id); i++) {
    const inst = await c.createInstance();
    const target = c.platform.shards.of(inst.id) === 0 ? a : b;
    if (!target.id) Object.assign(target, inst);
  }
  expect(c.platform.shards.of(a.id)).toBe(0);
  expect(c.platform.shards.of(b.id)).toBe(1);
  for (const inst of [a, b]) {
    const started = await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
    expect(started.status).toBeLessThan(300);
    await c.pair(inst.id, inst.phone);
  }
}, 120_000);

afterAll(async () => {
  for (const client of open) client.close();
  for (const ws of sockets) ws.close();
  await c?.close();
  await shard1?.close();
});

it("each instance's SSE stream gets its live events from its own shard, and resumes by id", async () => {
  for (const [shard, inst] of [
    [0, a],
    [1, b],
  ] as const) {
    const client = await instanceStream(inst);
    await ready(client, inst);
    const sent = [await emit(inst), await emit(inst, "message.ack")];
    expect(await waitMine(client, 2)).toEqual(sent);
    client.close();
    // The history read is the one on the instance's shard.
    const key = c.platform.events.streamKey(inst.id);
    expect(await c.platform.shards.clients[shard]!.exists(key)).toBe(1);
    expect(await c.platform.shards.clients[1 - shard]!.exists(key)).toBe(0);

    const missed = [await emit(inst), await emit(inst)];
    const again = await instanceStream(inst, { "last-event-id": sent[0]!.id });
    const live = await emit(inst);
    expect(await settled(again, 4)).toEqual([sent[1], ...missed, live]);
  }
}, 60_000);

it("the WebSocket of a shard-1 instance resumes after ?cursor= and goes on live", async () => {
  const first = await emit(b);
  const later = [await emit(b), await emit(b)];
  const res = await c.as(b.token)(`/v1/instances/${b.id}/stream-ticket`, { method: "POST" });
  const { ticket } = (await res.json()) as { ticket: string };
  const ws = new WebSocket(
    `${c.url.replace(/^http/, "ws")}/v1/instances/${b.id}/ws?ticket=${encodeURIComponent(ticket)}&cursor=${first.id}`,
  );
  sockets.push(ws);
  const frames: EventEnvelope[] = [];
  ws.addEventListener("message", (m) => frames.push(JSON.parse(String(m.data)) as EventEnvelope));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("websocket refused")));
  });
  const live = await emit(b);
  await until(() => tagged(frames).length >= 3, "the frames");
  expect(tagged(frames)).toEqual([...later, live]);
});

it("the admin stream carries both shards' instances, and resumes by id across shards", async () => {
  const watching = await adminStream();
  await ready(watching, a);
  await ready(watching, b);
  const sent = [await emit(a), await emit(b), await emit(a, "message.ack"), await emit(b, "message.ack")];
  const got = await settled(watching, 4);
  // Across instances by arrival; each instance's in order.
  expect(got.map((e) => e.id).sort()).toEqual(sent.map((e) => e.id).sort());
  for (const inst of [a, b]) {
    expect(got.filter((e) => e.instanceId === inst.id)).toEqual(sent.filter((e) => e.instanceId === inst.id));
  }
  // Each shard's all-instances stream holds its own instances' events: the watch is set on both.
  const allKey = c.platform.events.streamKey(null);
  for (const [shard, inst] of [
    [0, a],
    [1, b],
  ] as const) {
    const rows = await c.platform.shards.clients[shard]!.xrange(allKey, "-", "+");
    const ids = new Set(rows.map(([, f]) => f[f.indexOf("instanceId") + 1]));
    expect([...ids]).toEqual([inst.id]);
  }

  // After an event of shard 1, then after one of shard 0: what came after, from both shards, once.
  const after1 = await adminStream({ "last-event-id": sent[1]!.id });
  expect(await settled(after1, 2)).toEqual(sent.slice(2));
  const after0 = await adminStream({ "last-event-id": sent[0]!.id });
  expect(await settled(after0, 3)).toEqual(sent.slice(1));
  // ?events= narrows the catching up too; then live, from both shards.
  const acks = await adminStream({ "last-event-id": sent[0]!.id }, "?events=message.ack");
  expect(await settled(acks, 2)).toEqual([sent[2], sent[3]]);
  const more = [await emit(b), await emit(a)];
  for (const client of [after1, after0]) {
    const all = await settled(client, client === after1 ? 4 : 5);
    expect(
      all
        .slice(-2)
        .map((e) => e.id)
        .sort(),
    ).toEqual(more.map((e) => e.id).sort());
  }
}, 60_000);

it("catching up across shards over more than a page: every event once, each instance's in order", async () => {
  const watching = await adminStream();
  await ready(watching, a);
  await ready(watching, b);
  const sent: EventEnvelope[] = [];
  const first = await publish(c.platform, a.id, "message", { tag: TAG, n: n++ });
  // Published back to back (no pause): stream ids of the two shards interleave within milliseconds.
  for (let i = 0; i < 330; i++) {
    sent.push(await publish(c.platform, b.id, "message", { tag: TAG, n: n++ }));
    sent.push(await publish(c.platform, a.id, "message", { tag: TAG, n: n++ }));
  }
  await waitMine(watching, sent.length + 1, 30_000);
  const resumed = await adminStream({ "last-event-id": first.id });
  const got = await settled(resumed, sent.length);
  expect(got.length).toBe(sent.length);
  for (const inst of [a, b]) {
    expect(got.filter((e) => e.instanceId === inst.id)).toEqual(sent.filter((e) => e.instanceId === inst.id));
  }
}, 60_000);

it("with shard 1 down, shard 0's streams go on; shard 1's pick up again after its restart", async () => {
  const aLive = await instanceStream(a);
  const bLive = await instanceStream(b);
  const admin = await adminStream();
  await ready(aLive, a);
  await ready(bLive, b);
  await ready(admin, a);
  await ready(admin, b);
  const bBefore = mine(bLive).length;
  let adminNew: SseClient | undefined;
  await shard1.kill();
  try {
    const a1 = await emit(a);
    await until(() => mine(aLive).some((e) => e.id === a1.id), "shard 0's instance stream");
    await until(() => mine(admin).some((e) => e.id === a1.id), "shard 0's event on the admin stream");
    // Opened while shard 1 is down: shard 0's instance stream, and the admin stream (shard 0's part for now).
    const aNew = await instanceStream(a);
    adminNew = await adminStream();
    await ready(aNew, a);
    await ready(adminNew, a);
    expect(bLive.ended).toBe(false);
    expect(admin.ended).toBe(false);
  } finally {
    await shard1.restart();
  }

  // Shard 1 back (from its AOF): its instance's stream and both admin streams get its events again.
  const bSent: EventEnvelope[] = [];
  const deadline = Date.now() + 30_000;
  const reopened = adminNew!;
  while (!mine(reopened).some((e) => e.instanceId === b.id)) {
    if (Date.now() > deadline) throw new Error("no event of shard 1 on the admin stream opened while it was down");
    try {
      bSent.push(await emit(b));
    } catch {
      // Shard 1's clients still reconnecting.
    }
    await sleep(200);
  }
  expect((await settled(bLive, bBefore + bSent.length)).slice(bBefore)).toEqual(bSent);
  await until(() => bSent.every((s) => mine(admin).some((e) => e.id === s.id)), "shard 1's events on the admin stream");
}, 90_000);

it("an instance moved to another shard: its open stream follows it, from where it was", async () => {
  const client = await instanceStream(b);
  await ready(client, b);
  const before = await emit(b);
  await until(() => mine(client).some((e) => e.id === before.id), "the event before the move");
  const moved = await c.platform.moveInstance(b.id, 0);
  expect(moved).toMatchObject({ from: 1, to: 0 });
  const after = [await emit(b), await emit(b)];
  expect(await c.platform.shards.clients[0]!.exists(c.platform.events.streamKey(b.id))).toBe(1);
  const got = await settled(client, mine(client).indexOf(mine(client).find((e) => e.id === before.id)!) + 3);
  expect(got.slice(-3)).toEqual([before, ...after]);
}, 60_000);
