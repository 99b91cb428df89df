import { type ConnectionStatus, connectionStatusSchema, type Provider, providerSchema } from "@gw/contracts";
import type { Platform } from "@gw/platform";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { SessionObserver } from "./held.ts";

/** Latency buckets (seconds) of the network and Redis round trips a pod waits on. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Why a lease was lost (ownership/index.ts `drop`), as a bounded label. */
const LOST_REASONS: Record<string, string> = {
  "lease lost": "renewal_refused",
  "lease not renewed in time": "fenced",
  "stale lease": "stale_epoch",
};

export interface SessionMetricsOptions {
  podId: string;
  /** Instances this pod holds (a lease and a provider connection each). */
  held: () => number;
  /** The connections held, read at each scrape (by provider and status). */
  connections: () => Iterable<{ provider: Provider; status: ConnectionStatus }>;
  ops: Iterable<string>;
  /** Redis answers PING (the pod's leases live there). */
  pingRedis: () => Promise<boolean>;
}

/**
 * A session pod's own Prometheus metrics (`GET /metrics` on its session port): the process
 * (memory, event-loop delay, GC: the pods hold the connections and are the memory-heavy role),
 * its connections and leases, the operations the gateway asked of it, the sends on the network,
 * provider errors, reconnections, event publication and Redis as this pod sees it. The fleet's
 * totals (pods, capacity, instances without an owner) stay the worker's gauges (one writer).
 * The dashboard (charts/gateway/dashboards) and the runbooks (docs/operations.md) read these names.
 */
export function createSessionMetrics(opts: SessionMetricsOptions) {
  const registry = new Registry();
  registry.setDefaultLabels({ pod_id: opts.podId });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: "gateway_session_pod_connections",
    help: "Instances this session pod holds: the leases it holds (a lease and a provider connection each)",
    registers,
    collect() {
      this.set(opts.held());
    },
  });
  new Gauge({
    name: "gateway_session_connections",
    help: "Connections this pod holds by provider and connection status",
    labelNames: ["provider", "status"] as const,
    registers,
    collect() {
      // Every pair, zeros included: a status that empties shows 0 rather than a stale value.
      const counts = new Map<string, number>();
      for (const c of opts.connections())
        counts.set(`${c.provider} ${c.status}`, (counts.get(`${c.provider} ${c.status}`) ?? 0) + 1);
      for (const provider of providerSchema.options) {
        for (const status of connectionStatusSchema.options) {
          this.labels(provider, status).set(counts.get(`${provider} ${status}`) ?? 0);
        }
      }
    },
  });
  const acquired = new Counter({
    name: "gateway_session_leases_acquired_total",
    help: "Leases this pod took: kind=takeover when the instance was WORKING under its previous owner (handover or failover), else start",
    labelNames: ["kind"] as const,
    registers,
  });
  const lost = new Counter({
    name: "gateway_session_leases_lost_total",
    help: "Leases this pod lost and dropped at once: renewal_refused (another owner), fenced (not renewed in time: Redis slow or down), stale_epoch",
    labelNames: ["reason"] as const,
    registers,
  });
  const reconnects = new Counter({
    name: "gateway_session_reconnects_total",
    help: "Provider connections that dropped and reconnect on their own, by provider and reason (docs/lifecycle.md 'Reasons')",
    labelNames: ["provider", "reason"] as const,
    registers,
  });
  const sendsInFlight = new Gauge({
    name: "gateway_session_sends_in_flight",
    help: "Sends on the network now, waiting for its answer, by provider",
    labelNames: ["provider"] as const,
    registers,
  });
  const sendLatency = new Histogram({
    name: "gateway_session_send_network_duration_seconds",
    help: "From handing a send to the provider to the network's answer, by provider and outcome (ok, error)",
    labelNames: ["provider", "outcome"] as const,
    buckets: BUCKETS,
    registers,
  });
  const providerErrors = new Counter({
    name: "gateway_session_provider_errors_total",
    help: "Operations that failed on this pod, by operation and error code (network_timeout, network_rejected, instance_not_connected, internal_error, …)",
    labelNames: ["op", "code"] as const,
    registers,
  });
  const publishLatency = new Histogram({
    name: "gateway_session_event_publish_duration_seconds",
    help: "Time to publish an event (its 7-day history and the dispatchers' stream, one Redis script) from this pod",
    buckets: BUCKETS,
    registers,
  });
  const publishFailures = new Counter({
    name: "gateway_session_event_publish_failures_total",
    help: "Event publications that failed (Redis unreachable); the caller retries or the provider's event is retried",
    registers,
  });
  registerRedisHealth(registry, opts.pingRedis);
  const calls = new Counter({
    name: "gateway_session_rpc_total",
    help: "Operations asked of this pod (over /rpc or the channel) by operation and answer status",
    labelNames: ["op", "status"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "gateway_session_rpc_duration_seconds",
    help: "Time to answer an operation, by operation (a send includes the network's answer)",
    labelNames: ["op"] as const,
    buckets: BUCKETS,
    registers,
  });
  // Known operation names only (bounded label sets); the labelled children looked up once.
  const known = new Set(opts.ops);
  const counters = new Map<string, ReturnType<typeof calls.labels>>();
  const timers = new Map<string, ReturnType<typeof duration.labels>>();
  // The labelled children of the send path, looked up once per provider (as `observe` below does).
  const sends = new Map<Provider, ReturnType<typeof sendChildrenOf>>();
  const sendChildrenOf = (provider: Provider) => ({
    inFlight: sendsInFlight.labels(provider),
    ok: sendLatency.labels(provider, "ok"),
    error: sendLatency.labels(provider, "error"),
  });
  const sendChildren = (provider: Provider) => {
    let children = sends.get(provider);
    if (!children) {
      children = sendChildrenOf(provider);
      sends.set(provider, children);
    }
    return children;
  };
  const observer: SessionObserver = {
    leaseAcquired: (takeover) => acquired.inc({ kind: takeover ? "takeover" : "start" }),
    leaseLost: (why) => lost.inc({ reason: LOST_REASONS[why] ?? "other" }),
    reconnect: (provider, reason) => reconnects.inc({ provider, reason }),
    async send(provider, fn) {
      const children = sendChildren(provider);
      children.inFlight.inc();
      const started = performance.now();
      let ok = false;
      try {
        const result = await fn();
        ok = true;
        return result;
      } finally {
        children.inFlight.dec();
        (ok ? children.ok : children.error).observe((performance.now() - started) / 1000);
      }
    },
  };
  return {
    registry,
    observer,
    /** One answered operation: its name, status and how long it took (seconds); `code` when it failed. */
    observe(op: string, status: number, seconds: number, code?: string) {
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
      if (code) providerErrors.inc({ op: name, code });
    },
    /** One event publication from this pod: how long it took, and whether it failed. */
    published(seconds: number, ok: boolean) {
      publishLatency.observe(seconds);
      if (!ok) publishFailures.inc();
    },
  };
}
export type SessionMetrics = ReturnType<typeof createSessionMetrics>;

