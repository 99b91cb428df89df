import {
  accountEnvelopeSchema,
  accountIdSchema,
  accountSchema,
  clientTokenInput,
  clientTokenPatchInput,
  clientTokenResultSchema,
  createAccountInput,
  pageOffsetSchema,
} from "@gw/contracts";
import { z } from "zod";
import { adminProcedure, router } from "../../trpc/init.ts";

const tags = ["Admin: accounts"];
const byId = z.object({ accountId: accountIdSchema });

export const adminAccountsRouter = router({
  create: adminProcedure
    .meta({
      auth: "admin",
      successStatus: 201,
      openapi: { method: "POST", path: "/admin/accounts", tags, summary: "Create an account" },
    })
    .input(createAccountInput)
    .output(accountEnvelopeSchema)
    .mutation(async ({ ctx, input }) => ({ account: await ctx.platform.accounts.create(input) })),

  list: adminProcedure
    .meta({ auth: "admin", openapi: { method: "GET", path: "/admin/accounts", tags, summary: "List accounts" } })
    .input(
      z.object({
        limit: z.coerce.number().int().min(1).max(500).default(100),
        offset: pageOffsetSchema,
      }),
    )
    .output(z.object({ data: z.array(accountSchema), total: z.number().int() }))
    .query(({ ctx, input }) => ctx.platform.accounts.list(input.limit, input.offset)),

  get: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: { method: "GET", path: "/admin/accounts/{accountId}", tags, summary: "Read an account" },
    })
    .input(byId)
    .output(accountEnvelopeSchema)
    .query(async ({ ctx, input }) => ({ account: await ctx.platform.accounts.get(input.accountId) })),

  issueClientToken: adminProcedure
    .meta({
      auth: "admin",
      successStatus: 201,
      errors: ["not_found"],
      openapi: {
        method: "POST",
        path: "/admin/accounts/{accountId}/client-token",
        tags,
        summary: "Issue a new Client-Token (shown once) and set 'require on all calls'",
      },
    })
    .input(clientTokenInput)
    .output(clientTokenResultSchema)
    .mutation(async ({ ctx, input }) => ({
      clientToken: await ctx.platform.accounts.issueClientToken(input.accountId, input.requireOnAllCalls),
      requireOnAllCalls: input.requireOnAllCalls,
    })),

  setClientTokenRequirement: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "PATCH",
        path: "/admin/accounts/{accountId}/client-token",
        tags,
        summary: "Switch 'require on all calls'",
      },
    })
    .input(clientTokenPatchInput)
    .output(accountEnvelopeSchema)
    .mutation(async ({ ctx, input }) => ({
      account: await ctx.platform.accounts.setRequireOnAllCalls(input.accountId, input.requireOnAllCalls),
    })),

  disableClientToken: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "DELETE",
        path: "/admin/accounts/{accountId}/client-token",
        tags,
        summary: "Remove the Client-Token",
      },
    })
    .input(byId)
    .output(accountEnvelopeSchema)
    .mutation(async ({ ctx, input }) => ({ account: await ctx.platform.accounts.disableClientToken(input.accountId) })),
});
