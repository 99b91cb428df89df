import { z } from "zod";
import { type EventKind, eventEnvelopeSchema } from "../events.ts";
import { groupAckPayloadSchema, messageAckPayloadSchema } from "./acks.ts";
import { callPayloadSchema, callRejectedPayloadSchema } from "./calls.ts";
import {
  groupJoinPayloadSchema,
  groupJoinRequestPayloadSchema,
  groupLeavePayloadSchema,
  groupParticipantsPayloadSchema,
  groupUpdatePayloadSchema,
} from "./groups.ts";
import { labelChatEventPayloadSchema, labelEventPayloadSchema } from "./labels.ts";
import {
  eventResponsePayloadSchema,
  messageEditedPayloadSchema,
  messagePayloadSchema,
  messageReactionPayloadSchema,
  messageRevokedPayloadSchema,
  pollVotePayloadSchema,
} from "./messages.ts";
import {
  accountAlertPayloadSchema,
  accountUpdatePayloadSchema,
  contactMarketingPayloadSchema,
  phoneNamePayloadSchema,
  phoneQualityPayloadSchema,
  templateCategoryPayloadSchema,
  templateQualityPayloadSchema,
  templateStatusPayloadSchema,
} from "./official.ts";
import { presenceUpdatePayloadSchema } from "./presence.ts";
import {
  queueFailedPayloadSchema,
  queueSentPayloadSchema,
  sessionStatusEventPayloadSchema,
  webhookTestPayloadSchema,
} from "./session.ts";
import { contactSyncPayloadSchema, historySyncPayloadSchema } from "./sync.ts";

export * from "./acks.ts";
export * from "./calls.ts";
export * from "./common.ts";
export * from "./groups.ts";
export * from "./labels.ts";
export * from "./messages.ts";
export * from "./official.ts";
export * from "./presence.ts";
export * from "./session.ts";
export * from "./sync.ts";

/**
 * Every event kind's payload (spec 2.11 `payload`, 6.2): the registry the OpenAPI document's
 * `webhooks` section is made from (services/gateway/src/openapi/webhooks.ts) and the e2e test that
 * drives every kind to a signed receiver checks against (test/e2e/event-schemas-*.test.ts).
 */
export const EVENT_PAYLOAD_SCHEMAS = {
  message: messagePayloadSchema,
  "message.any": messagePayloadSchema,
  "message.ack": messageAckPayloadSchema,
  "message.reaction": messageReactionPayloadSchema,
  "message.edited": messageEditedPayloadSchema,
  "message.revoked": messageRevokedPayloadSchema,
  "session.status": sessionStatusEventPayloadSchema,
  "queue.sent": queueSentPayloadSchema,
  "queue.failed": queueFailedPayloadSchema,
  "message.ack.group": groupAckPayloadSchema,
  "presence.update": presenceUpdatePayloadSchema,
  "group.join": groupJoinPayloadSchema,
  "group.leave": groupLeavePayloadSchema,
  "group.update": groupUpdatePayloadSchema,
  "group.participants": groupParticipantsPayloadSchema,
  "group.join_request": groupJoinRequestPayloadSchema,
  "poll.vote": pollVotePayloadSchema,
  "event.response": eventResponsePayloadSchema,
  "call.received": callPayloadSchema,
  "call.accepted": callPayloadSchema,
  "call.rejected": callRejectedPayloadSchema,
  "label.upsert": labelEventPayloadSchema,
  "label.deleted": labelEventPayloadSchema,
  "label.chat.added": labelChatEventPayloadSchema,
  "label.chat.deleted": labelChatEventPayloadSchema,
  "template.status": templateStatusPayloadSchema,
  "template.quality": templateQualityPayloadSchema,
  "template.category": templateCategoryPayloadSchema,
  "phone.quality": phoneQualityPayloadSchema,
  "phone.name": phoneNamePayloadSchema,
  "account.update": accountUpdatePayloadSchema,
  "account.alert": accountAlertPayloadSchema,
  "contact.marketing": contactMarketingPayloadSchema,
  "contact.sync": contactSyncPayloadSchema,
  "history.sync": historySyncPayloadSchema,
  "webhook.test": webhookTestPayloadSchema,
} as const satisfies Record<EventKind, z.ZodType>;

export type EventPayloadOf<K extends EventKind> = z.infer<(typeof EVENT_PAYLOAD_SCHEMAS)[K]>;

/** The whole delivery body of one kind: the envelope (spec 2.11) with `event` fixed and its payload's schema. */
export function eventEnvelopeSchemaOf<K extends EventKind>(kind: K) {
  return z.strictObject({
    ...eventEnvelopeSchema.shape,
    event: z.literal(kind),
    payload: EVENT_PAYLOAD_SCHEMAS[kind] as (typeof EVENT_PAYLOAD_SCHEMAS)[K],
  });
}
