import { z } from "zod";

export * from "./helpdesk-items.ts";

/**
 * Chatwoot's `message_created` webhook (an API-channel inbox's `webhook_url`, `Message#webhook_data`):
 * only the fields the connector reads, the rest let through. The same hook reports every message
 * of the inbox — the customer's we created, our own relays of the phone's messages, private notes —
 * so the connector keeps only an agent's public outgoing ones (docs/helpdesk.md).
 */
export const chatwootWebhookSchema = z.looseObject({
  event: z.string(),
  id: z.coerce.number().int().optional(),
  content: z.string().nullish(),
  message_type: z.union([z.string(), z.number()]).optional(),
  private: z.boolean().optional(),
  source_id: z.string().nullish(),
  content_attributes: z.looseObject({ in_reply_to: z.coerce.number().nullish() }).nullish(),
  sender: z
    .looseObject({ id: z.coerce.number().nullish(), name: z.string().nullish(), type: z.string().nullish() })
    .nullish(),
  account: z.looseObject({ id: z.coerce.number() }).nullish(),
  inbox: z.looseObject({ id: z.coerce.number() }).nullish(),
  conversation: z
    .looseObject({
      id: z.coerce.number(),
      inbox_id: z.coerce.number().nullish(),
      meta: z
        .looseObject({
          sender: z.looseObject({ identifier: z.string().nullish(), phone_number: z.string().nullish() }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  attachments: z
    .array(z.looseObject({ data_url: z.string(), file_type: z.string().nullish(), file_name: z.string().nullish() }))
    .nullish(),
});
export type ChatwootWebhook = z.infer<typeof chatwootWebhookSchema>;

/** Our relays carry this `source_id` prefix (as other connectors do): the hook drops them as echoes. */
export const HELPDESK_SOURCE_PREFIX = "WAID:";
