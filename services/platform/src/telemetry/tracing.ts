// OpenTelemetry traces of this process (docs/operations.md "Tracing"): off unless
// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, so a deployment
// without a collector pays nothing — every helper of spans.ts checks `tracingEnabled()` first
// and calls straight through. On, spans go to that endpoint over OTLP/HTTP in batches; the SDK
// reads the other standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`,
// `OTEL_TRACES_SAMPLER_ARG`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`).
//
// Spans are made by hand where a request crosses a boundary (the gateway's request hooks, the
// session channel, the provider call, webhook attempts) rather than by auto-instrumentation: the
// process is ESM under tsx, where the require hooks of the instrumentation packages see nothing,
// and the hot paths (`pnpm bench send`) keep a single flag check when tracing is off.
import { hostname } from "node:os";
import { type Attributes, context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { activeTracing, setActiveTracing, type Tracing } from "./state.ts";

export interface TracingOptions {
  /** `service.name` unless `OTEL_SERVICE_NAME` says otherwise. */
  serviceName: string;
  /** `service.instance.id` (the pod's name in Kubernetes); the host name by default. */
  instanceId?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /**
   * Tests: spans go to this exporter, one by one as they end (no batching: a test reads them
   * right after the request), whatever the environment says.
   */
  exporter?: SpanExporter;
}

/**
 * Starts tracing when the environment asks for it (or a test gives an exporter); null when off.
 * Once per process: a second call answers the first one's tracing.
 */
export function startTracing(opts: TracingOptions): Tracing | null {
  const running = activeTracing();
  if (running) return running;
  const env = opts.env ?? process.env;
  // The traces endpoint as the OTLP spec derives it: the signal's own variable as is, else the
  // base one with `/v1/traces` (given to the exporter: `env` may not be the process's).
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces` : "");
  if (!opts.exporter && !tracesUrl) return null;
  const attributes: Attributes = {
    "service.name": env.OTEL_SERVICE_NAME || opts.serviceName,
    "service.namespace": "messaging-gateway",
    "service.instance.id": opts.instanceId ?? hostname(),
  };
  // The process's OTEL_RESOURCE_ATTRIBUTES (k8s.namespace.name, deployment.environment, …) on top of ours.
  const resource = resourceFromAttributes(attributes).merge(detectResources({ detectors: [envDetector] }));
  // The exporter reads the headers and timeout from the process's environment itself.
  const processor = opts.exporter
    ? new SimpleSpanProcessor(opts.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The AsyncLocalStorage context manager and the W3C `traceparent` propagator, globally.
  provider.register();
  const tracing: Tracing = {
    processor,
    resource,
    async shutdown() {
      if (activeTracing() !== tracing) return;
      setActiveTracing(null);
      await provider.shutdown().catch(() => {});
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  setActiveTracing(tracing);
  return tracing;
}
