// The session pod's metrics as Prometheus reads them: the names the dashboard and the runbooks
// use (charts/gateway/dashboards, docs/operations.md), from what the pod's observer is told.
import type { ConnectionStatus, Provider } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { createSessionMetrics } from "./metrics.ts";

function setup(redis: () => Promise<boolean> = async () => true) {
  const held: { provider: Provider; status: ConnectionStatus }[] = [
    { provider: "sim", status: "WORKING" },
    { provider: "sim", status: "WORKING" },
    { provider: "baileys", status: "STARTING" },
  ];
  const m = createSessionMetrics({
    podId: "pod-0",
    held: () => held.length,
    connections: () => held,
    ops: ["send", "qr"],
    pingRedis: redis,
  });
  return { m, text: () => m.registry.metrics() };
}

/** The value of the one series named with exactly these labels (pod_id included), or undefined. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries({ ...labels, pod_id: "pod-0" });
  for (const line of text.split("\n")) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k, v]));
    if (Object.keys(got).length === want.length && want.every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe("session pod metrics", () => {
  it("connections by provider and status, zeros included, and the leases held", async () => {
    const text = await setup().text();
    expect(value(text, "gateway_session_pod_connections")).toBe(3);
    expect(value(text, "gateway_session_connections", { provider: "sim", status: "WORKING" })).toBe(2);
    expect(value(text, "gateway_session_connections", { provider: "baileys", status: "STARTING" })).toBe(1);
    expect(value(text, "gateway_session_connections", { provider: "cloud", status: "FAILED" })).toBe(0);
  });

  it("leases acquired and lost, reconnections, each by a bounded label", async () => {
    const { m, text } = setup();
    m.observer.leaseAcquired(false);
    m.observer.leaseAcquired(true);
    m.observer.leaseAcquired(true);
    m.observer.leaseLost("lease not renewed in time");
    m.observer.leaseLost("something new");
    m.observer.reconnect("sim", "connection_lost");
    const t = await text();
    expect(value(t, "gateway_session_leases_acquired_total", { kind: "start" })).toBe(1);
    expect(value(t, "gateway_session_leases_acquired_total", { kind: "takeover" })).toBe(2);
    expect(value(t, "gateway_session_leases_lost_total", { reason: "fenced" })).toBe(1);
    expect(value(t, "gateway_session_leases_lost_total", { reason: "other" })).toBe(1);
    expect(value(t, "gateway_session_reconnects_total", { provider: "sim", reason: "connection_lost" })).toBe(1);
  });

  it("sends in flight while on the network, then their latency by outcome", async () => {
    const { m, text } = setup();
    let answer!: () => void;
    const pending = m.observer.send("sim", () => new Promise<string>((r) => (answer = () => r("id"))));
    expect(value(await text(), "gateway_session_sends_in_flight", { provider: "sim" })).toBe(1);
    answer();
    await pending;
    await expect(m.observer.send("sim", () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    const t = await text();
    expect(value(t, "gateway_session_sends_in_flight", { provider: "sim" })).toBe(0);
    const count = (outcome: string) =>
      value(t, "gateway_session_send_network_duration_seconds_count", { provider: "sim", outcome });
    expect([count("ok"), count("error")]).toEqual([1, 1]);
  });

  it("operations by status, provider errors by code, event publication", async () => {
    const { m, text } = setup();
    m.observe("send", 200, 0.01);
    m.observe("send", 504, 10, "network_timeout");
    m.observe("nope", 404, 0);
    m.published(0.002, true);
    m.published(2, false);
    const t = await text();
    expect(value(t, "gateway_session_rpc_total", { op: "send", status: "200" })).toBe(1);
    expect(value(t, "gateway_session_rpc_total", { op: "unknown", status: "404" })).toBe(1);
    expect(value(t, "gateway_session_provider_errors_total", { op: "send", code: "network_timeout" })).toBe(1);
    expect(value(t, "gateway_session_event_publish_duration_seconds_count")).toBe(2);
    expect(value(t, "gateway_session_event_publish_failures_total")).toBe(1);
  });

  it("Redis as the pod sees it: reachable, or 0 when PING fails", async () => {
    expect(value(await setup().text(), "gateway_redis_reachable")).toBe(1);
    const down = await setup(() => Promise.reject(new Error("ECONNREFUSED"))).text();
    expect(value(down, "gateway_redis_reachable")).toBe(0);
    expect(value(down, "gateway_redis_ping_seconds")).toBeGreaterThanOrEqual(0);
  });
});
