import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * A session pod's own Prometheus metrics (`GET /metrics` on its session port): the process
 * (memory, event-loop delay, GC: the pods hold the connections and are the memory-heavy role),
 * the connections it holds, and the operations the gateway asked of it by name and status.
 * The lease and capacity gauges of the whole deployment stay the worker's (one writer).
 */
export function createSessionMetrics(opts: { podId: string; held: () => number; ops: Iterable<string> }) {
  const registry = new Registry();
  registry.setDefaultLabels({ pod_id: opts.podId });
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "gateway_session_pod_connections",
    help: "Instances this session pod holds (a lease and a provider connection each)",
    registers: [registry],
    collect() {
      this.set(opts.held());
    },
  });
  const calls = new Counter({
    name: "gateway_session_rpc_total",
    help: "Operations asked of this pod (over /rpc or the channel) by operation and answer status",
    labelNames: ["op", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "gateway_session_rpc_duration_seconds",
    help: "Time to answer an operation, by operation (a send includes the network's answer)",
    labelNames: ["op"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Known operation names only (bounded label sets); the labelled children looked up once.
  const known = new Set(opts.ops);
  const counters = new Map<string, ReturnType<typeof calls.labels>>();
  const timers = new Map<string, ReturnType<typeof duration.labels>>();
  return {
    registry,
    /** One answered operation: its name, status and how long it took (seconds). */
    observe(op: string, status: number, seconds: number) {
      const name = known.has(op) ? op : "unknown";
      const key = `${name} ${status}`;
      let counter = counters.get(key);
      if (!counter) {
        counter = calls.labels(name, String(status));
        counters.set(key, counter);
      }
      let timer = timers.get(name);
      if (!timer) {
        timer = duration.labels(name);
        timers.set(name, timer);
      }
      counter.inc();
      timer.observe(seconds);
    },
  };
}
