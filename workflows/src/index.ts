// Workflow code only: deterministic, bundled by the worker. Imports @temporalio/workflow and
// constants of @gw/contracts, nothing with I/O.
export { type WebhookRetryInput, webhookRetry } from "./webhook-retry.ts";
