import { createRequire } from "node:module";
import { activeTracing, workflowSpanProcessor } from "@gw/platform/telemetry";
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from "@temporalio/interceptors-opentelemetry";
import type { WorkerOptions } from "@temporalio/worker";

const require = createRequire(import.meta.url);
type LegacyProcessor = Parameters<typeof makeWorkflowExporter>[0];
type LegacyResource = Parameters<typeof makeWorkflowExporter>[1];

/**
 * Temporal's OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`), while tracing
 * is on (`@gw/platform/telemetry`); nothing at all while it is off, so the workflow bundle and
 * every call stay as they are. On:
 * - the worker's client puts the caller's trace context in the headers of the workflows it
 *   starts (a failed webhook delivery's retry workflow continues the delivery's trace);
 * - workflows make `RunWorkflow`, `StartChildWorkflow`, `StartActivity` spans inside the
 *   sandbox, sent out through the `exporter` sink into this process's span processor (translated
 *   from the interceptors' SDK 1.x shape: platform telemetry/workflow-spans.ts);
 * - each activity runs in a `RunActivity` span, child of the workflow's `StartActivity`, so the
 *   session call a queued send makes, and the webhook attempt of a retry, hang under it.
 */
export function temporalTracing(): {
  client: { workflow: OpenTelemetryWorkflowClientInterceptor[] } | undefined;
  worker: Pick<WorkerOptions, "interceptors" | "sinks">;
} {
  const processor = workflowSpanProcessor();
  const resource = activeTracing()?.resource;
  if (!processor || !resource) return { client: undefined, worker: {} };
  return {
    client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    worker: {
      interceptors: {
        workflowModules: [require.resolve("@temporalio/interceptors-opentelemetry/lib/workflow-interceptors")],
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      // Typed against the interceptors' own SDK 1.x; the processor takes the spans in that shape.
      sinks: { exporter: makeWorkflowExporter(processor as unknown as LegacyProcessor, resource as LegacyResource) },
    },
  };
}
