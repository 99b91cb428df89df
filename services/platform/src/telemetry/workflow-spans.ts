import { type Attributes, type SpanContext, TraceFlags } from "@opentelemetry/api";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { activeTracing } from "./state.ts";

/**
 * A span as Temporal's workflow interceptors hand it over (`@temporalio/interceptors-opentelemetry`
 * 1.24, through its `exporter` sink): the OpenTelemetry SDK 1.x shape, with `parentSpanId` and
 * `instrumentationLibrary` where SDK 2.x has `parentSpanContext` and `instrumentationScope`.
 */
type LegacySpan = Omit<ReadableSpan, "parentSpanContext" | "instrumentationScope" | "resource"> & {
  parentSpanId?: string;
  instrumentationLibrary?: ReadableSpan["instrumentationScope"];
};

/**
 * The processor to give Temporal's `makeWorkflowExporter`: it turns the workflow's spans (made
 * inside the workflow sandbox by the interceptors' own SDK 1.x) into this process's SDK 2.x shape
 * and passes them to this process's processor, so they leave with the other spans. Without the
 * translation the OTLP exporter would drop every workflow span's parent (it reads
 * `parentSpanContext`) and fail on the missing scope. Null while tracing is off.
 */
export function workflowSpanProcessor(): SpanProcessor | null {
  const tracing = activeTracing();
  if (!tracing) return null;
  const { processor, resource } = tracing;
  return {
    onStart() {},
    onEnd(span) {
      const legacy = span as unknown as LegacySpan;
      const own = legacy.spanContext();
      const parentSpanContext: SpanContext | undefined = legacy.parentSpanId
        ? { traceId: own.traceId, spanId: legacy.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: false }
        : undefined;
      const { parentSpanId: _p, instrumentationLibrary, attributes, ...rest } = legacy;
      processor.onEnd({
        ...rest,
        attributes: plainAttributes(attributes),
        spanContext: () => own,
        parentSpanContext,
        instrumentationScope: instrumentationLibrary ?? { name: "@temporalio/interceptor-workflow" },
        resource,
      });
    },
    forceFlush: () => processor.forceFlush(),
    // The provider shuts the processor down (Tracing.shutdown), not each of its feeders.
    shutdown: async () => {},
  };
}

const isPlain = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * The sink merges the whole `WorkflowInfo` into each span's attributes (nested objects, a
 * function): only what an attribute may be is kept — primitives and arrays of them
 * (`workflowId`, `workflowType`, `runId`, `taskQueue`, `attempt`, …).
 */
function plainAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (isPlain(value) || (Array.isArray(value) && value.every((v) => v == null || isPlain(v)))) out[key] = value;
  }
  return out;
}
