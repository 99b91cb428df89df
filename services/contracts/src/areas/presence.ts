import { z } from "zod";
import type { Capability } from "../capability.ts";
import { chatFields } from "../chat-id.ts";
import { defineOps } from "../ops.ts";
import { type PresenceState, presenceStateSchema } from "../outbound.ts";

/**
 * Presence (spec 4.9, 2.10 and the `presence.update` event of 6.2; docs/profile-presence.md): the
 * account's own presence, subscriptions to other chats' presence, and what was heard of them.
 */

/** What `POST /presence` takes (the API's words). */
export const PRESENCE_VALUES = ["offline", "online", "typing", "recording", "paused"] as const;
export type PresenceValue = (typeof PRESENCE_VALUES)[number];

/** The API's words as the network's states. */
export const PRESENCE_TO_NETWORK: Record<PresenceValue, PresenceState> = {
  offline: "unavailable",
  online: "available",
  typing: "composing",
  recording: "recording",
  paused: "paused",
};

/** States that belong to one chat (a chat is required); the others are the account's. */
export const CHAT_PRESENCES: ReadonlySet<PresenceValue> = new Set(["typing", "recording", "paused"]);

/**
 * What an entry says of a person: `online`, `offline` (with `lastSeen` when the person shows it),
 * `typing` or `recording` in that chat. A stopped indicator (`paused`) reads `online`, as the
 * network's own clients show it.
 */
export const HEARD_PRESENCES = ["online", "offline", "typing", "recording"] as const;
export type HeardPresence = (typeof HEARD_PRESENCES)[number];

/** The network's states as heard presences. */
export function heardPresence(state: PresenceState): HeardPresence {
  switch (state) {
    case "unavailable":
      return "offline";
    case "composing":
      return "typing";
    case "recording":
      return "recording";
    default:
      return "online";
  }
}

/**
 * How long things last (docs/profile-presence.md "How long"):
 * - a subscription, from the last `POST /presence/{chatId}/subscribe`: renewed by calling it again,
 *   sent to the network again on every reconnection while it lasts;
 * - a cached entry, from the last presence heard in that chat;
 * - a typing or recording indicator heard and not followed by anything: it reads `online` after
 *   this long, as the network's clients stop showing it.
 */
export const PRESENCE_SUBSCRIPTION_TTL_MS = 24 * 3_600_000;
export const PRESENCE_CACHE_TTL_MS = 24 * 3_600_000;
export const PRESENCE_TYPING_FRESH_MS = 25_000;
/**
 * A first `GET /presence/{chatId}` of a contact not subscribed to subscribes to it, then waits this
 * long at most for the presence the network answers a subscription with.
 */
export const PRESENCE_FIRST_READ_WAIT_MS = 1_000;

/**
 * The providers' record of an instance's presence (a provider record, `ProviderContext.records`):
 * `account` (the phone it was made for), `self` (`available`/`unavailable` as last set through
 * POST /presence) and `sub:<chatId>` (the subscription's end, unix ms). The gateway reads `self`
 * (read receipts are withheld while it is `unavailable`) and the subscriptions.
 */
export const PRESENCE_RECORD = "presence";
export const PRESENCE_SUB_PREFIX = "sub:";

// --- route bodies (spec 4.9) -------------------------------------------------------------------

export const presenceBody = z.object({
  presence: z
    .enum(PRESENCE_VALUES, `presence: use ${PRESENCE_VALUES.join(", ")}`)
    .meta({ description: "online/offline: the account's; typing/recording/paused: in the chat given" }),
  ...chatFields,
});

// --- the API's resource (spec 2.10) ------------------------------------------------------------

export const presenceItemSchema = z.object({
  participant: z.string().meta({ description: "Who: the contact, or in a group the member" }),
  lastKnownPresence: z.enum(HEARD_PRESENCES),
  lastSeen: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Unix seconds the person was last online, when offline and shown; else null" }),
});
export type PresenceItem = z.infer<typeof presenceItemSchema>;

export const presenceEntrySchema = z
  .object({
    id: z.string().meta({ description: "The chat: `<digits>@c.us`, `@lid` or `@g.us`" }),
    presences: z.array(presenceItemSchema),
  })
  .meta({ id: "PresenceEntry" });
export type PresenceEntry = z.infer<typeof presenceEntrySchema>;

// --- session operations ------------------------------------------------------------------------

const done = z.object({});

export const presenceOps = defineOps({
  /** The account's presence (available/unavailable), or an indicator in a chat (the others). */
  "presence.set": { input: z.object({ state: presenceStateSchema, chatId: z.string().optional() }), output: done },
  /** Subscribe to a contact's or group's presence (kept and renewed, see PRESENCE_SUBSCRIPTION_TTL_MS). */
  "presence.subscribe": { input: z.object({ chatId: z.string().min(1) }), output: done },
});

// --- capabilities ------------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };

export const presenceCapabilities: Record<string, Capability> = {
  "POST /presence": standard,
  "GET /presence": standard,
  "GET /presence/{chatId}": standard,
  "POST /presence/{chatId}/subscribe": standard,
};
