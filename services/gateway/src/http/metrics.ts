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
  const officialChanges = new Counter({
    name: "gateway_official_webhook_changes_total",
    help: "Changes of the operator's webhooks by outcome: accepted, unknown_number (acknowledged and dropped), bad_signature",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  return {
    registry,
    officialChanges,
    /** Counts every response of `app` (route template, never the raw URL: bounded label sets). */
    instrument(app: FastifyInstance) {
      // The labelled children, looked up once per (method, route, status): prom-client hashes
      // a label object on every inc/observe otherwise (~2 % of a request's CPU).
      const counters = new Map<string, ReturnType<typeof requests.labels>>();
      const timers = new Map<string, ReturnType<typeof latency.labels>>();
      app.addHook("onResponse", (req, reply, done) => {
        const route = req.routeOptions.url ?? "unmatched";
        const timerKey = `${req.method} ${route}`;
        const counterKey = `${timerKey} ${reply.statusCode}`;
        let counter = counters.get(counterKey);
        if (!counter) {
          counter = requests.labels(req.method, route, String(reply.statusCode));
          counters.set(counterKey, counter);
        }
        let timer = timers.get(timerKey);
        if (!timer) {
          timer = latency.labels(req.method, route);
          timers.set(timerKey, timer);
        }
        counter.inc();
        timer.observe(reply.elapsedTime / 1000);
        done();
      });
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
