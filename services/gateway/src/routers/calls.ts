import { ApiError, callIdSchema, invalid, normalizePersonId, rejectCallBody, successSchema } from "@gw/contracts";
import { z } from "zod";
import { connectedOwner } from "../trpc/connected.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

/** Spec 4.14 calls: rejecting an incoming call (docs/calls.md); automatic rejection is the `calls` app. */
export const callsRouter = router({
  rejectCall: instanceProcedure
    .meta({
      auth: "instance",
      errors: ["instance_not_connected", "not_found", "network_error", "network_unavailable", "network_timeout"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/calls/{callId}/reject",
        tags: ["Calls"],
        summary: "Reject an incoming call (the `id` of its call.received)",
        description: 'Announced as `call.rejected` with `by: "me"`. To reject every call, use the `calls` app.',
      },
    })
    .input(z.object({ callId: callIdSchema, ...rejectCallBody.shape }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const given = input.from ? normalizePersonId(input.from) : null;
      if (input.from && !given) throw invalid("from", "quem ligou: número ou id");
      const from = given ?? (await ctx.platform.redis.get(ctx.platform.keys.call(ctx.instance.id, input.callId)));
      if (!from) throw new ApiError("not_found", "Chamada desconhecida (informe from, quem ligou).");
      return (await connectedOwner(ctx)).op(ctx.instance.id, "calls.reject", { callId: input.callId, from, by: "me" });
    }),
});
