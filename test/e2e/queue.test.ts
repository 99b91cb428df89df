// The send queue end to end (spec 2.7, 3.3, 4.4 X-Queue, 4.10, 8): gateway → Redis → Temporal
// workflows on the worker → session pod → simnet. Each test has its own instance (the queue and
// its settings are per instance) and its own virtual contact, so simnet's lists show only it.
// Timing assertions are lower bounds and recorded plans, never "fast enough" upper bounds.
import type { EventEnvelope, QueueItem, QueuePage, QueueSettings } from "@gw/contracts";
import { readHistoryEntry } from "@gw/platform";
import { typingRuleMs } from "@gw/workflows/queue-activities";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";
import { startGateway, uniquePrefix } from "../support/gateway.ts";

type Call = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
interface Inst {
  id: string;
  token: string;
  /** The instance's own number (simnet's sent list and presence log are under it). */
  phone: string;
  call: Call;
}
interface SimSent {
  seq: number;
  id: string;
  to: string;
  chatId: string;
  at: number;
  instanceId: string | null;
  message: { type: string; text?: string };
}
interface SimPresence {
  seq: number;
  at: number;
  to: string | null;
  state: string;
  instanceId: string | null;
}

let c: Cluster;
const KEY_PREFIX = uniquePrefix();
let phoneSeq = 0;
const nextPhone = () => `55319888${String(10_000 + phoneSeq++).padStart(5, "0")}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [100] },
    // Polling GETs and the 10,000 sends of queue_full stay clear of the per-instance rate limit.
    // The worker sweeps every 2 s (TTL expiry anywhere in line), not every 30 s.
    env: { KEY_PREFIX, RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000", QUEUE_RECONCILE_MS: "2000" },
  });
}, 60_000);
afterAll(() => c?.close());

/** A paired, WORKING instance of its own (billing active: no free-trial daily cap). */
async function newInstance(): Promise<Inst> {
  const phone = nextPhone();
  const { id, token } = await c.createInstance({ billingStatus: "active" });
  const start = await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
  expect(start.status).toBe(200);
  await c.pair(id, phone);
  const as = c.as(token);
  return { id, token, phone, call: (path, init) => as(`/v1/instances/${id}${path}`, init) };
}

/** A virtual contact (an account without devices): what it receives is kept by simnet. */
async function newContact(): Promise<string> {
  const phone = nextPhone();
  const res = await c.sim("POST", "/simnet/phones", { phone, pushName: "contato" });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return phone;
}

function sendText(
  inst: Inst,
  to: string,
  text: string,
  opts: { queue?: string; body?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.queue !== undefined) headers["x-queue"] = opts.queue;
  return inst.call("/messages/text", { method: "POST", headers, json: { phone: to, text, ...opts.body } });
}

/** A queued text: asserts the 202 and answers the queue item. */
async function enqueue(inst: Inst, to: string, text: string, body: Record<string, unknown> = {}): Promise<QueueItem> {
  const item = await expectJson<QueueItem>(await sendText(inst, to, text, { queue: "true", body }), 202);
  expect(item.id).toMatch(/^qm_[0-9a-z]{26}$/);
  return item;
}

/** `n` queued texts "<prefix> 0" … "<prefix> n-1", one after the other (their order is the queue's), no typing. */
async function enqueueNumbered(
  inst: Inst,
  to: string,
  prefix: string,
  n: number,
  delayMessage: number,
): Promise<QueueItem[]> {
  const accepted: QueueItem[] = [];
  for (let i = 0; i < n; i++)
    accepted.push(await enqueue(inst, to, `${prefix} ${i}`, { delayMessage, delayTyping: 0 }));
  return accepted;
}

async function getItem(inst: Inst, qid: string): Promise<QueueItem> {
  return expectJson<QueueItem>(await inst.call(`/queue/${qid}`));
}

async function settingsOf(inst: Inst): Promise<QueueSettings> {
  return expectJson<QueueSettings>(await inst.call("/queue/settings"));
}

async function patchSettings(inst: Inst, json: Record<string, unknown>): Promise<QueueSettings> {
  return expectJson<QueueSettings>(await inst.call("/queue/settings", { method: "PATCH", json }));
}

async function listQueue(inst: Inst, query = ""): Promise<QueuePage> {
  return expectJson<QueuePage>(await inst.call(`/queue${query}`));
}

async function waitUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(100);
    last = await read();
  }
  return last;
}

const FINAL = new Set(["sent", "failed", "expired", "cancelled"]);

/** Waits until every item is in a final status; answers them in the given order. */
async function waitFinal(inst: Inst, qids: string[], timeoutMs = 90_000): Promise<QueueItem[]> {
  const done = new Map<string, QueueItem>();
  const until = Date.now() + timeoutMs;
  for (;;) {
    // Only the items not final yet: a long list polled whole would load the in-process cluster.
    const open = qids.filter((q) => !done.has(q)).slice(0, 20);
    if (open.length === 0) return qids.map((q) => done.get(q)!);
    for (const it of await Promise.all(open.map((q) => getItem(inst, q)))) {
      if (FINAL.has(it.status)) done.set(it.id, it);
    }
    if (qids.every((q) => done.has(q))) continue;
    if (Date.now() > until) {
      const left = qids.filter((q) => !done.has(q));
      throw new Error(
        `timed out: ${left.length} item(s) not final, first ${JSON.stringify(await getItem(inst, left[0]!))}`,
      );
    }
    await sleep(200);
  }
}

/** What the instance's number sent to `contact`, in simnet's order. */
async function sentTo(inst: Inst, contact: string): Promise<SimSent[]> {
  const res = await c.sim("GET", `/simnet/phones/${inst.phone}/sent`);
  const { messages } = (await res.json()) as { messages: SimSent[] };
  return messages.filter((m) => m.to === `${contact}@c.us` || m.chatId === `${contact}@c.us`);
}

async function waitFirstSend(inst: Inst, to: string): Promise<void> {
  await waitUntil(
    () => sentTo(inst, to),
    (s) => s.length >= 1,
    "first send",
  );
}

async function presencesTo(inst: Inst, contact: string): Promise<SimPresence[]> {
  const res = await c.sim("GET", `/simnet/phones/${inst.phone}/presence-log`);
  const { presences } = (await res.json()) as { presences: SimPresence[] };
  return presences.filter((p) => p.to === `${contact}@c.us`);
}

/** Every event of the instance (its own recent-events stream: complete, unlike a shard read). */
async function eventsOf(inst: Inst, kind: string): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = [];
  let from = "-";
  for (;;) {
    const rows = await c.platform.redis.xrange(c.platform.keys.recentEvents(inst.id), from, "+", "COUNT", 5000);
    for (const [, fields] of rows) {
      const e = readHistoryEntry(fields);
      if (e.kind === kind) out.push(JSON.parse(e.envelope) as EventEnvelope);
    }
    if (rows.length < 5000) return out;
    from = `(${rows[rows.length - 1]![0]}`;
  }
}

const textOf = (m: SimSent) => m.message.text;
const payload = (e: EventEnvelope) => e.payload as unknown as QueueItem;

// ------------------------------------------------------------------------------------------------

describe("delivery by the queue", () => {
  it("keeps the enqueue order: simnet receives the items exactly in the order they were accepted", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const texts = Array.from({ length: 10 }, (_, i) => `ordem ${i}`);
    const accepted: QueueItem[] = [];
    for (const t of texts) accepted.push(await enqueue(inst, to, t, { delayMessage: 0, delayTyping: 0 }));
    expect(accepted[0]).toMatchObject({
      status: "queued",
      route: "POST /messages/text",
      chatId: `${to}@c.us`,
      messageId: null,
      attempts: 0,
      finishedAt: null,
      error: null,
    });
    expect(new Set(accepted.map((i) => i.id)).size).toBe(10);

    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    for (const it of items) {
      expect(it.status, JSON.stringify(it)).toBe("sent");
      expect(it.messageId).toMatch(new RegExp(`^true_${to}@c\\.us_[A-Z0-9]+$`));
      expect(it.finishedAt).not.toBeNull();
      expect(it.position).toBeNull();
      expect(it.error).toBeNull();
      expect(it.attempts).toBe(1);
      expect(it.delayMs).toBe(0);
      expect(it.typingMs).toBe(0);
    }
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(texts);
    // The item's messageId is the message simnet recorded.
    expect(sent.map((m) => m.id)).toEqual(items.map((i) => i.messageId!.split("_").pop()));

    // queue.sent: one per item, payload = the queue item with its messageId.
    const events = await waitUntil(
      () => eventsOf(inst, "queue.sent"),
      (e) => e.length >= 10,
      "10 queue.sent",
    );
    expect(events).toHaveLength(10);
    const byId = new Map(events.map((e) => [payload(e).id, payload(e)]));
    for (const it of items) {
      expect(byId.get(it.id)).toMatchObject({ id: it.id, status: "sent", messageId: it.messageId, chatId: it.chatId });
      // Spec 6: `timestamp` in unix seconds (the moment it finished), along with the ISO fields.
      expect(byId.get(it.id)).toMatchObject({
        createdAt: it.createdAt,
        finishedAt: it.finishedAt,
        timestamp: Math.floor(Date.parse(it.finishedAt!) / 1000),
      });
    }
    expect(await eventsOf(inst, "queue.failed")).toEqual([]);
  }, 120_000);

  it("waits a random delayMin..delayMax between sends: planned delayMs in range, gaps at least that long", async () => {
    const inst = await newInstance();
    const to = await newContact();
    expect(await patchSettings(inst, { delayMin: 1, delayMax: 2 })).toMatchObject({ delayMin: 1, delayMax: 2 });
    const accepted: QueueItem[] = [];
    // delayTyping 0: the gap between two sends is the drawn delay alone.
    for (let i = 0; i < 4; i++) accepted.push(await enqueue(inst, to, `intervalo ${i}`, { delayTyping: 0 }));
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    for (const it of items) {
      expect(it.status).toBe("sent");
      expect(it.delayMs).toBeGreaterThanOrEqual(1000);
      expect(it.delayMs).toBeLessThanOrEqual(2000);
      expect(it.typingMs).toBe(0);
    }
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(items.map((_, i) => `intervalo ${i}`));
    for (let i = 1; i < sent.length; i++) {
      const gap = sent[i]!.at - sent[i - 1]!.at;
      // The next item's delay starts only after the previous send was made.
      expect(gap, `gap ${i}`).toBeGreaterThanOrEqual(items[i]!.delayMs! - 5);
      expect(gap, `gap ${i}`).toBeGreaterThanOrEqual(995);
    }
  }, 120_000);

  it("an item's own delayMessage overrides the settings and is recorded as its delayMs", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await patchSettings(inst, { delayMin: 0, delayMax: 0 });
    const first = await enqueue(inst, to, "primeiro", { delayMessage: 0, delayTyping: 0 });
    const second = await enqueue(inst, to, "segundo", { delayMessage: 1.5, delayTyping: 0 });
    const [a, b] = await waitFinal(inst, [first.id, second.id]);
    expect(a).toMatchObject({ status: "sent", delayMs: 0 });
    expect(b).toMatchObject({ status: "sent", delayMs: 1500 });
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(["primeiro", "segundo"]);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(1495);
  }, 60_000);

  it("shows the typing indicator in the chat before each send (rule when delayTyping is absent)", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await patchSettings(inst, { delayMin: 0, delayMax: 0 });
    const texts = ["digitando um", "digitando dois, um pouco mais longo que o primeiro", "três"];
    const accepted: QueueItem[] = [];
    for (const t of texts) accepted.push(await enqueue(inst, to, t));
    const explicit = await enqueue(inst, to, "com delayTyping", { delayTyping: 2 });
    const items = await waitFinal(inst, [...accepted.map((i) => i.id), explicit.id]);
    texts.forEach((t, i) => {
      expect(items[i]).toMatchObject({ status: "sent", delayMs: 0, typingMs: typingRuleMs(t.length) });
    });
    expect(items[3]).toMatchObject({ status: "sent", typingMs: 2000 });

    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual([...texts, "com delayTyping"]);
    const typing = (await presencesTo(inst, to)).filter((p) => p.state === "composing");
    // Each send has a "composing" of its chat after the previous send and before itself, about
    // typingMs earlier. Both times are simnet's arrival times of two frames, and on a loaded machine
    // the first can arrive tens of ms late: 80 % of typingMs still tells a wait from none.
    let prevSeq = 0;
    sent.forEach((m, i) => {
      const before = typing.filter((p) => p.seq > prevSeq && p.seq < m.seq);
      expect(before.length, `typing before "${textOf(m)}"`).toBeGreaterThanOrEqual(1);
      const last = before[before.length - 1]!;
      expect(m.at - last.at, `typing time of "${textOf(m)}"`).toBeGreaterThanOrEqual(items[i]!.typingMs! * 0.8);
      prevSeq = m.seq;
    });
  }, 90_000);

  it("a queued voice note shows 'recording', not typing, before it is sent", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const file = { data: Buffer.from("OggS voice bytes").toString("base64"), mimetype: "audio/ogg" };
    const res = await inst.call("/messages/voice", {
      method: "POST",
      headers: { "x-queue": "true" },
      json: { phone: to, file, convert: false, delayMessage: 0, delayTyping: 1 },
    });
    const item = await expectJson<QueueItem>(res, 202);
    const [done] = await waitFinal(inst, [item.id]);
    expect(done!.status).toBe("sent");
    const [sent] = await sentTo(inst, to);
    const shown = (await presencesTo(inst, to)).filter((p) => p.seq < sent!.seq).map((p) => p.state);
    expect(shown).toContain("recording");
    expect(shown).not.toContain("composing");
  }, 60_000);

  it("sends no typing indicator when delayTyping is 0", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const item = await enqueue(inst, to, "sem digitar", { delayMessage: 0, delayTyping: 0 });
    expect((await waitFinal(inst, [item.id]))[0]!.status).toBe("sent");
    expect(await presencesTo(inst, to)).toEqual([]);
  }, 60_000);

  it("keeps order and loses nothing across the workflow's continue-as-new (more than 100 items)", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const n = 105;
    const accepted = await enqueueNumbered(inst, to, "lote", n, 0);
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
      240_000,
    );
    expect(items.filter((i) => i.status !== "sent")).toEqual([]);
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(accepted.map((_, i) => `lote ${i}`));
    expect(new Set(sent.map((m) => m.id)).size).toBe(n);
  }, 300_000);
});

describe("GET /queue", () => {
  it("pending: send order with positions, paginated by limit and nextCursor; paused and pending on the page", async () => {
    const inst = await newInstance();
    const to = await newContact();
    expect(await expectJson(await inst.call("/queue/pause", { method: "POST" }))).toMatchObject({ paused: true });
    const accepted = await enqueueNumbered(inst, to, "lista", 5, 0);
    // The 202 body is the queue item, with its place in line.
    expect(accepted.map((i) => i.position)).toEqual([0, 1, 2, 3, 4]);
    expect(accepted.every((i) => i.status === "queued")).toBe(true);

    const whole = await listQueue(inst);
    expect(whole).toMatchObject({ paused: true, pending: 5, nextCursor: null });
    expect(whole.data.map((i) => i.id)).toEqual(accepted.map((i) => i.id));
    expect(whole.data.map((i) => i.position)).toEqual([0, 1, 2, 3, 4]);
    expect(whole.data[0]).toMatchObject({
      status: "queued",
      chatId: accepted[0]!.chatId,
      route: "POST /messages/text",
    });

    const seen: QueueItem[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: QueuePage = await listQueue(inst, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen.map((i) => i.id)).toEqual(accepted.map((i) => i.id));
    expect(seen.map((i) => i.position)).toEqual([0, 1, 2, 3, 4]);
    // status=pending is the default.
    expect((await listQueue(inst, "?status=pending")).data.map((i) => i.id)).toEqual(accepted.map((i) => i.id));
  }, 60_000);

  it("all and final statuses: history newest first, each final status on its own list", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const accepted = await enqueueNumbered(inst, to, "hist", 5, 0);
    const ids = accepted.map((i) => i.id);
    // Cancel 3 then 1 (in that order: newest cancelled first is 1).
    await expectJson(await inst.call(`/queue/${ids[3]}`, { method: "DELETE" }));
    await sleep(5);
    await expectJson(await inst.call(`/queue/${ids[1]}`, { method: "DELETE" }));
    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const items = await waitFinal(inst, ids);
    expect(items.map((i) => i.status)).toEqual(["sent", "cancelled", "sent", "cancelled", "sent"]);

    const all = await listQueue(inst, "?status=all");
    expect(all.data.map((i) => i.id)).toEqual([...ids].reverse());
    expect(all).toMatchObject({ pending: 0, paused: false });

    const cancelled = await listQueue(inst, "?status=cancelled");
    expect(cancelled.data.map((i) => i.id)).toEqual([ids[1], ids[3]]);
    expect(cancelled.data.every((i) => i.status === "cancelled" && i.position === null)).toBe(true);

    const sent = await listQueue(inst, "?status=sent");
    // Newest first: sent in queue order, so the last sent leads.
    expect(sent.data.map((i) => i.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(sent.data.every((i) => i.messageId?.startsWith("true_"))).toBe(true);

    expect((await listQueue(inst, "?status=failed")).data).toEqual([]);
    expect((await listQueue(inst, "?status=expired")).data).toEqual([]);
    expect((await listQueue(inst)).data).toEqual([]);

    // Pagination of the history: limit 2 → 2, 2, 1, nothing lost or repeated.
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: QueuePage = await listQueue(inst, `?status=all&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.data.map((i) => i.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([...ids].reverse());
    const sentPage1 = await listQueue(inst, "?status=sent&limit=2");
    expect(sentPage1.data.map((i) => i.id)).toEqual([ids[4], ids[2]]);
    const sentPage2 = await listQueue(inst, `?status=sent&limit=2&cursor=${sentPage1.nextCursor}`);
    expect(sentPage2.data.map((i) => i.id)).toEqual([ids[0]]);
  }, 60_000);

  // The `all` list shows the position of items still queued, like
  // GET /queue/{id} and the pending list give their place in line (spec 2.7: position integer).
  it("all: items still queued keep their position", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const a = await enqueue(inst, to, "pos 0", { delayMessage: 0, delayTyping: 0 });
    const b = await enqueue(inst, to, "pos 1", { delayMessage: 0, delayTyping: 0 });
    expect((await getItem(inst, b.id)).position).toBe(1);
    const all = await listQueue(inst, "?status=all");
    expect(all.data.map((i) => [i.id, i.position])).toEqual([
      [b.id, 1],
      [a.id, 0],
    ]);
  });

  it("rejects a bad status, limit or cursor with 422 validation_error", async () => {
    const inst = await newInstance();
    for (const q of ["?status=bogus", "?limit=0", "?limit=501", "?limit=abc", "?limit=1.5", "?cursor=abc"]) {
      await expectError(await inst.call(`/queue${q}`), 422, "validation_error");
    }
  });
});

