import { z } from "zod";
import { presenceItemSchema } from "../areas/presence.ts";
import { eventSeconds } from "./common.ts";

/**
 * `presence.update` (spec 6.2; docs/profile-presence.md): the presence entry of spec 2.10 heard in
 * a subscribed chat, with the chat and the moment. Builder: services/session/src/providers/presence-book.ts.
 */
export const presenceUpdatePayloadSchema = z
  .strictObject({
    id: z.string().meta({ description: "The chat (spec 2.10)" }),
    chatId: z.string(),
    presences: z.array(z.strictObject(presenceItemSchema.shape)),
    timestamp: eventSeconds,
  })
  .meta({ id: "PresenceUpdatePayload" });
