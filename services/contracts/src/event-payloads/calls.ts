import { z } from "zod";
import { eventContactSchema, eventSeconds } from "./common.ts";

/**
 * Calls of standard instances (spec 6.2; docs/calls.md). Builders: simnet's call events reshaped
 * by services/session/src/providers/sim/areas/calls.ts, and providers/baileys/areas/calls.ts.
 */

export const callPayloadSchema = z
  .strictObject({
    id: z.string().meta({ description: "The call; `POST /calls/{callId}/reject` takes it" }),
    chatId: z.string(),
    from: eventContactSchema,
    isVideo: z.boolean(),
    isGroup: z.boolean(),
    timestamp: eventSeconds,
  })
  .meta({ id: "CallPayload", description: "`call.received`, `call.accepted`" });

export const callRejectedPayloadSchema = z
  .strictObject({
    ...callPayloadSchema.shape,
    by: z.enum(["me", "auto", "phone", "caller"]).meta({ description: "Who ended it (docs/calls.md)" }),
    reason: z.enum(["rejected", "cancelled", "missed"]),
  })
  .meta({ id: "CallRejectedPayload" });
