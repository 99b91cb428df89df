import { z } from "zod";
import { groupSettingsSchema } from "../areas/groups.ts";
import { eventContactSchema, eventGroupSchema, eventSeconds } from "./common.ts";

/**
 * Group events of standard instances (spec 6.2; docs/groups.md): `chatId` the group, `group`
 * `{id, name}`, `by` who did it. Builders: simnet's group notifications reshaped by
 * services/session/src/providers/sim/areas/groups.ts, and the Baileys provider's
 * (providers/baileys/areas/groups/groups.ts).
 */

const about = { chatId: z.string(), group: eventGroupSchema };

export const groupJoinPayloadSchema = z
  .strictObject({
    ...about,
    by: eventContactSchema.nullable().meta({ description: "Who added the account; null when not told" }),
    timestamp: eventSeconds,
  })
  .meta({ id: "GroupJoinPayload" });

export const groupLeavePayloadSchema = z
  .strictObject({ ...about, by: eventContactSchema, reason: z.enum(["left", "removed"]), timestamp: eventSeconds })
  .meta({ id: "GroupLeavePayload" });

export const groupUpdatePayloadSchema = z
  .strictObject({
    ...about,
    by: eventContactSchema.nullable(),
    changed: z.enum(["subject", "description", "invite", "settings", "picture"]),
    subject: z.string().optional().meta({ description: "`changed: subject`" }),
    description: z.string().optional().meta({ description: "`changed: description`" }),
    settings: z
      .strictObject(groupSettingsSchema.shape)
      .partial()
      .optional()
      .meta({ description: "`changed: settings`: the settings that changed (all of them on some providers)" }),
    removed: z.boolean().optional().meta({ description: "`changed: picture`: the picture was removed" }),
    timestamp: eventSeconds,
  })
  .meta({ id: "GroupUpdatePayload" });

export const groupParticipantsPayloadSchema = z
  .strictObject({
    ...about,
    action: z.enum(["add", "remove", "promote", "demote"]),
    participants: z.array(eventContactSchema),
    by: eventContactSchema,
    timestamp: eventSeconds,
  })
  .meta({ id: "GroupParticipantsPayload" });

export const groupJoinRequestPayloadSchema = z
  .strictObject({
    ...about,
    action: z.enum(["created", "revoked", "rejected"]),
    method: z.enum(["invite_link", "linked_group_join", "non_admin_add"]).nullable(),
    requester: eventContactSchema,
    timestamp: eventSeconds,
  })
  .meta({ id: "GroupJoinRequestPayload" });