describe("GET/PATCH /queue/settings", () => {
  it("has the documented defaults; PATCH changes only the fields sent", async () => {
    const inst = await newInstance();
    const defaults = await settingsOf(inst);
    expect(defaults).toEqual({ mode: "direct", delayMin: 1, delayMax: 3, ttlHours: 24, paused: false, pending: 0 });
    expect(await patchSettings(inst, { ttlHours: 5 })).toEqual({ ...defaults, ttlHours: 5 });
    expect(await patchSettings(inst, { delayMax: 10 })).toEqual({ ...defaults, ttlHours: 5, delayMax: 10 });
    expect(await patchSettings(inst, { mode: "queue", delayMin: 0 })).toEqual({
      ...defaults,
      ttlHours: 5,
      delayMax: 10,
      mode: "queue",
      delayMin: 0,
    });
    expect(await patchSettings(inst, {})).toEqual(await settingsOf(inst));
    expect(await patchSettings(inst, { delayMin: 60, delayMax: 60, ttlHours: 168 })).toMatchObject({
      delayMin: 60,
      delayMax: 60,
      ttlHours: 168,
    });
    expect(await patchSettings(inst, { delayMin: 0, delayMax: 0, ttlHours: 1, mode: "direct" })).toEqual({
      ...defaults,
      delayMin: 0,
      delayMax: 0,
      ttlHours: 1,
    });
  });

  it("refuses delayMin > delayMax, out-of-range and non-integer values with 422, changing nothing", async () => {
    const inst = await newInstance();
    const before = await settingsOf(inst);
    const bad: [Record<string, unknown>, string][] = [
      [{ delayMin: 5, delayMax: 2 }, "delayMin"],
      [{ delayMin: 4 }, "delayMin"], // above the current delayMax (3)
      [{ delayMax: 0 }, "delayMax"], // below the current delayMin (1)
      [{ ttlHours: 0 }, "ttlHours"],
      [{ ttlHours: 169 }, "ttlHours"],
      [{ ttlHours: 1.5 }, "ttlHours"],
      [{ delayMin: 0.5 }, "delayMin"],
      [{ delayMax: 2.5 }, "delayMax"],
      [{ delayMin: -1 }, "delayMin"],
      [{ delayMax: 61 }, "delayMax"],
      [{ delayMax: "5" }, "delayMax"],
      [{ ttlHours: null }, "ttlHours"],
      [{ mode: "fila" }, "mode"],
    ];
    for (const [json, field] of bad) {
      const body = await expectError(
        await inst.call("/queue/settings", { method: "PATCH", json }),
        422,
        "validation_error",
      );
      expect(Object.keys(body.error.details ?? {}), JSON.stringify(json)).toContain(field);
    }
    // A mix of a good and a bad field changes nothing either.
    await expectError(
      await inst.call("/queue/settings", { method: "PATCH", json: { ttlHours: 2, delayMin: 61 } }),
      422,
      "validation_error",
    );
    expect(await settingsOf(inst)).toEqual(before);
  });
});

