import type { Settings } from "./context.ts";
import { h } from "./dom.ts";

/** The workflow of one queued send (workflows/src/queue.ts: queueItemWorkflowId). */
export const queueItemWorkflowId = (queueId: string) => `queue-item-${queueId}`;
/** The instance's queue workflow, which starts one child per item in turn. */
export const queueWorkflowId = (instanceId: string) => `queue-${instanceId}`;

/**
 * A link to a workflow in the Temporal Web UI (`TEMPORAL_UI_URL`). The list page filtered by
 * workflow id, rather than the workflow's own page: that one needs the run id, and this finds
 * every run under the id (a queue workflow continues as new).
 */
export function temporalLink(settings: Settings, workflowId: string, label = "Temporal"): HTMLAnchorElement {
  const query = encodeURIComponent(`WorkflowId="${workflowId}"`);
  const href = `${settings.temporalUiUrl}/namespaces/${encodeURIComponent(settings.temporalNamespace)}/workflows?query=${query}`;
  return h(
    "a",
    { href, target: "_blank", rel: "noopener noreferrer", class: "temporal", "data-testid": "temporal-link" },
    label,
  );
}
