import { z } from "zod";
import { labelSchema } from "../areas/labels.ts";
import { eventSeconds } from "./common.ts";

/**
 * Labels of standard business accounts (spec 6.2; docs/labels.md). Builders:
 * services/session/src/providers/sim/areas/labels.ts, providers/baileys/areas/labels/labels-book.ts.
 */

export const labelEventPayloadSchema = z
  .strictObject({ ...labelSchema.shape, timestamp: eventSeconds })
  .meta({ id: "LabelEventPayload", description: "`label.upsert`, `label.deleted`: the label" });

export const labelChatEventPayloadSchema = z
  .strictObject({
    labelId: z.string(),
    chatId: z.string(),
    chatLid: z.string().nullable(),
    label: labelSchema.nullable().meta({ description: "Null when the label is no longer known" }),
    timestamp: eventSeconds,
  })
  .meta({ id: "LabelChatEventPayload", description: "`label.chat.added`, `label.chat.deleted`" });
