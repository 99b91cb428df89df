// The 7-day history through Redis and every reader (history-codec.ts keeps its entries smaller):
// the events API's pages (`recent`), `history`, the live streams' reads (`after`, `tail`, `locate`,
// `follow`), the all-instances stream and the dispatch stream each give back every envelope byte
// for byte as published, for standard, official and unpaired instances, in a stream that also
// holds entries written before the change (an upgrade with 7 days of history in place). Real Redis.
import { randomBytes } from "node:crypto";
import type { EventEnvelope, Provider } from "@gw/contracts";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { keys } from "../infra/keys.ts";
import { createIoRedis } from "../infra/redis.ts";
import { ScriptBatch } from "../infra/script-batch.ts";
import { historyCases, OFFICIAL, STANDARD, UNPAIRED } from "../testing/event-history.ts";
import { EventBus, eventEnvelope, readHistoryEntry, shardOf } from "./bus.ts";
import { historyFields } from "./history-codec.ts";

const prefix = `eh${randomBytes(4).toString("hex")}:`;
const k = keys(prefix);
let redis: ReturnType<typeof createIoRedis>;
let conn: ReturnType<typeof createIoRedis>;
let bus: EventBus;
/** What each instance's history holds, oldest first: the JSON as published (or as written before). */
const published = new Map<string, string[]>();
const allPublished: string[] = [];

beforeAll(async () => {
  redis = createIoRedis(inject("redisUrl"), "events-history-test");
  conn = createIoRedis(inject("redisUrl"), "events-history-follow");
  const batch = new ScriptBatch(redis);
  bus = new EventBus(redis, k, batch, 2, 1000, () => true);
  batch.seal();
  await bus.watchAll();
  // Entries written before this layout, in the standard instance's stream: read as they are.
  for (const kind of ["message.any", "message.ack"] as const) {
    const body = JSON.stringify(eventEnvelope(STANDARD, kind, { id: `true_1@c.us_OLD${kind}`, chatId: "1@c.us" }));
    await redis.xadd(k.recentEvents(STANDARD.id), "*", "event", kind, "envelope", body);
    published.set(STANDARD.id, [...(published.get(STANDARD.id) ?? []), body]);
  }
  for (const env of historyCases()) {
    const source = {
      id: env.instanceId,
      provider: env.provider as Provider,
      phone: env.me?.phone ?? "",
      pushName: env.me?.pushName ?? "",
    };
    const out = await bus.publish(source, env.event, env.payload, env.id);
    const body = JSON.stringify(out);
    published.set(env.instanceId, [...(published.get(env.instanceId) ?? []), body]);
    allPublished.push(body);
  }
});
afterAll(async () => {
  const left = await redis.keys(`${prefix}*`);
  if (left.length) await redis.del(...left);
  redis.disconnect();
  conn.disconnect();
});

const INSTANCES = [STANDARD.id, OFFICIAL.id, UNPAIRED.id];
const text = (envs: EventEnvelope[]) => envs.map((e) => JSON.stringify(e));

it("keeps the history compact: the instance's parts once in the field, no entry kept whole", async () => {
  for (const id of INSTANCES) {
    const rows = await redis.xrange(k.recentEvents(id), "-", "+");
    const fresh = rows.filter(([, f]) => f.length === 2);
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.every(([, f]) => f[0]!.startsWith(`\x01${id}\x01`) && !f[1]!.startsWith("="))).toBe(true);
    // The raw entries, as a tool reads them (bench/storage.mjs): the same JSON.
    expect(rows.map(([, f]) => readHistoryEntry(f).envelope)).toEqual(published.get(id));
  }
});

it("the events API (`recent`): pages newest first, kind filters, cursors", async () => {
  for (const id of INSTANCES) {
    const all = published.get(id)!;
    const page = await bus.recent(id, { limit: 100 });
    expect(text(page.data)).toEqual([...all].reverse());
    expect(page.nextCursor).toBeNull();
    const acks = await bus.recent(id, { limit: 100, kinds: ["message.ack"] });
    expect(text(acks.data)).toEqual([...all].reverse().filter((b) => b.includes('"event":"message.ack"')));
    // Two at a time, by cursor: the same events.
    const paged: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const p = await bus.recent(id, { limit: 2, cursor });
      paged.push(...text(p.data));
      if (!p.nextCursor) break;
      cursor = p.nextCursor;
    }
    expect(paged).toEqual([...all].reverse());
  }
});

