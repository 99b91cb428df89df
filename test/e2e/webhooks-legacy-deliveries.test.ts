// Delivery records moved to their instance's shard (session 34: `dlv:<instance>:<id>`, the
// webhook's index and response times beside them). Those written before, under the keys without
// the instance on the control shard, are still listed, resent and retried until their 7 days end,
// and a retry workflow started before (its input without the instance) still finds its delivery.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

type Json = Record<string, any>;
let c: Cluster;
let rx: Receiver;
let inst: { id: string; token: string };
let hookId = "";
const OLD = "dlv_0000000000zzzzzzzzzzzzzzzz";

beforeAll(async () => {
  c = await startCluster({ worker: { retryScheduleMs: [100, 100] } });
  rx = await startReceiver();
  inst = await c.createInstance();
  const res = await c.as(inst.token)(`/v1/instances/${inst.id}/webhooks`, {
    method: "POST",
    json: { url: rx.url, events: ["*"] },
  });
  hookId = ((await res.json()) as { id: string }).id;
  // A delivery as the dispatcher wrote it before: its record, its place in the webhook's index.
  const { redis, keys: k } = c.platform;
  const created = Date.now() - 60_000;
  const meta = {
    id: OLD,
    webhookId: hookId,
    instanceId: inst.id,
    eventId: "evt_0000000000zzzzzzzzzzzzzz",
    event: "webhook.test",
    status: "failed",
    attempt: 1,
    httpStatus: 500,
    error: "HTTP 500",
    durationMs: 12,
    nextAttemptAt: null,
    manual: false,
    createdAt: new Date(created).toISOString(),
    lastAttemptAt: new Date(created).toISOString(),
  };
  await redis.hset(
    k.legacyDelivery(OLD),
    "meta",
    JSON.stringify(meta),
    "body",
    '{"id":"evt_old","event":"webhook.test"}',
  );
  await redis.zadd(k.legacyWebhookDeliveries(hookId), created, OLD);
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
});

const api = (path: string, init?: RequestInit & { json?: unknown }) =>
  c.as(inst.token)(`/v1/instances/${inst.id}/webhooks/${hookId}${path}`, init);

it("new deliveries are kept on the instance's keys; the list shows them with the older ones, newest first", async () => {
  const sent = await api("/test", { method: "POST" });
  expect(sent.status).toBe(200);
  const fresh = (await sent.json()) as Json;
  const { redis, keys: k } = c.platform;
  expect(await redis.exists(k.delivery(inst.id, fresh.id))).toBe(1);
  expect(await redis.exists(k.legacyDelivery(fresh.id))).toBe(0);
  const page = (await (await api("/deliveries")).json()) as { data: Json[] };
  expect(page.data.map((d) => d.id)).toEqual([fresh.id, OLD]);
  const one = (await (await api("/deliveries?limit=1")).json()) as { data: Json[]; nextCursor: string };
  const next = (await (await api(`/deliveries?limit=1&cursor=${one.nextCursor}`)).json()) as { data: Json[] };
  expect([...one.data, ...next.data].map((d) => d.id)).toEqual([fresh.id, OLD]);
});

it("an older delivery is resent by the retry route", async () => {
  const res = await api(`/deliveries/${OLD}/retry`, { method: "POST" });
  expect(res.status, await res.clone().text()).toBe(200);
  await rx.waitFor((all) => all.some((r) => r.rawBody === '{"id":"evt_old","event":"webhook.test"}'));
});

it("a retry workflow started before (no instance in its input) finds and records its delivery", async () => {
  const worker = c.worker!;
  const run = await worker.client.workflow.start("webhookRetry", {
    taskQueue: c.platform.config.TEMPORAL_TASK_QUEUE,
    workflowId: `webhook-retry-${OLD}`,
    args: [{ deliveryId: OLD, scheduleMs: [50] }],
  });
  expect(await run.result()).toBe("succeeded");
  const stored = await c.platform.webhooks.deliveries.getDelivery(OLD);
  expect(stored).toMatchObject({ status: "succeeded", attempt: 2, legacy: true });
});
