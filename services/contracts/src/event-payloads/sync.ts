import { z } from "zod";
import { eventRaw, eventSeconds } from "./common.ts";

/**
 * Coexistence (official gateway; docs/official.md): the business app's address book
 * (`contact.sync`) and chat history (`history.sync`). Builder:
 * services/session/src/providers/cloud/inbound-fields.ts.
 */

const text = z.string().nullable();

export const contactSyncPayloadSchema = z
  .strictObject({
    source: z.enum(["smb_app_state_sync", "system", "user_id_update"]),
    contacts: z.array(
      z.strictObject({
        action: text.meta({ description: "add, remove, …; `user_changed_number` (source `system`)" }),
        chatId: text,
        phone: z.string(),
        fullName: text.optional(),
        firstName: text.optional(),
        newChatId: text.optional().meta({ description: "`user_changed_number`" }),
        newPhone: z.string().optional(),
        text: text.optional(),
        timestamp: eventSeconds,
      }),
    ),
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "ContactSyncPayload" });

export const historySyncPayloadSchema = z
  .strictObject({
    phase: z.number().int().nullable(),
    chunkOrder: z.number().int().nullable(),
    progress: z.number().nullable(),
    threads: z.array(z.strictObject({ chatId: text, messages: z.number().int() })),
    errors: z.array(z.unknown()).optional(),
    timestamp: eventSeconds,
  })
  .meta({ id: "HistorySyncPayload", description: "What arrived; the messages go to the read model only" });
