// No zod here: the help-desk workflow (workflows/src/helpdesk.ts) imports these, and workflow code
// is bundled without the validation library.

/** The event kinds the help-desk connector relays (docs/helpdesk.md): messages both ways, reactions, edits, revocations. */
export const HELPDESK_EVENT_KINDS = ["message.any", "message.reaction", "message.edited", "message.revoked"] as const;
export type HelpdeskEventKind = (typeof HELPDESK_EVENT_KINDS)[number];

/** One of the instance's events, to be shown in the help desk. */
export interface HelpdeskEventItem {
  kind: "event";
  eventId: string;
  event: HelpdeskEventKind;
  /** When our gateway published it (ms): the relay's latency is measured from here. */
  publishedAt: number;
  payload: Record<string, unknown>;
}

/** An agent's reply in the help desk, to be sent to the customer. */
export interface HelpdeskAgentItem {
  kind: "agent";
  /** The help desk's message id: the send's idempotency key. */
  messageId: number;
  conversationId: number;
  content: string;
  agentName: string | null;
  attachments: { url: string; fileType: string; name: string | null }[];
  /** The help-desk message it replies to, when the agent quoted one. */
  inReplyTo: number | null;
}

export type HelpdeskItem = HelpdeskEventItem | HelpdeskAgentItem;

/** Where a conversation's items go: one help-desk workflow per app and chat keeps their order. */
export interface HelpdeskConversationInput {
  instanceId: string;
  appId: string;
  chatId: string;
  /** Items carried over a continue-as-new. */
  pending?: HelpdeskItem[];
  seen?: string[];
}

export const helpdeskWorkflowId = (appId: string, chatId: string) => `helpdesk-${appId}-${chatId}`;
/** The signal that hands a workflow an item. */
export const HELPDESK_ITEM_SIGNAL = "helpdeskItem";
/** What identifies an item within its workflow, so that an item handed twice runs once. */
export const helpdeskItemKey = (item: HelpdeskItem) =>
  item.kind === "event" ? item.eventId : `agent:${item.messageId}`;
