// OpenTelemetry traces end to end (docs/operations.md "Tracing"), into an in-memory exporter: a
// send's trace from the REST request through the session pod's provider call, a queued send's
// from its item workflow through the activity to the provider, and a webhook delivery's from its
// first attempt through the retry workflow's attempt. The gateway has no session role of its own:
// its call to the pod goes over the internal channel, so the pod's span can only join the
// request's trace through the `traceparent` the call carries (a remote parent), not through this
// process's async context.
import type { QueueItem } from "@gw/contracts";
import { createLogger } from "@gw/platform";
import { inSpan, startTracing, type Tracing, traceLogFields } from "@gw/platform/telemetry";
import { type SessionRole, startSessionRole } from "@gw/session";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson } from "../support/e2e-helpers.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

const exporter = new InMemorySpanExporter();
let tracing: Tracing | null;
let c: Cluster;
let pod: SessionRole;
let rx: Receiver;
const a = { id: "", token: "", phone: "5531977720001" };
const contact = "5531977720002";

beforeAll(async () => {
  // Before the roles start: the gateway registers its hooks and the worker its Temporal
  // interceptors only while tracing is on.
  tracing = startTracing({ serviceName: "e2e", exporter });
  c = await startCluster({ session: false, worker: { retryScheduleMs: [100] }, simnet: { ackDelayMs: 20 } });
  pod = await startSessionRole(c.platform.config, c.platform, createLogger("silent"));
  rx = await startReceiver();
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Contato" });
  Object.assign(a, await c.createInstance({ billingStatus: "active" }));
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await pod?.close().catch(() => {});
  await c?.close();
  await tracing?.shutdown();
});

const api = (path: string, init?: RequestInit & { json?: unknown }) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);