describe("X-Queue and the queue mode (spec 4.4)", () => {
  it("mode=queue queues a plain send (202); X-Queue: false sends at once (201); mode=direct sends at once", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const direct = await expectJson(await sendText(inst, to, "direto"), 201);
    expect(direct).toMatchObject({ status: "sent", chatId: `${to}@c.us` });

    await patchSettings(inst, { mode: "queue", delayMin: 0, delayMax: 0 });
    const queued = await expectJson<QueueItem>(await sendText(inst, to, "modo fila"), 202);
    expect(queued.id).toMatch(/^qm_/);
    expect(queued.status).toBe("queued");

    const forced = await expectJson(await sendText(inst, to, "x-queue false", { queue: "false" }), 201);
    expect(forced).toMatchObject({ status: "sent" });
    expect(forced.id).toMatch(/^true_/);
    // Case and spaces do not matter.
    await expectJson(await sendText(inst, to, "x-queue FALSE", { queue: " FALSE " }), 201);

    expect((await waitFinal(inst, [queued.id]))[0]!.status).toBe("sent");
    const texts = (await sentTo(inst, to)).map(textOf);
    expect(texts.sort()).toEqual(["direto", "modo fila", "x-queue FALSE", "x-queue false"].sort());

    await patchSettings(inst, { mode: "direct" });
    await expectJson(await sendText(inst, to, "direto de novo"), 201);
    const forcedQueue = await expectJson<QueueItem>(await sendText(inst, to, "x-queue true", { queue: "true" }), 202);
    expect((await waitFinal(inst, [forcedQueue.id]))[0]!.status).toBe("sent");
  }, 60_000);

  it("delayMessage or delayTyping imply the queue; they do not combine with X-Queue: false", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const a = await expectJson<QueueItem>(await sendText(inst, to, "d1", { body: { delayMessage: 0 } }), 202);
    const b = await expectJson<QueueItem>(await sendText(inst, to, "d2", { body: { delayTyping: 0 } }), 202);
    expect([a.status, b.status]).toEqual(["queued", "queued"]);
    for (const body of [{ delayMessage: 1 }, { delayTyping: 1 }, { delayMessage: 0 }]) {
      const err = await expectError(await sendText(inst, to, "x", { queue: "false", body }), 422, "validation_error");
      expect(Object.keys(err.error.details ?? {})).toEqual(Object.keys(body));
    }
    await expectError(await sendText(inst, to, "x", { queue: "talvez" }), 422, "validation_error");
    for (const body of [{ delayMessage: 61 }, { delayMessage: -1 }, { delayTyping: 16 }, { delayTyping: -1 }]) {
      const err = await expectError(await sendText(inst, to, "x", { body }), 422, "validation_error");
      expect(Object.keys(err.error.details ?? {})).toEqual(Object.keys(body));
    }
    await waitFinal(inst, [a.id, b.id]);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["d1", "d2"]);
  }, 60_000);

  it("other send routes go through the queue too; a queued send is validated before it is accepted", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const q = { "x-queue": "true" };
    const poll = await expectJson<QueueItem>(
      await inst.call("/messages/poll", {
        method: "POST",
        headers: q,
        json: { phone: to, poll: { name: "Qual?", options: ["a", "b"], multipleAnswers: false }, delayTyping: 0 },
      }),
      202,
    );
    const location = await expectJson<QueueItem>(
      await inst.call("/messages/location", {
        method: "POST",
        headers: q,
        json: { phone: to, latitude: -19.9, longitude: -43.9, title: "Praça", delayTyping: 0 },
      }),
      202,
    );
    expect(poll).toMatchObject({ route: "POST /messages/poll", chatId: `${to}@c.us`, status: "queued" });
    expect(location).toMatchObject({ route: "POST /messages/location", status: "queued", position: 1 });

    // Refused at once, nothing queued: no chat, a missing field, lists on a standard instance.
    const noChat = await expectError(
      await inst.call("/messages/text", { method: "POST", headers: q, json: { text: "sem chat" } }),
      422,
      "validation_error",
    );
    expect(noChat.error.details).toHaveProperty("chatId");
    await expectError(
      await inst.call("/messages/text", { method: "POST", headers: q, json: { phone: to } }),
      422,
      "validation_error",
    );
    await expectError(
      await inst.call("/messages/list", {
        method: "POST",
        headers: q,
        json: {
          phone: to,
          message: { title: "t", button: "b", sections: [{ title: "s", rows: [{ title: "r", rowId: "1" }] }] },
        },
      }),
      501,
      "not_supported",
    );

    const items = await waitFinal(inst, [poll.id, location.id]);
    expect(items.map((i) => i.status)).toEqual(["sent", "sent"]);
    expect((await sentTo(inst, to)).map((m) => m.message.type)).toEqual(["poll", "location"]);
    expect((await listQueue(inst, "?status=all")).data.map((i) => i.id)).toEqual([location.id, poll.id]);
  }, 60_000);

  it("a queued send is refused before its 202 for what its send would certainly fail on; nothing is queued", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const q = { "x-queue": "true" };
    const post = (route: string, json: Record<string, unknown>) =>
      inst.call(`/messages/${route}`, { method: "POST", headers: q, json: { phone: to, ...json } });
    const invalid = async (res: Response, field: string) => {
      const body = await expectError(res, 422, "validation_error");
      expect(body.error.details).toHaveProperty([field]);
    };
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
    await invalid(await post("text", { text: "oi", mentions: ["não é número"] }), "mentions");
    await invalid(await post("text", { text: "oi", mentions: ["all"] }), "mentions"); // not a group
    await invalid(await post("text", { text: "oi", reply_to: "não é id!" }), "reply_to");
    await invalid(await post("image", { file: { data: "@@@", mimetype: "image/png" } }), "file.data");
    await invalid(await post("image", { file: { data: png, mimetype: "application/pdf" } }), "file");
    await invalid(await post("sticker", { file: { data: png, mimetype: "image/png" } }), "file");
    await expectError(await post("image", { file: { url: "ftp://example.com/a.png" } }), 400, "url_not_allowed");
    await invalid(
      await post("event", { event: { name: "Reunião", startTime: 1_900_000_000, endTime: 1_800_000_000 } }),
      "event.endTime",
    );
    await invalid(await post("forward", { messageId: "3EB0AAAAAAAAAAAAAAAAAAAA" }), "messageId");
    expect(await settingsOf(inst)).toMatchObject({ pending: 0 });
    expect((await listQueue(inst, "?status=all")).data).toEqual([]);

    // The same request, valid, is accepted.
    const ok = await expectJson<QueueItem>(await post("image", { file: { data: png, mimetype: "image/png" } }), 202);
    expect(ok.status).toBe("queued");
  }, 60_000);

  it("the same Idempotency-Key on a queued send answers the first item and queues it once", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const headers = { "idempotency-key": "fila-chave-1" };
    const first = await expectJson<QueueItem>(
      await sendText(inst, to, "uma vez", { queue: "true", headers, body: { delayMessage: 0, delayTyping: 0 } }),
      202,
    );
    const again = await expectJson<QueueItem>(
      await sendText(inst, to, "uma vez", { queue: "true", headers, body: { delayMessage: 0, delayTyping: 0 } }),
      202,
    );
    expect(again.id).toBe(first.id);
    await waitFinal(inst, [first.id]);
    await sleep(500);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["uma vez"]);
    expect((await listQueue(inst, "?status=all")).data.map((i) => i.id)).toEqual([first.id]);
  }, 60_000);
});

