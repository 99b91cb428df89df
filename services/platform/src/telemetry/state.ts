import type { Resource } from "@opentelemetry/resources";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-node";

/**
 * Whether this process traces, apart from the SDK that does it (tracing.ts): the span helpers and
 * the logger's mixin read this flag without loading the SDK.
 */
export interface Tracing {
  /** Where every span of this process ends (the worker feeds Temporal's workflow spans into it). */
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  /** Flushes the spans still buffered and stops (process exit). */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** Whether this process records spans: the helpers of spans.ts do nothing while it does not. */
export function tracingEnabled(): boolean {
  return active !== null;
}

/** This process's tracing, or null when off. */
export function activeTracing(): Tracing | null {
  return active;
}

/** Set by tracing.ts as it starts and stops. */
export function setActiveTracing(tracing: Tracing | null): void {
  active = tracing;
}
