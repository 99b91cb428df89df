// Crash safety of the send queue, every role its own OS process: SIGKILL the worker (Temporal
// worker running the queue workflows) and the session pod (holding the number) while items are
// flowing. After they are started again every item ends `sent`, and simnet (the network) has
// each message exactly once, in queue order: nothing lost, nothing twice.
import type { QueueItem } from "@gw/contracts";
import { afterAll, beforeAll, expect, it, onTestFailed } from "vitest";
import { freePort, instanceCaller, waitUntil } from "../support/e2e-helpers.ts";
import { testEnv, uniquePrefix } from "../support/gateway.ts";
import { type RoleProcess, spawnMultiProcessCluster, spawnRole } from "../support/processes.ts";
import { scanShownQr } from "../support/qr.ts";

type MultiCluster = Awaited<ReturnType<typeof spawnMultiProcessCluster>>;
interface SimSent {
  seq: number;
  id: string;
  to: string;
  at: number;
  message: { type: string; text?: string };
}

const TASK_QUEUE = `queue-crash-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const KEY_PREFIX = uniquePrefix();
const PHONE = "5531966660001";
const CONTACT = "5531966660002";
const FINAL = new Set(["sent", "failed", "expired", "cancelled"]);

let cl: MultiCluster;
const workers: RoleProcess[] = [];
let inst = { id: "", token: "" };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = instanceCaller(
  () => cl.gateway.url,
  () => inst,
);

async function statusOf(): Promise<string> {
  const res = await cl.admin("GET", `/v1/admin/instances/${inst.id}`);
  return ((await res.json()) as { instance: { connectionStatus: string } }).instance.connectionStatus;
}

async function sentToContact(): Promise<SimSent[]> {
  const { messages } = await cl.sim<{ messages: SimSent[] }>("GET", `/simnet/phones/${PHONE}/sent`);
  return messages.filter((m) => m.to === `${CONTACT}@c.us`);
}

/** On failure: which processes died, and the end of each one's output. */
function dumpOnFailure() {
  onTestFailed(() => {
    const procs = [cl.simnet, cl.gateway, ...cl.pods.values(), ...workers];
    for (const p of procs) {
      const { exitCode, signalCode } = p.child;
      process.stderr.write(
        `--- ${p.name} (exit ${exitCode ?? "-"} ${signalCode ?? ""})\n${p.output().slice(-4_000)}\n`,
      );
    }
  });
}

async function enqueueAll(n: number, prefix: string, body: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call("/messages/text", {
      method: "POST",
      headers: { "x-queue": "true" },
      json: { phone: CONTACT, text: `${prefix} ${i}`, ...body },
    });
    const item = (await res.json()) as QueueItem;
    expect(res.status, JSON.stringify(item)).toBe(202);
    ids.push(item.id);
  }
  return ids;
}

async function items(ids: string[]): Promise<QueueItem[]> {
  return Promise.all(
    ids.map(async (id) => {
      const res = await call(`/queue/${id}`);
      expect(res.status).toBe(200);
      return (await res.json()) as QueueItem;
    }),
  );
}

async function startWorker(): Promise<RoleProcess> {
  const port = await freePort();
  const w = await spawnRole(
    "worker",
    testEnv({
      KEY_PREFIX,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      ROLES: "worker",
      WORKER_PORT: String(port),
      LOG_LEVEL: "warn",
      LEASE_TTL_MS: "1500",
      OWNER_WAIT_MS: "1000",
      DISPATCH_CLAIM_IDLE_MS: "1000",
    }),
    port,
  );
  workers.push(w);
  return w;
}

beforeAll(async () => {
  cl = await spawnMultiProcessCluster(["pod-a"], {
    KEY_PREFIX,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    // The test polls every item's status; the per-instance rate limit is not under test here.
    RATE_LIMIT_PER_SECOND: "10000",
    RATE_LIMIT_BURST: "10000",
  });
  await startWorker();
  const res = await cl.admin("POST", "/v1/admin/instances", {
    name: "queue-crash",
    kind: "standard",
    provider: "sim",
    billingStatus: "active",
  });
  expect(res.status).toBe(201);
  const out = (await res.json()) as { instance: { id: string }; token: string };
  inst = { id: out.instance.id, token: out.token };
  expect((await call("/start", { method: "POST" })).status).toBe(200);
  await waitUntil(statusOf, (s) => s === "SCAN_QR_CODE", "SCAN_QR_CODE", 20_000);
  await scanShownQr(cl.simnet.url, inst.id, PHONE);
  await waitUntil(statusOf, (s) => s === "WORKING", "WORKING", 20_000);
  await cl.sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "contato" });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill()));
  await cl?.close();
}, 60_000);

it("SIGKILL of the worker and of the session pod mid-run: all 30 items sent, each exactly once, in order", async () => {
  dumpOnFailure();
  const N = 30;
  const ids = await enqueueAll(N, "crash", { delayMessage: 1.5, delayTyping: 0.3 });
  const mine = async () => (await sentToContact()).filter((m) => m.message.text?.startsWith("crash "));

  // The worker dies while the queue waits out an item's delay: at least five sent, the next one
  // planned (its delayMs recorded) and not tried yet. Its child workflow's timer is in Temporal, not in
  // the dead process.
  await waitUntil(
    () => items(ids),
    (all) => {
      const next = all.findIndex((i) => i.status !== "sent");
      const it = all[next];
      return next >= 5 && it?.status === "queued" && it.delayMs !== null && it.attempts === 0;
    },
    "5 sent and the next one planned, not tried yet",
    180_000,
  );
  await workers[workers.length - 1]!.kill();
  await sleep(1_000);
  await startWorker();

  // Then the session pod holding the number, at the worst moment: the network has the message
  // but its answer has not reached the pod (simnet answers slowly). The send is retried with the
  // same network id, and the network keeps the first: delivered once.
  await waitUntil(mine, (s) => s.length >= 15, "15 sends", 180_000);
  await cl.sim("POST", "/simnet/faults/slow", { ms: 3_000 });
  const inFlight = await waitUntil(
    async () => {
      const [all, got] = await Promise.all([items(ids), mine()]);
      const texts = new Set(got.map((m) => m.message.text));
      return all.findIndex((i, n) => i.status === "sending" && texts.has(`crash ${n}`));
    },
    (n) => n >= 0,
    "a message on the network whose answer is still on its way",
    60_000,
  );
  expect(inFlight).toBeGreaterThanOrEqual(15);
  await cl.pods.get("pod-a")!.kill();
  await cl.sim("POST", "/simnet/faults/slow", { ms: 0 });
  await sleep(1_000);
  cl.pods.set("pod-a", await cl.spawnPod("pod-a"));
  await waitUntil(statusOf, (s) => s === "WORKING", "WORKING again", 60_000);

  const final = await waitUntil(
    () => items(ids),
    (all) => all.every((i) => FINAL.has(i.status)),
    "every item final",
    300_000,
  );
  expect(final.filter((i) => i.status !== "sent")).toEqual([]);
  await sleep(1_000);
  const sent = await mine();
  expect(sent.map((m) => m.message.text)).toEqual(ids.map((_, i) => `crash ${i}`));
  expect(new Set(sent.map((m) => m.id)).size).toBe(N);
  // Each item's messageId is the one message simnet has for it.
  expect(final.map((i) => i.messageId!.split("_").pop())).toEqual(sent.map((m) => m.id));
  // queue.sent at least once per item, with the item's messageId (spec 6.4: at least once).
  const res = await call("/events?kind=queue.sent&limit=500");
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { payload: { id: string; messageId: string } }[] };
  const announced = new Map(data.map((e) => [e.payload.id, e.payload.messageId]));
  expect(final.filter((i) => announced.get(i.id) !== i.messageId)).toEqual([]);
  // The worker restart and the pod restart cost retries, not sends.
  expect(final.reduce((n, i) => n + i.attempts, 0)).toBeGreaterThanOrEqual(N);
}, 900_000);

// The send is a local activity: when the worker dies during it, the workflow task times out
// and a new worker runs the send again at once (its network id makes it a no-op if it went out).
it("a worker killed during a send: the item is retried soon after a new worker starts", async () => {
  dumpOnFailure();
  // Slow answers from the network keep the send in flight long enough to kill the worker in it:
  // longer than the pod waits for an answer (10 s), so the item shows "sending" for about 10 s
  // per attempt, and again on each retry, for the 250 ms poll below to see.
  await cl.sim("POST", "/simnet/faults/slow", { ms: 15_000 });
  const ids = await enqueueAll(2, "meio do envio", { delayMessage: 0, delayTyping: 0 });
  await waitUntil(
    () => items(ids),
    (all) => all[0]!.status === "sending",
    "the first item sending",
    60_000,
  );
  await workers[workers.length - 1]!.kill();
  await cl.sim("POST", "/simnet/faults/slow", { ms: 0 });
  await startWorker();
  // Generous: several activity retry intervals, far below the 10-minute timeout.
  const final = await waitUntil(
    () => items(ids),
    (all) => all.every((i) => FINAL.has(i.status)),
    "both items final",
    120_000,
  );
  expect(final.map((i) => i.status)).toEqual(["sent", "sent"]);
  const sent = (await sentToContact()).filter((m) => m.message.text?.startsWith("meio do envio"));
  expect(sent.map((m) => m.message.text)).toEqual(["meio do envio 0", "meio do envio 1"]);
}, 300_000);
