import { pino } from "pino";
import { traceLogFields } from "../telemetry/spans.ts";

export type Logger = pino.Logger;

/**
 * JSON logs; secrets never reach them (see `redact`). While tracing is on, a line written inside
 * a span carries its `trace_id` and `span_id` (the mixin reads the active span), so a log line
 * leads to its trace and back; off, the mixin adds nothing.
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { pid: process.pid, ...bindings },
    mixin: traceLogFields,
    redact: {
      paths: [
        "req.headers.authorization",
        'req.headers["x-instance-token"]',
        'req.headers["client-token"]',
        'req.headers["x-internal-secret"]',
      ],
      censor: "[redacted]",
    },
  });
}
