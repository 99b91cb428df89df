import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { tracingEnabled } from "./state.ts";

/**
 * The few span helpers the roles use. Each one checks {@link tracingEnabled} first: with tracing
 * off they call straight through, so the send path costs one flag check.
 */

const TRACER = "messaging-gateway";
const tracer = () => trace.getTracer(TRACER);

/**
 * `fn` inside a new span, active for everything `fn` awaits (child spans, the `traceparent` of
 * the calls it makes, `trace_id` in its logs). A throw marks the span failed and is rethrown.
 * `parent`: a context taken from another process ({@link contextFromTraceparent}); the active
 * one by default. With tracing off, `fn()` with no span.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
  parent?: Context,
): Promise<T> {
  if (!tracingEnabled()) return fn(undefined);
  return tracer().startActiveSpan(name, options, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span started now and ended by the caller (the gateway's request hooks); undefined when off. */
export function startSpan(name: string, options: SpanOptions, parent?: Context): Span | undefined {
  if (!tracingEnabled()) return undefined;
  return tracer().startSpan(name, options, parent ?? context.active());
}

/** `fn()` with `span` active (its children and outgoing calls hang under it). */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  if (!span) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Marks `span` failed with `err` (its message and, for an exception, the stack as an event). */
export function failSpan(span: Span | undefined, err: unknown): void {
  if (!span) return;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The W3C `traceparent` of the active span, for a call to another process; undefined when off or outside a span. */
export function currentTraceparent(): string | undefined {
  if (!tracingEnabled()) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a `traceparent` (header or frame field) names, to parent a span on: the root without one. */
export function contextFromTraceparent(traceparent: unknown): Context {
  if (typeof traceparent !== "string" || !tracingEnabled()) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** `trace_id` and `span_id` of the active span for a log line (pino's mixin); nothing outside a span. */
export function traceLogFields(): Record<string, string> {
  // A fresh object each time: pino merges the line's fields into what the mixin returns.
  if (!tracingEnabled()) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export { type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
