import {
  billingInput,
  createInstanceInput,
  instanceEnvelopeSchema,
  instanceIdSchema,
  instancePageSchema,
  instanceWithTokenSchema,
  listInstancesInput,
  provisioningInput,
  updateInstanceInput,
} from "@gw/contracts";
import { z } from "zod";
import { adminProcedure, router } from "../../trpc/init.ts";

const tags = ["Admin: instances"];
const byId = z.object({ instanceId: instanceIdSchema });

export const adminInstancesRouter = router({
  create: adminProcedure
    .meta({
      auth: "admin",
      successStatus: 201,
      errors: ["not_found"],
      openapi: {
        method: "POST",
        path: "/admin/instances",
        tags,
        summary: "Create an instance; returns its token once",
      },
    })
    .input(createInstanceInput)
    .output(instanceWithTokenSchema)
    .mutation(({ ctx, input }) => ctx.platform.instances.create(input)),

  list: adminProcedure
    .meta({
      auth: "admin",
      openapi: { method: "GET", path: "/admin/instances", tags, summary: "List instances, oldest first" },
    })
    .input(listInstancesInput)
    .output(instancePageSchema)
    .query(({ ctx, input }) => ctx.platform.instances.list(input)),

  get: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: { method: "GET", path: "/admin/instances/{instanceId}", tags, summary: "Read an instance" },
    })
    .input(byId)
    .output(instanceEnvelopeSchema)
    .query(async ({ ctx, input }) => ({ instance: await ctx.platform.instances.require(input.instanceId) })),

  update: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "PATCH",
        path: "/admin/instances/{instanceId}",
        tags,
        summary: "Rename; rotate an official instance's operator credentials (`cloud`)",
        description:
          "Only sent fields change. New credentials of a running official instance are checked at once: it reconnects and is WORKING or FAILED.",
      },
    })
    .input(updateInstanceInput)
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx, input }) => {
      const instance = await ctx.platform.instances.update(input);
      if (input.cloud) {
        // The owner reconnects with the new credentials (a rotated token, a new secret).
        const owner = await ctx.sessions.ownerIfAny(instance.id);
        if (owner) {
          await owner.restart(instance.id).catch((err) => ctx.log.warn({ err }, "restart after rotation failed"));
          return { instance: await ctx.platform.instances.require(instance.id) };
        }
      }
      return { instance };
    }),

  delete: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "DELETE",
        path: "/admin/instances/{instanceId}",
        tags,
        summary: "Delete an instance; its token stops working at once",
      },
    })
    .input(byId)
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.platform.instances.delete(input.instanceId);
      return { success: true as const };
    }),

  rotateToken: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "POST",
        path: "/admin/instances/{instanceId}/token",
        tags,
        summary: "Rotate the token: the previous one is refused at once on every replica",
      },
    })
    .input(byId)
    .output(z.object({ token: z.string() }))
    .mutation(async ({ ctx, input }) => ({ token: await ctx.platform.instances.rotateToken(input.instanceId) })),

  setBilling: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "PUT",
        path: "/admin/instances/{instanceId}/billing",
        tags,
        summary: "Set billing status and periods",
      },
    })
    .input(billingInput)
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx, input }) => ({
      instance: await ctx.platform.instances.setBilling(input.instanceId, input),
    })),

  webhookDeactivations: adminProcedure
    .meta({
      auth: "admin",
      openapi: {
        method: "GET",
        path: "/admin/webhook-deactivations",
        tags: ["Admin: webhooks"],
        summary: "Webhooks deactivated by delivery failures (410, or 24 h failing), newest first",
      },
    })
    .input(z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }))
    .output(
      z.object({
        data: z.array(
          z.object({
            webhookId: z.string(),
            instanceId: z.string(),
            url: z.string(),
            reason: z.string(),
            at: z.string(),
          }),
        ),
      }),
    )
    .query(async ({ ctx, input }) => ({ data: await ctx.platform.webhooks.deactivations(input.limit) })),

  setProvisioning: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found"],
      openapi: {
        method: "PUT",
        path: "/admin/instances/{instanceId}/provisioning",
        tags,
        summary: "Provision or unprovision",
      },
    })
    .input(provisioningInput)
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx, input }) => ({
      instance: await ctx.platform.instances.setProvisioned(input.instanceId, input.provisioned),
    })),
});