const timedBuses = new WeakSet<object>();

/**
 * Times the events this process publishes (`platform.events.publish`: the pod's status changes,
 * sent and received messages, acks) into `metrics`. The bus has no hook of its own, so its
 * `publish` is wrapped, once per bus: with several roles or pods on one platform (`ROLES=…`,
 * tests) the first pod's metrics count every publication of the process.
 */
export function timePublishes(platform: Platform, metrics: Pick<SessionMetrics, "published">): void {
  const bus = platform.events;
  if (timedBuses.has(bus)) return;
  timedBuses.add(bus);
  const publish = bus.publish.bind(bus);
  bus.publish = async (...args) => {
    const started = performance.now();
    try {
      const env = await publish(...args);
      if (env) metrics.published((performance.now() - started) / 1000, true); // null: not emitted at all
      return env;
    } catch (err) {
      metrics.published((performance.now() - started) / 1000, false);
      throw err;
    }
  };
}

/**
 * `gateway_redis_reachable` and the PING's round trip, measured when Prometheus scrapes (cached a
 * couple of seconds: several scrapers share one PING). A session pod fences itself (drops its
 * connections) when it cannot renew its leases: Redis as this pod sees it explains most failovers.
 */
function registerRedisHealth(registry: Registry, ping: () => Promise<boolean>, cacheMs = 2_000) {
  let last: { at: number; result: Promise<{ ok: boolean; seconds: number }> } | undefined;
  const check = () => {
    if (!last || Date.now() - last.at > cacheMs) {
      const started = performance.now();
      const result = withDeadline(ping(), 2_000).then(
        (ok) => ({ ok, seconds: (performance.now() - started) / 1000 }),
        () => ({ ok: false, seconds: (performance.now() - started) / 1000 }),
      );
      last = { at: Date.now(), result };
    }
    return last.result;
  };
  new Gauge({
    name: "gateway_redis_reachable",
    help: "1 while Redis answers PING from this pod within 2 s, else 0",
    registers: [registry],
    async collect() {
      this.set((await check()).ok ? 1 : 0);
    },
  });
  new Gauge({
    name: "gateway_redis_ping_seconds",
    help: "Round trip of the last PING to Redis from this pod (the deadline when it did not answer)",
    registers: [registry],
    async collect() {
      this.set((await check()).seconds);
    },
  });
}

/** `p`, or a rejection after `ms` (a scrape must not hang on a Redis that does not answer). */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("deadline")), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
