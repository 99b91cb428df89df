import type { Config, Platform } from "@gw/platform";
import type { Client } from "@temporalio/client";
import Fastify from "fastify";
import { Gauge } from "prom-client";
import { registerFleetMetrics } from "./fleet-metrics.ts";
import type { WorkerMetrics } from "./metrics.ts";

/** What readiness and liveness look at besides Redis and Temporal. */
export interface WorkerHealthChecks {
  /** The Temporal worker's state (`Worker.getState()`): ready only while `RUNNING`. */
  temporalWorker: () => string;
  /** Whether the event dispatcher reads the event stream. */
  dispatcher: () => boolean;
}

/** Temporal reachability: a real RPC under a deadline, cached briefly (probes and scrapes share it). */
function temporalCheck(temporal: Client, cacheMs = 2_000) {
  let last: { at: number; ok: Promise<boolean> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > cacheMs) {
      const ok = temporal.connection
        .withDeadline(Date.now() + 2_000, () => temporal.workflowService.getSystemInfo({}))
        .then(
          () => true,
          () => false,
        );
      last = { at: Date.now(), ok };
    }
    return last.ok;
  };
}

/**
 * The worker role's small HTTP server: `/healthz` (the process serves and its Temporal worker has
 * not failed), `/readyz` (Redis and Temporal answer, the Temporal worker polls its task queue and
 * the dispatcher reads the event stream), `/metrics` (Prometheus: the dispatcher's counters,
 * `gateway_temporal_reachable` and the fleet gauges of fleet-metrics.ts). Probes and scrapes
 * only: nothing public.
 */
export async function startWorkerHealth(
  config: Config,
  platform: Platform,
  temporal: Client,
  metrics: WorkerMetrics,
  checks: WorkerHealthChecks,
) {
  const temporalOk = temporalCheck(temporal);
  new Gauge({
    name: "gateway_temporal_reachable",
    help: "1 while this worker's Temporal client gets an answer from the frontend (GetSystemInfo), else 0",
    registers: [metrics.registry],
    async collect() {
      this.set((await temporalOk()) ? 1 : 0);
    },
  });
  registerFleetMetrics(metrics.registry, platform);

  const app = Fastify({ logger: false });
  app.get("/healthz", async (_req, reply) => {
    // A failed Temporal worker does not come back by itself: let the kubelet restart the pod.
    const failed = checks.temporalWorker() === "FAILED";
    return reply.code(failed ? 503 : 200).send({ status: failed ? "failed" : "ok" });
  });
  app.get("/readyz", async (_req, reply) => {
    const [redis, temporalUp] = await Promise.all([platform.ping().catch(() => false), temporalOk()]);
    const worker = checks.temporalWorker();
    const dispatcher = checks.dispatcher();
    const ready = redis && temporalUp && worker === "RUNNING" && dispatcher;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not_ready",
      checks: {
        redis: redis ? "ok" : "down",
        temporal: temporalUp ? "ok" : "down",
        temporalWorker: worker === "RUNNING" ? "ok" : worker.toLowerCase(),
        dispatcher: dispatcher ? "ok" : "stopped",
      },
    });
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  const url = await app.listen({ port: config.WORKER_PORT, host: config.WORKER_HOST });
  return { url, close: () => app.close() };
}
