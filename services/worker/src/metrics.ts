// The worker's own metrics (deliveries, their duration, official inbound items), registered
// apart from the health server that exports them: the dispatcher and the activities count
// into them without depending on the server.
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
    queueScheduleError: new Histogram({
      name: "gateway_queue_schedule_error_seconds",
      help: "Queued sends: |network's answer - the item's plannedAt| (its delay and typing), the `pnpm bench send` scheduling error",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    helpdeskLatency: new Histogram({
      name: "helpdesk_relay_latency_seconds",
      help: "From an event's publication to its message in the help desk (docs/helpdesk.md)",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
