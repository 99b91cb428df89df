import {
  HELPDESK_ITEM_SIGNAL,
  type HelpdeskConversationInput,
  type HelpdeskItem,
  helpdeskItemKey,
} from "@gw/contracts/helpdesk-items";
import { condition, continueAsNew, defineSignal, log, proxyActivities, setHandler } from "@temporalio/workflow";
import type { HelpdeskActivities } from "./helpdesk-activities.ts";

/** Items one run handles before it continues as new (its history stays small). */
const ITEMS_PER_RUN = 500;
/** Items one activity relays at most: a chat's backlog goes in a few calls, not one per message. */
const BATCH = 50;
/** Item keys remembered against a second hand-over of the same item (a stream entry read again). */
const SEEN_MAX = 500;
/** An idle conversation's workflow ends after this; the next item starts it again. */
const IDLE = "1 minute";

export const helpdeskItemSignal = defineSignal<[HelpdeskItem[]]>(HELPDESK_ITEM_SIGNAL);

const { relayHelpdeskItems } = proxyActivities<HelpdeskActivities>({
  startToCloseTimeout: "5 minutes",
  // The help desk down for minutes or hours loses nothing: the batch is tried again, every 10 s at
  // most (a chat resumes within 10 s of the help desk's return), for a day (then it is logged and
  // dropped, as a webhook gives up after 24 h).
  scheduleToCloseTimeout: "24 hours",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "10 seconds" },
});

/**
 * One chat's items in the help desk (docs/helpdesk.md), in the order they were handed over: the
 * instance's events relayed into the conversation, and agents' replies sent to the customer. One
 * at a time, so the conversation keeps its order and an agent's reply is mapped before its echo
 * comes back. Started by signal-with-start from the event intake or the help desk's hook.
 */
export async function helpdeskConversation(input: HelpdeskConversationInput): Promise<void> {
  const pending: HelpdeskItem[] = [...(input.pending ?? [])];
  const seen = new Set(input.seen ?? []);
  setHandler(helpdeskItemSignal, (items) => {
    for (const item of items) {
      const key = helpdeskItemKey(item);
      if (seen.has(key)) continue;
      seen.add(key);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
      pending.push(item);
    }
  });
  let handled = 0;
  for (;;) {
    // Ends when idle; a signal that arrives meanwhile makes Temporal run it again instead.
    if (!(await condition(() => pending.length > 0, IDLE))) return;
    const items = pending.splice(0, BATCH);
    try {
      await relayHelpdeskItems({ instanceId: input.instanceId, appId: input.appId, chatId: input.chatId, items });
    } catch (err) {
      log.error("help-desk items dropped after a day of failures", {
        keys: items.map(helpdeskItemKey),
        err: String(err),
      });
    }
    handled += items.length;
    if (handled >= ITEMS_PER_RUN) {
      await continueAsNew<typeof helpdeskConversation>({ ...input, pending, seen: [...seen] });
    }
  }
}
