// Constants only, no zod: workflow code imports this file, and Temporal loads a workflow's
// imports afresh for every run (zod there cost ~16 ms per run, measured by pnpm bench send).

/** The retry schedule of spec 6.4, in milliseconds after each failed attempt. */
export const WEBHOOK_RETRY_SCHEDULE_MS = [
  10_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
] as const;
/** Failing without a success this long deactivates a webhook (spec 3.4). */
export const WEBHOOK_FAILING_LIMIT_MS = 24 * 3_600_000;
export const WEBHOOK_TIMEOUT_MS = 10_000;
