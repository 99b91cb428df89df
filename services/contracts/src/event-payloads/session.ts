import { z } from "zod";
import { queueEventPayloadSchema } from "../queue.ts";
import { sessionStatusPayloadSchema } from "../session.ts";

/**
 * The events of the instance itself: `session.status` (services/platform/src/events/bus.ts
 * `sessionStatus`), the queue's `queue.sent` / `queue.failed` (services/sending/src/queue-item.ts
 * `queueEventPayload`) and `webhook.test` (`POST /webhooks/{webhookId}/test`).
 */

export const sessionStatusEventPayloadSchema = z
  .strictObject(sessionStatusPayloadSchema.shape)
  .meta({ id: "SessionStatusPayload" });

export const queueSentPayloadSchema = z
  .strictObject({ ...queueEventPayloadSchema.shape, status: z.literal("sent"), messageId: z.string() })
  .meta({ id: "QueueSentPayload", description: "The queue item (spec 2.7), sent, and when (unix seconds)" });

export const queueFailedPayloadSchema = z
  .strictObject({ ...queueEventPayloadSchema.shape, status: z.enum(["failed", "expired", "cancelled"]) })
  .meta({ id: "QueueFailedPayload", description: "The queue item (spec 2.7) that did not leave, and when" });

export const webhookTestPayloadSchema = z
  .strictObject({ webhookId: z.string(), message: z.string() })
  .meta({ id: "WebhookTestPayload" });
