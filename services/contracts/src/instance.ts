import { z } from "zod";
import { cloudPublicSchema } from "./cloud.ts";
import { statusReasonSchema } from "./status-reasons.ts";

export const INSTANCE_ID_RE = /^i[0-9a-z]{8,40}$/;
export const instanceIdSchema = z.string().regex(INSTANCE_ID_RE, "id de instância inválido").meta({
  description: "Instance id, starts with `i`.",
  example: "i3k9m2x7q4w8e1r5t6y0u2",
});

export const connectionStatusSchema = z.enum(["STOPPED", "STARTING", "SCAN_QR_CODE", "WORKING", "FAILED"]);
export type ConnectionStatus = z.infer<typeof connectionStatusSchema>;

export const instanceKindSchema = z.enum(["standard", "official"]);
export type InstanceKind = z.infer<typeof instanceKindSchema>;

/** `sim` runs on the simulated network; it is accepted only where simnet is enabled. */
export const providerSchema = z.enum(["baileys", "cloud", "sim"]);
export type Provider = z.infer<typeof providerSchema>;

/**
 * Billing states (spec 2.1 shows only `active`; the rest is ours, see docs/api.md):
 * `trialing` until `trialEndsAt`, `active`, `past_due` usable until `graceUntil`,
 * `suspended` and `canceled` blocked with 402.
 */
export const billingStatusSchema = z.enum(["trialing", "active", "past_due", "suspended", "canceled"]);
export type BillingStatus = z.infer<typeof billingStatusSchema>;

export const DEVICE_NAME_MAX = 40;

export const settingsSchema = z
  .object({
    client: z.object({
      browserName: z.string(),
      deviceName: z.string().max(DEVICE_NAME_MAX),
    }),
    ignore: z.object({ broadcast: z.boolean(), channels: z.boolean(), groups: z.boolean(), status: z.boolean() }),
    storage: z.object({
      chats: z.boolean(),
      contacts: z.boolean(),
      groups: z.boolean(),
      labels: z.boolean(),
      messageSecrets: z.boolean(),
      messages: z.boolean(),
    }),
  })
  .meta({ id: "InstanceSettings" });
export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  client: { browserName: "Chrome", deviceName: "Messaging Gateway" },
  ignore: { broadcast: false, channels: false, groups: false, status: false },
  storage: { chats: true, contacts: true, groups: true, labels: true, messageSecrets: true, messages: true },
};

/** PATCH /settings: every field optional, only sent fields change. */
export const settingsPatchSchema = z
  .object({
    client: z
      .object({
        browserName: z.string().min(1, "informe o nome do navegador").max(100).optional(),
        deviceName: z
          .string()
          .min(1, "informe o nome do dispositivo")
          .max(DEVICE_NAME_MAX, `o nome do dispositivo deve ter no máximo ${DEVICE_NAME_MAX} caracteres`)
          .optional(),
      })
      .optional(),
    ignore: settingsSchema.shape.ignore.partial().optional(),
    storage: settingsSchema.shape.storage.partial().optional(),
  })
  .meta({ id: "InstanceSettingsPatch" });
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

const isoOrNull = z.iso.datetime().nullable();

export const instanceSchema = z
  .object({
    id: instanceIdSchema,
    name: z.string(),
    accountId: z.string(),
    kind: instanceKindSchema,
    phone: z.string().meta({ description: "Digits with country code; empty until paired." }),
    pushName: z.string(),
    provider: providerSchema,
    connectionStatus: connectionStatusSchema,
    statusReason: statusReasonSchema.nullable().optional(),
    billingStatus: billingStatusSchema,
    cancelAtPeriodEnd: z.boolean(),
    currentPeriodEnd: isoOrNull,
    graceUntil: isoOrNull,
    provisionedAt: isoOrNull,
    createdAt: z.iso.datetime(),
    suspendedAt: isoOrNull,
    trialEndsAt: isoOrNull,
    settings: settingsSchema,
    cloud: cloudPublicSchema.nullable().optional().meta({
      description: "Official-gateway instances: the operator number they run (null until set).",
    }),
  })
  .meta({ id: "Instance" });
export type Instance = z.infer<typeof instanceSchema>;

export const instanceEnvelopeSchema = z.object({ instance: instanceSchema });