describe("pause and resume", () => {
  it("while paused, sends are accepted and nothing leaves; resume sends them in order", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const paused = await expectJson<QueueSettings>(await inst.call("/queue/pause", { method: "POST" }));
    expect(paused).toMatchObject({ paused: true, pending: 0 });
    // Pausing twice is harmless.
    expect(await expectJson(await inst.call("/queue/pause", { method: "POST" }))).toMatchObject({ paused: true });
    const accepted = await enqueueNumbered(inst, to, "pausa", 3, 0);
    await sleep(3_000);
    const held = await Promise.all(accepted.map((i) => getItem(inst, i.id)));
    expect(held.map((i) => i.status)).toEqual(["queued", "queued", "queued"]);
    expect(held.map((i) => i.attempts)).toEqual([0, 0, 0]);
    expect(await sentTo(inst, to)).toEqual([]);
    expect(await settingsOf(inst)).toMatchObject({ paused: true, pending: 3 });

    const resumed = await expectJson<QueueSettings>(await inst.call("/queue/resume", { method: "POST" }));
    expect(resumed).toMatchObject({ paused: false, pending: 3 });
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    expect(items.map((i) => i.status)).toEqual(["sent", "sent", "sent"]);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["pausa 0", "pausa 1", "pausa 2"]);
    expect(await settingsOf(inst)).toMatchObject({ paused: false, pending: 0 });
    // Resume with nothing pending, twice: harmless.
    expect(await expectJson(await inst.call("/queue/resume", { method: "POST" }))).toMatchObject({ paused: false });
  }, 60_000);

  it("a pause while an item waits out its delay shows no typing indicator; resume types, then sends", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const item = await enqueue(inst, to, "sem digitar", { delayMessage: 3, delayTyping: 1 });
    await waitUntil(
      () => getItem(inst, item.id),
      (i) => i.delayMs === 3_000,
      "the item planned (its delay running)",
    );
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    // Past the delay and the typing time: the contact saw nothing and got nothing.
    await sleep(6_000);
    expect(await presencesTo(inst, to)).toEqual([]);
    expect(await sentTo(inst, to)).toEqual([]);
    expect((await getItem(inst, item.id)).status).toBe("queued");

    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const [done] = await waitFinal(inst, [item.id]);
    expect(done!.status).toBe("sent");
    const typing = (await presencesTo(inst, to)).filter((p) => p.state === "composing");
    const [sent] = await sentTo(inst, to);
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing.every((p) => p.seq < sent!.seq)).toBe(true);
  }, 60_000);

  it("a pause while items are flowing stops the next ones; resume carries on without loss or repeat", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const accepted = await enqueueNumbered(inst, to, "fluxo", 6, 0.5);
    await waitFirstSend(inst, to);
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    // At most the item already in flight finishes after the pause; once none is `sending`,
    // nothing more may leave.
    await waitUntil(
      () => listQueue(inst),
      (page) => page.data.every((i) => i.status === "queued"),
      "no item sending",
    );
    const atPause = (await sentTo(inst, to)).length;
    await sleep(3_000);
    expect((await sentTo(inst, to)).length).toBe(atPause);
    expect(atPause).toBeLessThan(6);
    const pending = await listQueue(inst);
    expect(pending.data.map((i) => i.id)).toEqual(accepted.slice(atPause).map((i) => i.id));
    expect(pending.data.every((i) => i.status === "queued")).toBe(true);

    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    expect(items.every((i) => i.status === "sent")).toBe(true);
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(accepted.map((_, i) => `fluxo ${i}`));
  }, 90_000);
});

