import type { HelpdeskItem } from "@gw/contracts/helpdesk-items";

export interface HelpdeskRelayInput {
  instanceId: string;
  appId: string;
  chatId: string;
  item: HelpdeskItem;
}

/** The help-desk connector's activity (services/worker/src/helpdesk/activities.ts). */
export interface HelpdeskActivities {
  /** Shows an event in the help desk, or sends an agent's reply; throws what is worth trying again. */
  relayHelpdeskItem(input: HelpdeskRelayInput): Promise<string>;
}
