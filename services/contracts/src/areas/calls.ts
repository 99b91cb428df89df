import { z } from "zod";
import type { Capability } from "../capability.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { defineOps } from "../ops.ts";

/**
 * Calls (spec 4.14 "calls (reject incoming calls)", events `call.received`, `call.accepted`,
 * `call.rejected` of 6.2; shapes ours, docs/calls.md). Payloads: `{id, chatId, from: contact,
 * isVideo, isGroup, timestamp}`; `call.rejected` adds `by` (`me`, `auto`, `caller`) and `reason`.
 */

export const callIdSchema = z
  .string("informe o id da chamada")
  .regex(/^[A-Za-z0-9_-]{4,128}$/, "id de chamada inválido")
  .meta({ description: "The `id` of the `call.received` event" });

export const rejectCallBody = z.object({
  from: documented(
    z.string().max(200).optional(),
    { pattern: DOC_PATTERNS.person },
    { description: "The caller (number or id); taken from the call's `call.received` when omitted" },
  ),
});

export const callsOps = defineOps({
  "calls.reject": {
    input: z.object({ callId: z.string(), from: z.string(), by: z.enum(["me", "auto"]).default("me") }),
    output: z.object({ success: z.literal(true) }),
  },
});

export const callsCapabilities: Record<string, Capability> = {
  "POST /calls/{callId}/reject": { kinds: "standard" },
};