describe("cancel", () => {
  it("DELETE /queue/{id} cancels a queued item (queue.failed with status cancelled); again → 422", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const a = await enqueue(inst, to, "cancelado", { delayMessage: 0, delayTyping: 0 });
    const b = await enqueue(inst, to, "enviado", { delayMessage: 0, delayTyping: 0 });

    const cancelled = await expectJson<QueueItem>(await inst.call(`/queue/${a.id}`, { method: "DELETE" }));
    expect(cancelled).toMatchObject({ id: a.id, status: "cancelled", position: null, messageId: null });
    expect(cancelled.finishedAt).not.toBeNull();
    expect(await getItem(inst, a.id)).toMatchObject({ status: "cancelled" });
    // b moved up.
    expect(await getItem(inst, b.id)).toMatchObject({ status: "queued", position: 0 });
    expect(await settingsOf(inst)).toMatchObject({ pending: 1 });

    const failed = await waitUntil(
      () => eventsOf(inst, "queue.failed"),
      (e) => e.length >= 1,
      "queue.failed",
    );
    expect(failed).toHaveLength(1);
    expect(payload(failed[0]!)).toMatchObject({
      id: a.id,
      status: "cancelled",
      chatId: a.chatId,
      createdAt: cancelled.createdAt,
      finishedAt: cancelled.finishedAt,
      timestamp: Math.floor(Date.parse(cancelled.finishedAt!) / 1000),
    });

    const again = await expectError(await inst.call(`/queue/${a.id}`, { method: "DELETE" }), 422, "validation_error");
    expect(again.error.details).toHaveProperty("queueId");

    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    expect((await waitFinal(inst, [b.id]))[0]!.status).toBe("sent");
    await expectError(await inst.call(`/queue/${b.id}`, { method: "DELETE" }), 422, "validation_error");
    await sleep(500);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["enviado"]);
    expect(await eventsOf(inst, "queue.failed")).toHaveLength(1);
    expect((await eventsOf(inst, "queue.sent")).map((e) => payload(e).id)).toEqual([b.id]);
  }, 60_000);

  it("cancelling the item waiting out its delay stops the wait: the next item goes at once", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const slow = await enqueue(inst, to, "nunca", { delayMessage: 60, delayTyping: 0 });
    const next = await enqueue(inst, to, "logo", { delayMessage: 0, delayTyping: 0 });
    // Its turn came: planned (delayMs recorded), waiting its 60 s.
    await waitUntil(
      () => getItem(inst, slow.id),
      (i) => i.delayMs === 60_000,
      "the slow item planned",
    );
    expect(await getItem(inst, slow.id)).toMatchObject({ status: "queued", position: 0 });
    await expectJson(await inst.call(`/queue/${slow.id}`, { method: "DELETE" }));
    // Well before the 60 s the cancelled item would have waited.
    const [sentNext] = await waitFinal(inst, [next.id], 40_000);
    expect(sentNext!.status).toBe("sent");
    expect(await getItem(inst, slow.id)).toMatchObject({ status: "cancelled" });
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["logo"]);
  }, 60_000);

  it("DELETE /queue cancels every queued item: {cancelled: n} and one queue.failed each", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const accepted = await enqueueNumbered(inst, to, "todos", 4, 0);
    expect(await expectJson(await inst.call("/queue", { method: "DELETE" }))).toEqual({ cancelled: 4 });
    const items = await Promise.all(accepted.map((i) => getItem(inst, i.id)));
    expect(items.map((i) => i.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    expect(await listQueue(inst)).toMatchObject({ data: [], pending: 0 });
    const failed = await waitUntil(
      () => eventsOf(inst, "queue.failed"),
      (e) => e.length >= 4,
      "4 queue.failed",
    );
    expect(failed.map((e) => payload(e).id).sort()).toEqual(accepted.map((i) => i.id).sort());
    expect(failed.every((e) => payload(e).status === "cancelled")).toBe(true);
    expect(await expectJson(await inst.call("/queue", { method: "DELETE" }))).toEqual({ cancelled: 0 });

    // The queue still works afterwards; the cancelled items are never sent.
    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const after = await enqueue(inst, to, "depois", { delayMessage: 0, delayTyping: 0 });
    expect((await waitFinal(inst, [after.id]))[0]!.status).toBe("sent");
    await sleep(500);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["depois"]);
    expect(await eventsOf(inst, "queue.failed")).toHaveLength(4);
  }, 60_000);

  it("DELETE /queue on a running queue cancels what waits; nothing cancelled is sent", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const accepted = await enqueueNumbered(inst, to, "corrida", 5, 1);
    await waitFirstSend(inst, to);
    const { cancelled } = await expectJson<{ cancelled: number }>(await inst.call("/queue", { method: "DELETE" }));
    expect(cancelled).toBeGreaterThanOrEqual(1);
    expect(cancelled).toBeLessThanOrEqual(4);
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    await sleep(2_000);
    const sent = (await sentTo(inst, to)).map(textOf);
    const sentIds = items.filter((i) => i.status === "sent").map((i) => i.id);
    expect(items.filter((i) => i.status === "cancelled")).toHaveLength(cancelled);
    expect(sentIds.length + cancelled).toBe(5);
    // Exactly the items marked sent reached the contact, in order.
    expect(sent).toEqual(items.flatMap((it, i) => (it.status === "sent" ? [`corrida ${i}`] : [])));
    expect(await listQueue(inst)).toMatchObject({ pending: 0 });
  }, 60_000);

  it("unknown or malformed queue ids → 404 not_found; another instance's item is not visible", async () => {
    const inst = await newInstance();
    const other = await newInstance();
    const to = await newContact();
    await expectJson(await other.call("/queue/pause", { method: "POST" }));
    const foreign = await enqueue(other, to, "de outra instância", { delayMessage: 0, delayTyping: 0 });

    const unknown = `qm_${"0".repeat(26)}`;
    for (const id of [unknown, foreign.id, "qm_123", "abc", "QM_00000000000000000000000000", `qm_${"Z".repeat(26)}`]) {
      await expectError(await inst.call(`/queue/${id}`), 404, "not_found");
      await expectError(await inst.call(`/queue/${id}`, { method: "DELETE" }), 404, "not_found");
    }
    // The other instance's item was not touched.
    expect(await getItem(other, foreign.id)).toMatchObject({ status: "queued" });
  }, 60_000);
});

