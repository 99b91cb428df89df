import type { Config, Platform } from "@gw/platform";
import type { Client } from "@temporalio/client";
import Fastify from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** What the dispatcher reports; exported at /metrics of the worker's own port. */
export function createWorkerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    deliveries: new Counter({
      name: "webhook_deliveries_total",
      help: "Delivery attempts by who made them (dispatcher, retry) and outcome (succeeded, failed)",
      labelNames: ["by", "outcome"] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: "webhook_delivery_duration_seconds",
      help: "Duration of delivery attempts (POST to answer)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    inFlight: new Gauge({ name: "webhook_dispatch_in_flight", help: "Deliveries in flight", registers: [registry] }),
    officialInbound: new Counter({
      name: "official_inbound_items_total",
      help: "Items of the operator's webhooks (messages, statuses, events) processed, and duplicates dropped",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/**
 * The worker role's small HTTP server: `/healthz` (the process serves), `/readyz` (Redis and
 * Temporal answer), `/metrics` (Prometheus). Probes and scrapes only: nothing public.
 */
export async function startWorkerHealth(config: Config, platform: Platform, temporal: Client, metrics: WorkerMetrics) {
  const app = Fastify({ logger: false });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const [redis, temporalOk] = await Promise.all([
      platform.ping().catch(() => false),
      temporal.workflowService
        .getSystemInfo({})
        .then(() => true)
        .catch(() => false),
    ]);
    const ready = redis && temporalOk;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not_ready",
      checks: { redis: redis ? "ok" : "down", temporal: temporalOk ? "ok" : "down" },
    });
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  const url = await app.listen({ port: config.WORKER_PORT, host: config.WORKER_HOST });
  return { url, close: () => app.close() };
}
