import {
  contextFromTraceparent,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
  tracingEnabled,
  withSpan,
} from "@gw/platform/telemetry";
import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * A server span per request of `app` (`POST /v1/instances/:instanceId/messages/text`: the route
 * template, never the raw URL), made in the request hooks rather than by the HTTP
 * instrumentation package (tracing.ts in the platform says why). It joins the trace of a caller
 * that sends `traceparent`, is active while the route's handler runs — so the session call, the
 * pod's operation and the provider's send hang under it, and the handler's log lines carry its
 * `trace_id` — and ends with the response. Nothing is registered while tracing is off.
 */
export function traceRequests(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  const end = (req: FastifyRequest, status: number | null) => {
    const span = spans.get(req);
    if (!span) return;
    spans.delete(req);
    if (status === null) span.setStatus({ code: SpanStatusCode.ERROR, message: "request aborted" });
    else {
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook("onRequest", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unmatched";
    const span = startSpan(
      `${req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": req.method, "http.route": route, "gw.request_id": String(req.id) },
      },
      contextFromTraceparent(req.headers.traceparent),
    );
    if (span) {
      spans.set(req, span);
      // Fastify's own lines for this request (errors, "request completed") carry the trace too.
      const { traceId, spanId } = span.spanContext();
      req.log = req.log.child({ trace_id: traceId, span_id: spanId });
      reply.log = req.log;
    }
    done();
  });
  // The last hook before the handler: the handler (called from `done`) and everything it awaits
  // run with the span active. Earlier hooks (authentication) are inside the span's time only.
  app.addHook("preHandler", (req, _reply, done) => withSpan(spans.get(req), done));
  app.addHook("onResponse", (req, reply, done) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook("onRequestAbort", (req, done) => {
    end(req, null);
    done();
  });
}