describe("disconnected number and TTL", () => {
  /** Moves an item's expiresAt (ttlHours is at least 1 h): the store's own field, as the workflow reads it. */
  async function expireAt(inst: Inst, qid: string, at: number) {
    const key = c.platform.keys.queueItem(inst.id, qid);
    expect(await c.platform.redis.exists(key)).toBe(1);
    await c.platform.redis.hset(key, "expiresAt", String(at));
    // The sweep's index of expiry times (kept by enqueue) follows.
    await c.platform.redis.zadd(c.platform.keys.queuePending(inst.id).replace(/pending$/, "expiry"), at, qid);
  }

  async function stop(inst: Inst) {
    await expectJson(await inst.call("/stop", { method: "POST" }));
    await c.waitForStatus(inst.id, "STOPPED");
  }

  it("ttlHours sets expiresAt at enqueue", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await patchSettings(inst, { ttlHours: 2 });
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const item = await enqueue(inst, to, "ttl", { delayMessage: 0, delayTyping: 0 });
    expect(Date.parse(item.expiresAt) - Date.parse(item.createdAt)).toBe(2 * 3_600_000);
    // A later change applies to new items only.
    await patchSettings(inst, { ttlHours: 1 });
    expect(await getItem(inst, item.id)).toMatchObject({ expiresAt: item.expiresAt });
    const later = await enqueue(inst, to, "ttl 2", { delayMessage: 0, delayTyping: 0 });
    expect(Date.parse(later.expiresAt) - Date.parse(later.createdAt)).toBe(3_600_000);
  });

  it("an item past its expiresAt while waiting in line ends expired (queue.failed), never sent", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const old = await enqueue(inst, to, "velho", { delayMessage: 0, delayTyping: 0 });
    const fresh = await enqueue(inst, to, "novo", { delayMessage: 0, delayTyping: 0 });
    await expireAt(inst, old.id, Date.now() + 500);
    await sleep(1_000);
    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const [a, b] = await waitFinal(inst, [old.id, fresh.id]);
    expect(a).toMatchObject({ status: "expired", messageId: null, position: null });
    expect(a!.error).toBeTruthy();
    expect(a!.finishedAt).not.toBeNull();
    expect(b).toMatchObject({ status: "sent" });
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["novo"]);
    const failed = await eventsOf(inst, "queue.failed");
    expect(failed.map(payload)).toMatchObject([
      {
        id: old.id,
        status: "expired",
        finishedAt: a!.finishedAt,
        timestamp: Math.floor(Date.parse(a!.finishedAt!) / 1000),
      },
    ]);
    expect((await listQueue(inst, "?status=expired")).data.map((i) => i.id)).toEqual([old.id]);
  }, 60_000);

  it("while the number is disconnected the item waits, then expires at its expiresAt (queue.failed)", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await stop(inst);
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const item = await enqueue(inst, to, "sem conexão", { delayMessage: 0, delayTyping: 0 });
    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    // It tries, finds the number disconnected, and keeps waiting (still cancellable). Its TTL is
    // still the normal one here, so nothing can expire it before that first attempt.
    const waiting = await waitUntil(
      () => getItem(inst, item.id),
      (i) => (i.attempts >= 1 && i.status !== "sending") || FINAL.has(i.status),
      "a send attempt",
    );
    expect(waiting).toMatchObject({ status: "queued" });
    expect(waiting.attempts).toBeGreaterThanOrEqual(1);
    // Only now its expiresAt comes near.
    const expiresAt = Date.now() + 2_000;
    await expireAt(inst, item.id, expiresAt);
    const [done] = await waitFinal(inst, [item.id]);
    expect(done).toMatchObject({ status: "expired", messageId: null });
    expect(done!.attempts).toBeGreaterThanOrEqual(1);
    expect(done!.error).toBeTruthy();
    expect(Date.parse(done!.finishedAt!)).toBeGreaterThanOrEqual(expiresAt);
    const failed = await waitUntil(
      () => eventsOf(inst, "queue.failed"),
      (e) => e.length >= 1,
      "queue.failed",
    );
    expect(failed.map(payload)).toMatchObject([{ id: item.id, status: "expired" }]);
    expect(await eventsOf(inst, "queue.sent")).toEqual([]);

    // Back online: nothing of the expired item is sent, new items are.
    await expectJson(await inst.call("/start", { method: "POST" }));
    await c.waitForStatus(inst.id, "WORKING", 30_000);
    const after = await enqueue(inst, to, "de volta", { delayMessage: 0, delayTyping: 0 });
    expect((await waitFinal(inst, [after.id]))[0]!.status).toBe("sent");
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["de volta"]);
  }, 90_000);

  // Not only the head: the worker's sweep expires any item in line at its own expiresAt (an item
  // behind one held by the disconnection, whose TTL is shorter: ttlHours lowered between sends).
  it("an item behind one held by the disconnection expires at its own expiresAt", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await stop(inst);
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const head = await enqueue(inst, to, "cabeça", { delayMessage: 0, delayTyping: 0 });
    const behind = await enqueue(inst, to, "atrás", { delayMessage: 0, delayTyping: 0 });
    await expireAt(inst, behind.id, Date.now() + 2_000);
    await expectJson(await inst.call("/queue/resume", { method: "POST" }));
    const [done] = await waitFinal(inst, [behind.id], 30_000);
    expect(done).toMatchObject({ status: "expired" });
    expect(await getItem(inst, head.id)).toMatchObject({ status: "queued" });
    expect((await eventsOf(inst, "queue.failed")).map((e) => payload(e).id)).toEqual([behind.id]);
  }, 60_000);

  it("holds the sends while the instance is stopped and sends them all, in order, once it is back", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await stop(inst);
    const accepted = await enqueueNumbered(inst, to, "espera", 3, 0);
    // Five tries while disconnected (1 s, 2 s, 4 s, 8 s apart): the next one is 15 s away, so the
    // send after the reconnection comes from the wake-up, not from the backoff.
    await waitUntil(
      () => getItem(inst, accepted[0]!.id),
      (i) => i.attempts >= 5,
      "five attempts",
    );
    const held = await Promise.all(accepted.map((i) => getItem(inst, i.id)));
    expect(held.map((i) => i.status)).toEqual(["queued", "queued", "queued"]);
    expect(await sentTo(inst, to)).toEqual([]);
    expect(await settingsOf(inst)).toMatchObject({ pending: 3 });
    // Still cancellable while it waits for the number.
    const extra = await enqueue(inst, to, "cancelado na espera", { delayMessage: 0, delayTyping: 0 });
    await expectJson(await inst.call(`/queue/${extra.id}`, { method: "DELETE" }));

    await expectJson(await inst.call("/start", { method: "POST" }));
    await c.waitForStatus(inst.id, "WORKING", 30_000);
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    expect(items.map((i) => i.status)).toEqual(["sent", "sent", "sent"]);
    await sleep(500);
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(["espera 0", "espera 1", "espera 2"]);
    expect(await getItem(inst, extra.id)).toMatchObject({ status: "cancelled" });
    // The reconnection (session.status WORKING) woke the waiting item's workflow.
    const history = await c.worker!.client.workflow.getHandle(`queue-item-${accepted[0]!.id}`).fetchHistory();
    const wakes = (history.events ?? []).filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === "wake",
    );
    expect(wakes.length).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("a network outage mid-run: items wait and are each sent exactly once afterwards, in order", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const accepted = await enqueueNumbered(inst, to, "queda", 6, 0.3);
    await waitUntil(
      () => sentTo(inst, to),
      (s) => s.length >= 2,
      "two sends",
    );
    expect((await c.sim("POST", "/simnet/faults/outage", { seconds: 3 })).status).toBe(200);
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    expect(items.map((i) => i.status)).toEqual(accepted.map(() => "sent"));
    await sleep(500);
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(accepted.map((_, i) => `queda ${i}`));
    expect(new Set(sent.map((m) => m.id)).size).toBe(6);
  }, 90_000);

  it("dropped connections mid-run: each item is sent exactly once, in order", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const accepted = await enqueueNumbered(inst, to, "corte", 8, 0.2);
    for (const after of [1, 3, 5]) {
      await waitUntil(
        () => sentTo(inst, to),
        (s) => s.length >= after,
        `${after} sends`,
      );
      expect((await c.sim("POST", "/simnet/faults/drop", { instanceId: inst.id })).status).toBe(200);
    }
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
    );
    expect(items.map((i) => i.status)).toEqual(accepted.map(() => "sent"));
    await sleep(500);
    const sent = await sentTo(inst, to);
    expect(sent.map(textOf)).toEqual(accepted.map((_, i) => `corte ${i}`));
  }, 90_000);
});