it("`history`, and the live streams' reads: after, tail, locate, follow", async () => {
  for (const id of INSTANCES) {
    const all = published.get(id)!;
    expect(text(await bus.history(id))).toEqual(all);
    const key = bus.streamKey(id);
    const stored = await bus.after(key, "0-0", 1000, id);
    expect(stored.map((e) => e.envelope)).toEqual(all);
    for (const [i, e] of stored.entries()) {
      const env = JSON.parse(all[i]!) as EventEnvelope;
      expect({ id: e.id, kind: e.kind, instanceId: e.instanceId }).toEqual({
        id: env.id,
        kind: env.event,
        instanceId: id,
      });
      // Resuming after each event (SSE Last-Event-ID, WS `after`): found, and the rest follows.
      const where = await bus.locate(key, e.id);
      expect(where).toEqual({ after: e.streamId, found: true });
      expect((await bus.after(key, where.after, 1000, id)).map((x) => x.envelope)).toEqual(all.slice(i + 1));
    }
    expect(await bus.tail(key)).toEqual({ streamId: stored.at(-1)!.streamId, id: stored.at(-1)!.id });
    const followed = await bus.follow(conn, [key], ["0-0"], { blockMs: 100, count: 1000, instanceOf: () => id });
    expect(followed.map(([key2, events]) => [key2, events.map((e) => e.envelope)])).toEqual([[key, all]]);
  }
});

it("the all-instances stream and the dispatch streams carry the envelopes whole, as before", async () => {
  const admin = await bus.after(bus.streamKey(null), "0-0", 1000);
  expect(admin.map((e) => e.envelope)).toEqual(allPublished);
  expect(admin.map((e) => e.instanceId)).toEqual(allPublished.map((b) => (JSON.parse(b) as EventEnvelope).instanceId));
  const dispatched = [...(await bus.read(0)), ...(await bus.read(1))];
  expect(new Set(text(dispatched))).toEqual(new Set(allPublished));
  for (const id of INSTANCES) {
    const rows = await redis.xrange(k.events(shardOf(id, 2)), "-", "+");
    expect(rows.every(([, f]) => f.join().startsWith("id,evt_"))).toBe(true);
  }
});

it("an entry kept whole is found by its id and read back as it is", async () => {
  const key = k.recentEvents("iwhole");
  const env = { ...eventEnvelope({ ...STANDARD, id: "iwhole" }, "message", { text: "x" }), timestamp: 1.5 };
  const body = JSON.stringify(env);
  const fields = historyFields(env, body);
  expect(fields[1]).toBe(`=${body}`);
  await redis.xadd(key, "*", ...fields);
  const later = eventEnvelope({ ...STANDARD, id: "iwhole" }, "message", { text: "y" });
  await redis.xadd(key, "*", ...historyFields(later, JSON.stringify(later)));
  const where = await bus.locate(key, env.id);
  expect(where.found).toBe(true);
  expect((await bus.after(key, "0-0", 10, "iwhole")).map((e) => e.envelope)).toEqual([body, JSON.stringify(later)]);
  expect((await bus.after(key, where.after, 10, "iwhole")).map((e) => e.id)).toEqual([later.id]);
});

it("EVENT_HISTORY_FORMAT=json writes the entries whole, as before (a rolling upgrade), and they read the same", async () => {
  const jsonPrefix = `${prefix}json:`;
  const jk = keys(jsonPrefix);
  const batch = new ScriptBatch(redis);
  const jsonBus = new EventBus(redis, jk, batch, 2, 1000, () => false, "json");
  batch.seal();
  const source = { id: STANDARD.id, provider: "sim" as Provider, phone: "", pushName: "" };
  const env = await jsonBus.publish(source, "message.any", { id: "true_1@c.us_JSON", chatId: "1@c.us" });
  const [entry] = await redis.xrange(jk.recentEvents(STANDARD.id), "-", "+");
  expect(entry?.[1]).toEqual(["event", "message.any", "envelope", JSON.stringify(env)]);
  expect(text(await jsonBus.history(STANDARD.id))).toEqual([JSON.stringify(env)]);
  await redis.del(jk.recentEvents(STANDARD.id));
});