/** The finished spans once `ready` finds what it needs in them (workflow spans arrive through a sink). */
async function spansWhen(ready: (spans: ReadableSpan[]) => boolean, timeoutMs = 20_000): Promise<ReadableSpan[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (ready(spans)) return spans;
    if (Date.now() > until) throw new Error(`spans so far: ${spans.map((s) => s.name).join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The one span that matches, or a failure naming what there is. */
function one(spans: ReadableSpan[], what: string, match: (s: ReadableSpan) => boolean): ReadableSpan {
  const found = spans.filter(match);
  expect(found, `${what} among ${spans.map((s) => s.name).join(", ")}`).toHaveLength(1);
  return found[0]!;
}

const named = (name: string, kind?: SpanKind) => (s: ReadableSpan) =>
  s.name === name && (kind === undefined || s.kind === kind);
const childOf = (parent: ReadableSpan) => (s: ReadableSpan) =>
  s.parentSpanContext?.spanId === parent.spanContext().spanId &&
  s.spanContext().traceId === parent.spanContext().traceId;
const both =
  (...tests: ((s: ReadableSpan) => boolean)[]) =>
  (s: ReadableSpan) =>
    tests.every((t) => t(s));

/** The session call, the pod's operation and the provider's send under `parent`; answers the provider span. */
function expectSendOnPod(spans: ReadableSpan[], parent: ReadableSpan): ReadableSpan {
  const call = one(spans, "the session call", both(named("session send", SpanKind.CLIENT), childOf(parent)));
  const onPod = one(spans, "the pod's operation", both(named("session send", SpanKind.SERVER), childOf(call)));
  // Extracted from the call's traceparent, not inherited in-process.
  expect(onPod.parentSpanContext?.isRemote).toBe(true);
  expect(onPod.attributes["gw.rpc.status"]).toBe(200);
  const provider = one(spans, "the provider's send", both(named("provider send", SpanKind.CLIENT), childOf(onPod)));
  expect(provider.attributes["gw.provider"]).toBe("sim");
  return provider;
}

it("a send: one trace from the REST request through the session pod to the provider's call", async () => {
  exporter.reset();
  const sent = await expectJson<{ id: string }>(
    await api("/messages/text", { method: "POST", json: { phone: contact, text: "traçado" } }),
    201,
  );
  expect(sent.id).toBeTruthy();
  const route = "POST /v1/instances/:instanceId/messages/text";
  const spans = await spansWhen((all) => all.some(named(route)) && all.some(named("provider send")));
  const request = one(spans, "the request", named(route, SpanKind.SERVER));
  expect(request.parentSpanContext).toBeUndefined();
  expect(request.attributes["http.response.status_code"]).toBe(201);
  expect(request.attributes["http.route"]).toBe("/v1/instances/:instanceId/messages/text");
  expectSendOnPod(spans, request);
  // Every span of the send is in the request's trace.
  const trace = request.spanContext().traceId;
  expect(spans.filter((s) => s.name.endsWith(" send")).every((s) => s.spanContext().traceId === trace)).toBe(true);
});

it("a queued send: the item's workflow, its activity, then the session pod and the provider", async () => {
  exporter.reset();
  const item = await expectJson<QueueItem>(
    await api("/messages/text", {
      method: "POST",
      headers: { "x-queue": "true" },
      json: { phone: contact, text: "na fila", delayMessage: 0, delayTyping: 0 },
    }),
    202,
  );
  const until = Date.now() + 30_000;
  while ((await expectJson<QueueItem>(await api(`/queue/${item.id}`))).status !== "sent") {
    if (Date.now() > until) throw new Error(`queue item ${item.id} not sent`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // A workflow's spans leave when it ends: the queue's run ends once the queue is empty.
  const spans = await spansWhen((all) =>
    ["RunWorkflow:queueItem", "RunActivity:sendQueueItem", "RunWorkflow:instanceQueue"].every((n) =>
      all.some(named(n)),
    ),
  );
  const workflow = one(spans, "the item's workflow", named("RunWorkflow:queueItem"));
  // WorkflowInfo's plain fields, its nested ones left out (platform telemetry/workflow-spans.ts).
  expect(workflow.attributes).toMatchObject({ workflowId: `queue-item-${item.id}`, workflowType: "queueItem" });
  expect(workflow.attributes.parent).toBeUndefined();
  // In this process's SDK shape (what the OTLP exporter reads): its scope, this process's resource.
  expect(workflow.instrumentationScope.name).toBe("@temporalio/interceptor-workflow");
  expect(workflow.resource.attributes["service.name"]).toBe("e2e");
  const scheduled = one(
    spans,
    "the workflow's send activity",
    both(named("StartActivity:sendQueueItem"), childOf(workflow)),
  );
  const activity = one(spans, "the activity's run", both(named("RunActivity:sendQueueItem"), childOf(scheduled)));
  expectSendOnPod(spans, activity);
  // The item's child workflow was started by the instance's queue workflow, in its trace.
  const start = one(spans, "the queue's start of the item", named("StartChildWorkflow:queueItem"));
  expect(childOf(start)(workflow)).toBe(true);
  expect(one(spans, "the queue workflow", named("RunWorkflow:instanceQueue")).spanContext().traceId).toBe(
    workflow.spanContext().traceId,
  );
});

it("a webhook delivery: the failed first attempt and the retry workflow's attempt in one trace", async () => {
  // The first request fails, every later one succeeds: one delivery goes to its retry workflow.
  rx.respond = (_r, n) => (n === 1 ? 500 : 200);
  await expectJson(await api("/webhooks", { method: "POST", json: { url: rx.url, events: ["message.any"] } }), 201);
  exporter.reset();
  await expectJson(await api("/messages/text", { method: "POST", json: { phone: contact, text: "gancho" } }), 201);
  await rx.waitFor((all) => all.length >= 2, 20_000);
  const attempt = (by: string) => (s: ReadableSpan) =>
    s.name === "webhook deliver" && s.attributes["gw.attempt_by"] === by;
  const spans = await spansWhen(
    (all) =>
      all.some(attempt("dispatcher")) && all.some(attempt("retry")) && all.some(named("RunWorkflow:webhookRetry")),
  );
  const delivery = one(spans, "the delivery", named("webhook delivery"));
  const first = one(spans, "the first attempt", both(attempt("dispatcher"), childOf(delivery)));
  expect(first.attributes["http.response.status_code"]).toBe(500);
  expect(first.status.code).toBe(2); // ERROR
  const start = one(spans, "the retry workflow's start", both(named("StartWorkflow:webhookRetry"), childOf(delivery)));
  const run = one(spans, "the retry workflow", both(named("RunWorkflow:webhookRetry"), childOf(start)));
  const scheduled = one(spans, "the retry activity", both(named("StartActivity:retryDelivery"), childOf(run)));
  const activity = one(spans, "its run", both(named("RunActivity:retryDelivery"), childOf(scheduled)));
  const retry = one(spans, "the retry", both(attempt("retry"), childOf(activity)));
  expect(retry.attributes["http.response.status_code"]).toBe(200);
  expect(retry.attributes["gw.delivery_id"]).toBe(first.attributes["gw.delivery_id"]);
});

it("log lines written inside a span carry its trace_id and span_id (the logger's mixin); none outside", async () => {
  expect(traceLogFields()).toEqual({});
  await inSpan("logged", {}, async (span) => {
    await new Promise((r) => setTimeout(r, 1)); // across an await too
    const { traceId, spanId } = span!.spanContext();
    expect(traceLogFields()).toEqual({ trace_id: traceId, span_id: spanId });
  });
});
