import { z } from "zod";
import { DOC_PATTERNS, documented } from "./doc-patterns.ts";
import { eventKindSchema } from "./events.ts";

export const WEBHOOKS_PER_INSTANCE = 5;
export const WEBHOOK_ID_RE = /^wh_[0-9a-z]{8,40}$/;
export const DELIVERY_ID_RE = /^dlv_[0-9a-z]{26}$/;

const eventsInput = z
  .array(z.union([z.literal("*"), eventKindSchema]), "informe a lista de eventos")
  .min(1, 'informe ao menos um evento, ou "*" para todos')
  .max(64)
  .transform((events) => (events.includes("*") ? ["*"] : [...new Set(events)]));

const webhookUrl = (schema: z.ZodString) =>
  documented(
    schema,
    { format: "uri", pattern: DOC_PATTERNS.httpUrl },
    { description: "http(s) address; port 80 or 443, no internal addresses (spec 4.13)" },
  );

export const createWebhookInput = z.object({
  url: webhookUrl(z.string().min(1, "informe a url").max(2048)),
  events: eventsInput,
});

export const updateWebhookInput = z.object({
  url: webhookUrl(z.string().min(1).max(2048)).optional(),
  events: eventsInput.optional(),
  active: z.boolean().optional().meta({ description: "true reactivates a deactivated webhook" }),
});

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    deactivatedAt: z.iso.datetime().nullable(),
    deactivationReason: z.string().nullable(),
    failingSince: z.iso.datetime().nullable().meta({ description: "first failure since the last success" }),
    responseTime: z.object({ medianMs: z.number().nullable(), p95Ms: z.number().nullable() }).meta({
      description: "over successful deliveries of the last 24 h; null without any",
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Webhook" });
export type Webhook = z.infer<typeof webhookSchema>;

export const webhookWithSecretSchema = webhookSchema.extend({
  secret: z.string().meta({ description: "HMAC-SHA256 key of X-Service-Signature; shown on create and rotate" }),
});

export const deliveryStatusSchema = z.enum(["pending", "retrying", "succeeded", "failed"]);
export const deliverySchema = z
  .object({
    id: z.string().meta({ description: "X-Service-Delivery; a manual resend gets a new one" }),
    webhookId: z.string(),
    eventId: z.string(),
    event: z.string(),
    status: deliveryStatusSchema,
    attempt: z.number().int().meta({ description: "attempts made so far (1 = first)" }),
    httpStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int().nullable().meta({ description: "of the last attempt" }),
    nextAttemptAt: z.iso.datetime().nullable(),
    manual: z.boolean(),
    createdAt: z.iso.datetime(),
    lastAttemptAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "Delivery" });
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryPageSchema = z.object({ data: z.array(deliverySchema), nextCursor: z.string().nullable() });

export { WEBHOOK_FAILING_LIMIT_MS, WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_TIMEOUT_MS } from "./webhook-timing.ts";
