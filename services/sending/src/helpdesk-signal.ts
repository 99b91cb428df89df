import {
  HELPDESK_ITEM_SIGNAL,
  type HelpdeskConversationInput,
  type HelpdeskItem,
  helpdeskWorkflowId,
} from "@gw/contracts";
import type { Client } from "@temporalio/client";

/** Workflow type of workflows/src/helpdesk.ts (the gateway does not bundle workflow code). */
export const HELPDESK_WORKFLOW = "helpdeskConversation";

/**
 * Hands items to their chat's help-desk workflow (workflows/src/helpdesk.ts), starting it when
 * idle: the event intake (worker) and the help desk's hook (gateway) both come this way, so one
 * chat's events and agents' replies share one ordered line. Resolves once Temporal holds the items.
 */
export async function signalHelpdesk(
  client: Client,
  taskQueue: string,
  target: { instanceId: string; appId: string; chatId: string },
  items: HelpdeskItem[],
): Promise<void> {
  const args: [HelpdeskConversationInput] = [target];
  await client.workflow.signalWithStart(HELPDESK_WORKFLOW, {
    workflowId: helpdeskWorkflowId(target.appId, target.chatId),
    taskQueue,
    args,
    signal: HELPDESK_ITEM_SIGNAL,
    signalArgs: [items],
  });
}