describe("limits", () => {
  it("queue_full at 10,000 pending: the next send gets 429; DELETE /queue cancels all 10,000", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await inst.call("/queue/pause", { method: "POST" }));
    const N = 10_000;
    let next = 0;
    const statuses = new Map<number, number>();
    const fill = async () => {
      while (next < N) {
        const i = next++;
        const res = await sendText(inst, to, `cheia ${i}`, { queue: "true" });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 32 }, fill));
    expect(Object.fromEntries(statuses)).toEqual({ 202: N });
    expect(await settingsOf(inst)).toMatchObject({ pending: N, paused: true });

    const full = await sendText(inst, to, "uma a mais", { queue: "true" });
    expect(full.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectError(full, 429, "queue_full");
    // Also a plain send routed to the queue by its delay.
    await expectError(await sendText(inst, to, "outra", { body: { delayMessage: 0 } }), 429, "queue_full");
    // A direct send is not affected by the queue's limit.
    await expectJson(await sendText(inst, to, "direto", { queue: "false" }), 201);

    const last = await listQueue(inst, "?limit=500&cursor=0");
    expect(last.data[0]!.position).toBe(0);
    expect(await settingsOf(inst)).toMatchObject({ pending: N });

    expect(await expectJson(await inst.call("/queue", { method: "DELETE" }))).toEqual({ cancelled: N });
    expect(await settingsOf(inst)).toMatchObject({ pending: 0 });
    const failed = await waitUntil(
      () => eventsOf(inst, "queue.failed"),
      (e) => e.length >= N,
      `${N} queue.failed`,
    );
    expect(failed).toHaveLength(N);
    expect(new Set(failed.map((e) => payload(e).id)).size).toBe(N);
    expect(failed.every((e) => payload(e).status === "cancelled")).toBe(true);

    // Room again.
    await expectJson(await sendText(inst, to, "de novo", { queue: "true" }), 202);
  }, 300_000);
});

