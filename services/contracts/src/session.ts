import { z } from "zod";
import { DOC_PATTERNS, documented } from "./doc-patterns.ts";
import { connectionStatusSchema } from "./instance.ts";

/** Spec 2.3 */
export const cappingSchema = z
  .object({
    cappingStatus: z.string(),
    cycleStart: z.number().int(),
    cycleEnd: z.number().int(),
    mvStatus: z.string(),
    oteStatus: z.string(),
    totalQuota: z.number().int(),
    usedQuota: z.number().int(),
  })
  .meta({ id: "Capping" });
export type Capping = z.infer<typeof cappingSchema>;

/** Spec 2.4 */
export const timelockSchema = z
  .object({ enforcementType: z.string(), isActive: z.boolean(), timeEnforcementEnds: z.number().int() })
  .meta({ id: "Timelock" });
export type Timelock = z.infer<typeof timelockSchema>;

/** Spec 2.2 */
export const meSchema = z
  .object({
    id: z.string().meta({ description: "`<digits>@c.us`" }),
    jid: z.string(),
    lid: z.string(),
    pushName: z.string(),
    messageCapping: cappingSchema
      .nullable()
      .meta({ description: "null on official-gateway instances (the operator's limits: GET /phone-number)" }),
    reachoutTimelock: timelockSchema.nullable().meta({ description: "null on official-gateway instances" }),
  })
  .meta({ id: "Me" });
export type Me = z.infer<typeof meSchema>;

/** What a provider knows of the connected account. */
export const accountInfoSchema = z.object({ phone: z.string(), lid: z.string(), pushName: z.string() });
export type AccountInfo = z.infer<typeof accountInfoSchema>;

/** Spec 2.10 QR response */
export const qrResponseSchema = z
  .object({
    data: z.string().meta({ description: "base64 PNG (format=image); empty for format=raw" }),
    mimetype: z.string(),
    value: z.string().meta({ description: "the QR text" }),
  })
  .meta({ id: "QrResponse" });
export type QrResponse = z.infer<typeof qrResponseSchema>;

export const pairingCodeInput = z.object({
  phoneNumber: documented(
    z
      .string()
      .transform((s) => s.replace(/[\s()+-]/g, ""))
      .pipe(z.string().regex(/^\d{8,15}$/, "informe o número no formato internacional, só dígitos")),
    { pattern: DOC_PATTERNS.phone },
  ),
  method: z.enum(["sms", "voice", ""]).optional(),
});

export const passkeyChallengeSchema = z
  .object({
    challenge: z.string(),
    rpId: z.string(),
    timeout: z.number().int(),
    userVerification: z.string(),
    allowCredentials: z.array(
      z.object({ id: z.string(), type: z.literal("public-key"), transports: z.array(z.string()) }),
    ),
    extensions: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "PasskeyChallenge" });
export type PasskeyChallenge = z.infer<typeof passkeyChallengeSchema>;

const base64url = z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/, "use base64url");
export const passkeyAssertionInput = z.object({
  id: z.string().min(1),
  rawId: base64url,
  type: z.literal("public-key"),
  response: z.object({
    authenticatorData: base64url,
    clientDataJSON: base64url,
    signature: base64url,
    userHandle: base64url.optional(),
  }),
});
export type PasskeyAssertion = z.infer<typeof passkeyAssertionInput>;

export const logoutInput = z.object({
  apps: z.object({ purge: z.boolean().optional() }).optional(),
});

export const successSchema = z.object({ success: z.literal(true) });

/** Payload of `session.status` (the spec leaves it open). */
export const sessionStatusPayloadSchema = z.object({
  status: connectionStatusSchema,
  previousStatus: connectionStatusSchema.nullable(),
  reason: z.string().nullable().meta({
    description: "why it is not WORKING: a code of docs/lifecycle.md 'Reasons' (network_unreachable, logged_out, …)",
  }),
  detail: z.string().nullable().meta({ description: "what the network or the provider said (diagnostics)" }),
  retryAt: z
    .number()
    .int()
    .nullable()
    .meta({ description: "unix seconds of the next attempt, while it retries on its own" }),
  timestamp: z.number().int().meta({ description: "unix seconds" }),
});
export type SessionStatusPayload = z.infer<typeof sessionStatusPayloadSchema>;
