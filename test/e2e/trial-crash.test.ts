// The free trial's daily count (spec 8) under crashes of the send queue, every role its own OS
// process: a queued send is charged once, at its enqueue, keyed by its queue item. SIGKILL of the
// worker mid-send (the new worker runs the send again), sends tried again while the network does
// not answer in time, SIGKILL of the session pod mid-send (the item waits for the number), an
// enqueue replayed or taken over under its Idempotency-Key: every item ends `sent` once, and
// the day's count moved by exactly one per item.
import { createHash } from "node:crypto";
import type { QueueItem } from "@gw/contracts";
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { afterAll, beforeAll, expect, it, onTestFailed } from "vitest";
import { freePort, instanceCaller, waitUntil } from "../support/e2e-helpers.ts";
import { testEnv, uniquePrefix } from "../support/gateway.ts";
import { type RoleProcess, spawnMultiProcessCluster, spawnRole } from "../support/processes.ts";
import { scanShownQr } from "../support/qr.ts";

type MultiCluster = Awaited<ReturnType<typeof spawnMultiProcessCluster>>;
interface SimSent {
  id: string;
  to: string;
  message: { type: string; text?: string };
}

const TASK_QUEUE = `trial-crash-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const KEY_PREFIX = uniquePrefix();
const PHONE = "5531966670001";
const CONTACT = "5531966670002";
const FINAL = new Set(["sent", "failed", "expired", "cancelled"]);
const TRIAL_LIMIT = 50;

let cl: MultiCluster;
let platform: Platform;
const workers: RoleProcess[] = [];
let inst = { id: "", token: "" };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = instanceCaller(
  () => cl.gateway.url,
  () => inst,
);

async function instanceDoc(): Promise<{ connectionStatus: string; billingStatus: string }> {
  const res = await cl.admin("GET", `/v1/admin/instances/${inst.id}`);
  return ((await res.json()) as { instance: { connectionStatus: string; billingStatus: string } }).instance;
}
const statusOf = async () => (await instanceDoc()).connectionStatus;

async function sentToContact(prefix: string): Promise<SimSent[]> {
  const { messages } = await cl.sim<{ messages: SimSent[] }>("GET", `/simnet/phones/${PHONE}/sent`);
  return messages.filter((m) => m.to === `${CONTACT}@c.us` && m.message.text?.startsWith(prefix));
}

/** Every unit the instance's trial counts took, whatever the UTC day (a run across midnight). */
async function trialCount(): Promise<number> {
  const days = await platform.redis.keys(platform.keys.trialCount(inst.id, "*"));
  const values = days.length ? await platform.redis.mget(...days) : [];
  return values.reduce((n, v) => n + Number(v ?? 0), 0);
}

/** A queued text; `key`: under an Idempotency-Key. */
async function enqueue(text: string, key?: string): Promise<QueueItem> {
  const res = await call("/messages/text", {
    method: "POST",
    headers: { "x-queue": "true", ...(key ? { "idempotency-key": key } : {}) },
    json: { phone: CONTACT, text, delayMessage: 0, delayTyping: 0 },
  });
  const item = (await res.json()) as QueueItem;
  expect(res.status, JSON.stringify(item)).toBe(202);
  return item;
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

/** On failure: which processes died, and the end of each one's output. */
function dumpOnFailure() {
  onTestFailed(() => {
    for (const p of [cl.simnet, cl.gateway, ...cl.pods.values(), ...workers]) {
      const { exitCode, signalCode } = p.child;
      process.stderr.write(
        `--- ${p.name} (exit ${exitCode ?? "-"} ${signalCode ?? ""})\n${p.output().slice(-4_000)}\n`,
      );
    }
  });
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
      TRIAL_DAILY_MESSAGES: String(TRIAL_LIMIT),
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
    TRIAL_DAILY_MESSAGES: String(TRIAL_LIMIT),
    // The test polls every item's status; the per-instance rate limit is not under test here.
    RATE_LIMIT_PER_SECOND: "10000",
    RATE_LIMIT_BURST: "10000",
  });
  platform = await createPlatform(loadConfig(testEnv({ KEY_PREFIX })));
  await startWorker();
  // No accountId: a new account, whose first instance is on its free trial.
  const res = await cl.admin("POST", "/v1/admin/instances", { name: "trial-crash", kind: "standard", provider: "sim" });
  expect(res.status).toBe(201);
  const out = (await res.json()) as { instance: { id: string; billingStatus: string }; token: string };
  expect(out.instance.billingStatus).toBe("trialing");
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
  await platform?.close();
}, 60_000);

it("SIGKILL of the worker and of the session pod mid-send, enqueues replayed and taken over: each item sent once, charged once", async () => {
  dumpOnFailure();
  expect(await trialCount()).toBe(0);
  // Slower answers than the pod waits for (10 s): each attempt shows `sending` for about 10 s,
  // then ends `network_timeout` and the item is tried again (same network id: delivered once).
  await cl.sim("POST", "/simnet/faults/slow", { ms: 15_000 });
  const keyA = `trial-crash-a-${Date.now()}`;
  const keyB = `trial-crash-b-${Date.now()}`;
  const queued = [
    await enqueue("teste 0", keyA),
    await enqueue("teste 1", keyB),
    await enqueue("teste 2"),
    await enqueue("teste 3"),
  ];
  const ids = queued.map((i) => i.id);
  const N = ids.length;
  expect(await trialCount()).toBe(N);

  // The client repeats an enqueue (its answer was lost): the first answer, nothing counted.
  expect((await enqueue("teste 0", keyA)).id).toBe(ids[0]);
  // A gateway that died after the enqueue leaves its key running with a lapsed lease: the retry
  // takes the run over (same origin), and finds the item and the unit its first attempt made.
  const record = platform.keys.idempotency(inst.id, createHash("sha256").update(keyB).digest("hex").slice(0, 32));
  await platform.redis.hdel(record, "status", "body");
  await platform.redis.hset(record, "state", "running", "until", "0");
  expect((await enqueue("teste 1", keyB)).id).toBe(ids[1]);
  expect(await trialCount()).toBe(N);

  // The worker dies during the first item's send; a new one sends it again.
  await waitUntil(
    () => items(ids),
    (all) => all[0]!.status === "sending",
    "the first item sending",
    60_000,
  );
  await workers[workers.length - 1]!.kill();
  await startWorker();
  await waitUntil(
    () => items(ids),
    (all) => all[0]!.status === "sending" && all[0]!.attempts >= 2,
    "the first item sent again by the new worker",
    120_000,
  );
  expect(await trialCount()).toBe(N);

  // The session pod dies while a send is on the network, its answer on the way: the item waits
  // for the number (instance_not_connected), then is sent again.
  await cl.sim("POST", "/simnet/faults/slow", { ms: 3_000 });
  const inFlight = await waitUntil(
    async () => {
      const [all, got] = await Promise.all([items(ids), sentToContact("teste ")]);
      const texts = new Set(got.map((m) => m.message.text));
      return all.findIndex((i, n) => i.status === "sending" && texts.has(`teste ${n}`));
    },
    (n) => n >= 0,
    "a message on the network whose answer is still on its way",
    60_000,
  );
  expect(inFlight).toBeGreaterThanOrEqual(0);
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
  // Nothing lost, nothing twice.
  expect(final.map((i) => i.status)).toEqual(ids.map(() => "sent"));
  await sleep(1_000);
  const sent = await sentToContact("teste ");
  expect(sent.map((m) => m.message.text).sort()).toEqual(ids.map((_, n) => `teste ${n}`));
  // The crashes and the timeouts cost attempts, not units: one per item, kept by its queue id.
  expect(final.reduce((n, i) => n + i.attempts, 0)).toBeGreaterThan(N);
  expect(await trialCount()).toBe(N);
  for (const id of ids) expect(await platform.redis.exists(platform.keys.trialCharge(inst.id, id)), id).toBe(1);
  expect((await instanceDoc()).billingStatus).toBe("trialing");
}, 600_000);
