import { z } from "zod";

export const ACCOUNT_ID_RE = /^acc_[0-9a-z]{8,40}$/;
export const accountIdSchema = z.string().regex(ACCOUNT_ID_RE, "id de conta inválido");

export const accountSchema = z
  .object({
    id: accountIdSchema,
    name: z.string(),
    email: z.string().nullable(),
    createdAt: z.iso.datetime(),
    clientToken: z.object({
      enabled: z.boolean().meta({ description: "A Client-Token is set for the account." }),
      requireOnAllCalls: z.boolean(),
    }),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof accountSchema>;
