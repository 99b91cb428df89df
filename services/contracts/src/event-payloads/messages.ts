import { z } from "zod";
import { eventRaw, messageBaseShape, messageMediaSchema } from "./common.ts";

/**
 * The message events (spec 2.11, 6.2; docs/webhooks.md): `message` / `message.any` (what arrived,
 * or what the account sent), and the events about another message — reactions, edits,
 * revocations, poll votes, replies to calendar events — whose `type` names what they are.
 * Builders: services/session/src/events/inbound.ts (received, or sent from the phone) and sent.ts
 * (sent through the API).
 */

/** `payload.type` of `message` / `message.any` (spec 2.11; `reaction` is `message.reaction`'s). */
export const MESSAGE_PAYLOAD_TYPES = [
  "text",
  "image",
  "video",
  "audio",
  "voice",
  "document",
  "sticker",
  "location",
  "contact",
  "poll",
  "button_reply",
  "list_reply",
  "unknown",
] as const;

/** Spec 2.11 `referral`: the first message of a customer who came from an ad (all strings). */
export const messageReferralSchema = z.strictObject({
  sourceType: z.string(),
  sourceId: z.string().meta({ description: "The ad" }),
  sourceUrl: z.string(),
  headline: z.string(),
  body: z.string(),
  mediaType: z.string(),
  clickId: z.string().meta({ description: "For conversion reporting" }),
});

export const messagePayloadSchema = z
  .strictObject({
    ...messageBaseShape,
    type: z.enum(MESSAGE_PAYLOAD_TYPES),
    text: z.string().nullable().meta({ description: "The text, a caption, a poll's or a location's name" }),
    media: messageMediaSchema.optional(),
    status: z.literal("sent").optional().meta({ description: "On the account's own messages" }),
    quotedId: z.string().nullable().meta({ description: "The message it answers" }),
    mentions: z.array(z.string()).optional(),
    forwarded: z.literal(true).optional(),
    referral: messageReferralSchema.nullable().optional(),
    interactive: z
      .strictObject({ type: z.string(), id: z.string(), title: z.string(), description: z.string().optional() })
      .optional()
      .meta({ description: "Official: the button or list row chosen" }),
    error: z
      .strictObject({ code: z.number().int().nullable(), message: z.string(), details: z.string().nullable() })
      .optional()
      .meta({ description: "Official: why the operator could not deliver it" }),
    template: z.strictObject({ name: z.string(), language: z.string() }).optional(),
    raw: eventRaw.meta({ description: "The network's or operator's own message; its format may change" }),
  })
  .meta({ id: "MessagePayload", description: "`message` and `message.any` (spec 2.11)" });
export type MessagePayload = z.infer<typeof messagePayloadSchema>;

/** The message an event names, in the API's form; null when the network does not say which. */
const named = z.string().nullable();

export const messageReactionPayloadSchema = z
  .strictObject({
    ...messageBaseShape,
    type: z.literal("reaction"),
    messageId: named,
    emoji: z.string().meta({ description: "Empty: the reaction was removed" }),
    serverId: z.string().optional().meta({ description: "A channel post's sequence number" }),
    count: z.number().int().optional().meta({ description: "A channel post: the emoji's total, when told" }),
    raw: eventRaw.optional(),
  })
  .meta({ id: "MessageReactionPayload" });

export const messageEditedPayloadSchema = z
  .strictObject({
    ...messageBaseShape,
    type: z.literal("edit"),
    messageId: named,
    text: z.string().nullable(),
    raw: eventRaw.optional(),
  })
  .meta({ id: "MessageEditedPayload" });

export const messageRevokedPayloadSchema = z
  .strictObject({ ...messageBaseShape, type: z.literal("revoke"), messageId: named, raw: eventRaw.optional() })
  .meta({ id: "MessageRevokedPayload" });

export const pollVotePayloadSchema = z
  .strictObject({
    ...messageBaseShape,
    type: z.literal("poll_vote"),
    pollId: named,
    selectedOptions: z.array(z.string()).meta({ description: "Option names; empty: the vote was withdrawn" }),
    raw: eventRaw,
  })
  .meta({ id: "PollVotePayload" });

export const eventResponsePayloadSchema = z
  .strictObject({
    ...messageBaseShape,
    type: z.literal("event_response"),
    eventId: named.meta({ description: "The calendar event's message" }),
    response: z.enum(["going", "not_going", "maybe", ""]).meta({ description: "Empty when it cannot be read" }),
    raw: eventRaw,
  })
  .meta({ id: "EventResponsePayload" });
