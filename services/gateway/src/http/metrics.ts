import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** Prometheus metrics of one process: requests by route and status, latency histograms. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "gateway_http_requests_total",
    help: "HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "gateway_http_request_duration_seconds",
    help: "HTTP request latency by method and route template",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    /** Counts every response of `app` (route template, never the raw URL: bounded label sets). */
    instrument(app: FastifyInstance) {
      app.addHook("onResponse", (req, reply, done) => {
        const route = req.routeOptions.url ?? "unmatched";
        requests.inc({ method: req.method, route, status: reply.statusCode });
        latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
        done();
      });
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
