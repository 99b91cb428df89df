import { z } from "zod";

/** Spec 6.2 event kinds. */
export const eventKinds = [
  "message",
  "message.any",
  "message.ack",
  "message.reaction",
  "message.edited",
  "message.revoked",
  "session.status",
  "queue.sent",
  "queue.failed",
  "message.ack.group",
  "presence.update",
  "group.join",
  "group.leave",
  "group.update",
  "group.participants",
  "group.join_request",
  "poll.vote",
  "event.response",
  "call.received",
  "call.accepted",
  "call.rejected",
  "label.upsert",
  "label.deleted",
  "label.chat.added",
  "label.chat.deleted",
  "template.status",
  "template.quality",
  "template.category",
  "phone.quality",
  "phone.name",
  "account.update",
  "account.alert",
  "contact.marketing",
  "contact.sync",
  "history.sync",
  "webhook.test",
] as const;
export const eventKindSchema = z.enum(eventKinds);
export type EventKind = z.infer<typeof eventKindSchema>;

/** Spec 2.11 webhook envelope. */
export const eventEnvelopeSchema = z
  .object({
    id: z.string().regex(/^evt_[0-9a-z]{26}$/),
    event: eventKindSchema,
    instanceId: z.string(),
    provider: z.string(),
    timestamp: z.number().int().meta({ description: "milliseconds" }),
    payload: z.record(z.string(), z.unknown()),
    me: z.object({ id: z.string(), phone: z.string(), pushName: z.string() }).nullable(),
  })
  .meta({ id: "EventEnvelope" });
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;
