import { z } from "zod";

import { eventKinds } from "./event-kinds.ts";

export { eventKinds };
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
