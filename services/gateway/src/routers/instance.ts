import { instanceEnvelopeSchema, settingsPatchSchema } from "@gw/contracts";
import { instanceProcedure, router } from "../trpc/init.ts";

const tags = ["Instance"];

/** Spec 4.1 routes that need no connection. */
export const instanceRouter = router({
  get: instanceProcedure
    .meta({
      auth: "instance",
      allowInactive: true,
      openapi: { method: "GET", path: "/instances/{instanceId}", tags, summary: "Read the instance (spec 2.1)" },
    })
    .output(instanceEnvelopeSchema)
    .query(({ ctx }) => ({ instance: ctx.instance })),

  updateSettings: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "PATCH",
        path: "/instances/{instanceId}/settings",
        tags,
        summary: "Change settings; only sent fields change",
      },
    })
    .input(settingsPatchSchema)
    .output(instanceEnvelopeSchema)
    .mutation(async ({ ctx, input: { instanceId, ...patch } }) => ({
      instance: await ctx.platform.instances.updateSettings(instanceId, patch),
    })),
});
