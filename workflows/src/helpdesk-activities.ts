import type { HelpdeskItem } from "@gw/contracts/helpdesk-items";

export interface HelpdeskRelayInput {
  instanceId: string;
  appId: string;
  chatId: string;
  /** The chat's items in order; done ones are skipped when the batch runs again. */
  items: HelpdeskItem[];
}

/** The help-desk connector's activity (services/worker/src/helpdesk/activities.ts). */
export interface HelpdeskActivities {
  /**
   * Shows events in the help desk and sends agents' replies, in order; throws what is worth trying
   * again (the whole batch runs again: what was done is found done by its mapping).
   */
  relayHelpdeskItems(input: HelpdeskRelayInput): Promise<number>;
}
