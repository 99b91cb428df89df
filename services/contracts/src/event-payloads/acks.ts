import { z } from "zod";
import { eventContactSchema, eventSeconds } from "./common.ts";

/**
 * Acks of the messages the account sent (spec 2.9, 3.2): `message.ack`, and `message.ack.group`
 * per participant of a group. Builders: services/session/src/events/record.ts (`recordAck`),
 * sent-record.ts (the `sent` ack of a send) and the providers' group receipts.
 */

export const messageAckPayloadSchema = z
  .strictObject({
    id: z.string(),
    chatId: z.string(),
    status: z.enum(["pending", "sent", "delivered", "read", "played", "failed"]),
    timestamp: eventSeconds,
    error: z
      .strictObject({
        code: z
          .union([z.number().int(), z.literal("network_rejected")])
          .optional()
          .meta({ description: "The operator's code, or `network_rejected` (then `networkCode` is the network's)" }),
        message: z.string(),
        networkCode: z.number().int().optional(),
      })
      .optional()
      .meta({ description: "Why, when `failed`" }),
    pricing: z
      .strictObject({
        category: z.string().nullable(),
        type: z.string().nullable(),
        billable: z.boolean().nullable(),
        pricingModel: z.string().nullable(),
        conversation: z
          .strictObject({ id: z.string().nullable(), origin: z.string().nullable(), expiresAt: z.number().nullable() })
          .optional(),
      })
      .optional()
      .meta({ description: "Official: the operator's category and charge" }),
  })
  .meta({ id: "MessageAckPayload" });

export const groupAckPayloadSchema = z
  .strictObject({
    id: z.string(),
    chatId: z.string(),
    participant: eventContactSchema,
    status: z.enum(["delivered", "read", "played"]),
    timestamp: eventSeconds,
  })
  .meta({ id: "GroupAckPayload" });
