import { z } from "zod";
import { accountIdSchema, accountSchema } from "./account.ts";
import { cloudCredentialsInput, cloudCredentialsPatch } from "./cloud.ts";
import { emailSchema } from "./email.ts";
import {
  billingStatusSchema,
  instanceIdSchema,
  instanceKindSchema,
  instanceSchema,
  providerSchema,
} from "./instance.ts";
import { offsetCursorSchema } from "./paging.ts";

const isoInput = z.iso.datetime({ offset: true, message: "use data ISO 8601" });

export const createAccountInput = z.object({
  name: z.string().trim().min(1, "informe o nome").max(200),
  email: emailSchema().optional(),
});

export const accountEnvelopeSchema = z.object({ account: accountSchema });

export const clientTokenInput = z.object({
  accountId: accountIdSchema,
  requireOnAllCalls: z.boolean().default(true),
});
export const clientTokenPatchInput = z.object({ accountId: accountIdSchema, requireOnAllCalls: z.boolean() });
export const clientTokenResultSchema = z.object({
  clientToken: z.string().meta({ description: "Shown once; stored only as a hash." }),
  requireOnAllCalls: z.boolean(),
});

export const createInstanceInput = z.object({
  accountId: accountIdSchema.optional().meta({ description: "Without it, a new account is created for the instance." }),
  name: z.string().trim().min(1, "informe o nome").max(200),
  kind: instanceKindSchema,
  provider: providerSchema.optional().meta({ description: "Default `baileys` for standard, `cloud` for official." }),
  provisioned: z.boolean().default(true),
  billingStatus: billingStatusSchema.optional(),
  cloud: cloudCredentialsInput
    .optional()
    .meta({ description: "Official-gateway instances: the operator credentials (docs/official.md)." }),
});
export type CreateInstanceInput = z.infer<typeof createInstanceInput>;

/** `PATCH /admin/instances/{instanceId}`: only sent fields change; `cloud` rotates credentials. */
export const updateInstanceInput = z.object({
  instanceId: instanceIdSchema,
  name: z.string().trim().min(1, "informe o nome").max(200).optional(),
  cloud: cloudCredentialsPatch
    .optional()
    .meta({ description: "Official-gateway instances: the credentials to change (token rotation, a new secret)." }),
});
export type UpdateInstanceInput = z.infer<typeof updateInstanceInput>;

export const instanceWithTokenSchema = z.object({
  instance: instanceSchema,
  token: z.string().meta({ description: "The instance token; shown once." }),
});

export const listInstancesInput = z.object({
  accountId: accountIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: offsetCursorSchema.optional(),
});
export const instancePageSchema = z.object({ data: z.array(instanceSchema), nextCursor: z.string().nullable() });

export const billingInput = z.object({
  instanceId: instanceIdSchema,
  billingStatus: billingStatusSchema,
  cancelAtPeriodEnd: z.boolean().optional(),
  currentPeriodEnd: isoInput.nullable().optional(),
  graceUntil: isoInput.nullable().optional(),
  trialEndsAt: isoInput.nullable().optional(),
});
export type BillingInput = z.infer<typeof billingInput>;

export const provisioningInput = z.object({ instanceId: instanceIdSchema, provisioned: z.boolean() });
