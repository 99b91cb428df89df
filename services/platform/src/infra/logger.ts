import { pino } from "pino";

export type Logger = pino.Logger;

/** JSON logs; secrets never reach them (see `redact`). */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { pid: process.pid, ...bindings },
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