describe("failures and recovery", () => {
  it("the network's rate limit: an immediate send is 502 with Retry-After; a queued item waits and is sent once", async () => {
    const inst = await newInstance();
    const to = await newContact();
    await expectJson(await c.sim("POST", "/simnet/faults/rate-limit", { sends: 3, phone: inst.phone }));
    const now = await sendText(inst, to, "agora", { queue: "false" });
    await expectError(now, 502, "network_error");
    expect(now.headers.get("retry-after")).toBe("5");
    const item = await enqueue(inst, to, "limitada", { delayMessage: 0, delayTyping: 0 });
    const [done] = await waitFinal(inst, [item.id]);
    expect(done).toMatchObject({ status: "sent" });
    expect(done!.attempts).toBeGreaterThanOrEqual(3); // two refused, then sent
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["limitada"]);
    expect(await eventsOf(inst, "queue.failed")).toEqual([]);
  }, 60_000);

  it("a send the network refuses ends failed (queue.failed with the error); the queue goes on", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const nobody = "5531977665544"; // no account on the network
    const bad = await enqueue(inst, nobody, "para ninguém", { delayMessage: 0, delayTyping: 0 });
    const good = await enqueue(inst, to, "depois da falha", { delayMessage: 0, delayTyping: 0 });
    const [a, b] = await waitFinal(inst, [bad.id, good.id]);
    expect(a).toMatchObject({ status: "failed", messageId: null, position: null, attempts: 1 });
    expect(a!.error).toMatch(/network_rejected/);
    expect(b).toMatchObject({ status: "sent" });
    const failed = await waitUntil(
      () => eventsOf(inst, "queue.failed"),
      (e) => e.length >= 1,
      "queue.failed",
    );
    expect(failed.map(payload)).toMatchObject([{ id: bad.id, status: "failed", error: a!.error }]);
    expect((await listQueue(inst, "?status=failed")).data.map((i) => i.id)).toEqual([bad.id]);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["depois da falha"]);
  }, 60_000);

  it("an item being sent cannot be cancelled (422), nor is it counted by DELETE /queue", async () => {
    const inst = await newInstance();
    const to = await newContact();
    // simnet answers slowly: the send stays in flight long enough to look at it (7 s: a generous
    // window for the poll, the list and both DELETEs, yet under the sim provider's 10 s request
    // timeout, past which the send would fail as network_timeout).
    expect((await c.sim("POST", "/simnet/faults/slow", { ms: 7_000 })).status).toBe(200);
    try {
      const first = await enqueue(inst, to, "em voo", { delayMessage: 0, delayTyping: 0 });
      const second = await enqueue(inst, to, "atrás", { delayMessage: 0, delayTyping: 0 });
      const sending = await waitUntil(
        () => getItem(inst, first.id),
        (i) => i.status !== "queued",
        "the first item sending",
      );
      expect(sending).toMatchObject({ status: "sending", position: 0, attempts: 1 });
      expect((await listQueue(inst)).data.map((i) => [i.id, i.status])).toEqual([
        [first.id, "sending"],
        [second.id, "queued"],
      ]);
      const refused = await expectError(
        await inst.call(`/queue/${first.id}`, { method: "DELETE" }),
        422,
        "validation_error",
      );
      expect(refused.error.details?.queueId).toMatch(/sending/);
      expect(await expectJson(await inst.call("/queue", { method: "DELETE" }))).toEqual({ cancelled: 1 });
    } finally {
      await c.sim("POST", "/simnet/faults/slow", { ms: 0 });
    }
    const all = await listQueue(inst, "?status=all");
    const [second, first] = all.data;
    await waitFinal(inst, [first!.id]);
    expect(await getItem(inst, first!.id)).toMatchObject({ status: "sent" });
    expect(await getItem(inst, second!.id)).toMatchObject({ status: "cancelled" });
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["em voo"]);
  }, 60_000);

  it("the worker's reconciler restarts a queue workflow that was terminated by hand", async () => {
    const inst = await newInstance();
    const to = await newContact();
    const accepted = await enqueueNumbered(inst, to, "reinício", 3, 2);
    await waitUntil(
      () => getItem(inst, accepted[0]!.id),
      (i) => i.delayMs !== null,
      "the first item planned",
    );
    await c.worker!.client.workflow.getHandle(`queue-${inst.id}`).terminate("test: lost workflow");
    // Every 30 s the reconciler looks for instances with pending items and no running workflow.
    const items = await waitFinal(
      inst,
      accepted.map((i) => i.id),
      150_000,
    );
    expect(items.map((i) => i.status)).toEqual(["sent", "sent", "sent"]);
    expect((await sentTo(inst, to)).map(textOf)).toEqual(["reinício 0", "reinício 1", "reinício 2"]);
  }, 180_000);

  // When the signal-with-start of the queue workflow fails (Temporal unreachable from the
  // gateway), the item is safe in Redis: the send answers 202 and the worker's reconciler
  // starts the queue (an error answer would make a retrying client send twice).
  it("Temporal unreachable at enqueue: an error answer never sends; a 202 sends once", async () => {
    const inst = await newInstance();
    const to = await newContact();
    // A second gateway replica on the same Redis whose Temporal address answers nothing.
    const cut = await startGateway({ KEY_PREFIX, TEMPORAL_ADDRESS: "127.0.0.1:1" });
    let res: Response;
    try {
      res = await cut.request(`/v1/instances/${inst.id}/messages/text`, {
        method: "POST",
        headers: { "x-instance-token": inst.token, "x-queue": "true" },
        json: { phone: to, text: "temporal fora", delayMessage: 0, delayTyping: 0 },
      });
    } finally {
      await cut.close();
    }
    const body = await res.text();
    // Longer than the reconciler's 30 s period.
    await sleep(45_000);
    const sent = (await sentTo(inst, to)).map(textOf);
    if (res.status === 202) expect(sent).toEqual(["temporal fora"]);
    else {
      expect(res.status, body).toBe(503);
      expect(sent).toEqual([]);
    }
  }, 120_000);
});
