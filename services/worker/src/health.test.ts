// The worker role's health port on a real Redis and Temporal: what the chart's probes and the
// PrometheusRule's alerts read (charts/gateway).
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { testEnv } from "@gw/test/gateway";
import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISPATCH_GROUP } from "./dispatcher.ts";
import { startWorkerHealth } from "./health.ts";
import { createWorkerMetrics } from "./metrics.ts";

const config = loadConfig(testEnv());
let platform: Platform;
let connection: Connection;
let temporal: Client;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  platform = await createPlatform(config);
  connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await connection?.close();
  await platform?.close();
});

/** A health server whose Temporal worker state and dispatcher the test sets. */
async function serve(opts: { client?: Client } = {}) {
  const state = { worker: "RUNNING", dispatcher: true };
  const health = await startWorkerHealth(config, platform, opts.client ?? temporal, createWorkerMetrics(), {
    temporalWorker: () => state.worker,
    dispatcher: () => state.dispatcher,
  });
  closers.push(health.close);
  const get = async (path: string) => {
    const res = await fetch(`${health.url}${path}`);
    return { status: res.status, text: await res.text() };
  };
  return { state, get };
}

/** The value of an unlabelled metric in a Prometheus text exposition. */
function value(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${name} not exported:\n${text}`);
  return Number(line.slice(name.length + 1));
}

describe("readiness", () => {
  it("is ready while Redis and Temporal answer, the Temporal worker runs and the dispatcher reads", async () => {
    const { get } = await serve();
    const res = await get("/readyz");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      status: "ready",
      checks: { redis: "ok", temporal: "ok", temporalWorker: "ok", dispatcher: "ok" },
    });
  });

  it("is not ready before the Temporal worker polls, nor once the dispatcher stopped", async () => {
    const { state, get } = await serve();
    state.worker = "INITIALIZED";
    let res = await get("/readyz");
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).checks.temporalWorker).toBe("initialized");
    // A worker that is draining on SIGTERM takes no new work either.
    state.worker = "DRAINING";
    expect((await get("/readyz")).status).toBe(503);
    state.worker = "RUNNING";
    state.dispatcher = false;
    res = await get("/readyz");
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).checks).toMatchObject({ temporalWorker: "ok", dispatcher: "stopped" });
    state.dispatcher = true;
    expect((await get("/readyz")).status).toBe(200);
  });

  it("is not ready and reports gateway_temporal_reachable 0 while Temporal does not answer", async () => {
    // Nothing listens on port 1: every call is refused.
    const down = Connection.lazy({ address: "127.0.0.1:1" });
    closers.push(() => down.close());
    const { get } = await serve({ client: new Client({ connection: down, namespace: "default" }) });
    const res = await get("/readyz");
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).checks).toMatchObject({ redis: "ok", temporal: "down" });
    expect(value((await get("/metrics")).text, "gateway_temporal_reachable")).toBe(0);
    // The live one, for contrast.
    const up = await serve();
    expect(value((await up.get("/metrics")).text, "gateway_temporal_reachable")).toBe(1);
  });
});

describe("liveness", () => {
  it("answers 200 while the Temporal worker lives and 503 once it failed", async () => {
    const { state, get } = await serve();
    expect((await get("/healthz")).status).toBe(200);
    state.worker = "INITIALIZED"; // starting: alive, not ready
    expect((await get("/healthz")).status).toBe(200);
    state.worker = "FAILED";
    expect((await get("/healthz")).status).toBe(503);
  });
});

describe("fleet gauges", () => {
  it("counts running instances without a lease owner, pending queue items, the event backlog and the session pods' capacity", async () => {
    const { redis, keys: k } = platform;
    // Five running instances; two are held by a pod, three have no owner.
    await redis.sadd(k.running, "iflt1", "iflt2", "iflt3", "iflt4", "iflt5");
    expect(await platform.leases.acquire("iflt1", "pod-a")).toBeGreaterThan(0);
    expect(await platform.leases.acquire("iflt2", "pod-b")).toBeGreaterThan(0);
    // Queues: 3 + 2 items waiting on two instances.
    await redis.sadd(k.queueActive, "iflt1", "iflt2");
    await redis.zadd(k.queuePending("iflt1"), 1, "qm_a", 2, "qm_b", 3, "qm_c");
    await redis.zadd(k.queuePending("iflt2"), 1, "qm_d", 2, "qm_e");
    // Shard 0: four events, one read by a dispatcher and not acknowledged, three unread.
    const stream = k.events(0);
    await redis.xgroup("CREATE", stream, DISPATCH_GROUP, "$", "MKSTREAM");
    for (let i = 0; i < 4; i++) await redis.xadd(stream, "*", "n", String(i));
    await redis.xreadgroup("GROUP", DISPATCH_GROUP, "c1", "COUNT", 1, "STREAMS", stream, ">");

    // Two live session pods (capacity 100 and 50, holding 2 and 0) and one whose heartbeat expired.
    await platform.leases.heartbeat({ podId: "pod-a", url: "http://a", capacity: 100, load: 2 });
    await platform.leases.heartbeat({ podId: "pod-b", url: "http://b", capacity: 50, load: 0 });
    await redis.zadd(k.pods, Date.now() - 1_000, "pod-gone");
    await redis.hset(k.pod("pod-gone"), { url: "http://gone", capacity: "70", load: "9" });

    const { get } = await serve();
    const text = (await get("/metrics")).text;
    expect(value(text, "gateway_session_pods")).toBe(2);
    expect(value(text, "gateway_session_capacity_connections")).toBe(150);
    expect(value(text, "gateway_session_held_connections")).toBe(2);
    expect(value(text, "gateway_instances_running")).toBe(5);
    expect(value(text, "gateway_instances_without_owner")).toBe(3);
    expect(value(text, "gateway_send_queue_pending_items")).toBe(5);
    expect(value(text, "gateway_event_backlog_entries")).toBe(4);
    expect(text).toContain('gateway_redis_shard_up{shard="0"} 1');
  });
});
