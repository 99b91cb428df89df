// Workflow code only: deterministic, bundled by the worker. Imports @temporalio/workflow and
// constants of @gw/contracts, nothing with I/O.

export { helpdeskConversation, helpdeskItemSignal } from "./helpdesk.ts";
// Every function exported here becomes a workflow type: the id helpers (queueWorkflowId,
// queueItemWorkflowId) are imported from "@gw/workflows/queue" instead.
export {
  type CancelItemsInput,
  cancelItemsSignal,
  type InstanceQueueInput,
  instanceQueue,
  type QueueItemInput,
  type QueueItemOutcome,
  queueItem,
  wakeSignal,
} from "./queue.ts";
export { type WebhookRetryInput, webhookRetry } from "./webhook-retry.ts";
