import { ApiError, instanceIdSchema } from "@gw/contracts";
import { usabilityError } from "@gw/platform";
import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Context } from "./context.ts";
import type { Meta } from "./meta.ts";

/** Finds the ApiError behind a tRPC error (procedures throw ApiError; tRPC wraps it). */
export function apiErrorOf(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof TRPCError && err.cause instanceof ApiError) return err.cause;
  return undefined;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    defaultMeta: { auth: "instance" },
    // Internal callers get the public error code back, so they can re-raise it unchanged.
    errorFormatter({ shape, error }) {
      const api = apiErrorOf(error);
      return { ...shape, data: { ...shape.data, stack: undefined, api: api ? api.toBody().error : undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure;

/** Operator routes: the admin token at the edge, or a trusted internal service. */
export const adminProcedure = t.procedure.use(({ ctx, next }) => {
  if (ctx.caller.kind !== "admin" && ctx.caller.kind !== "internal") throw new ApiError("invalid_token");
  return next();
});

/**
 * Routes under /v1/instances/{instanceId}: the caller must hold that instance's token (checked
 * at the edge) or be an internal service; the instance must exist and, unless the route says
 * otherwise, be provisioned and paid.
 */
export const instanceProcedure = t.procedure
  .input(z.object({ instanceId: instanceIdSchema }))
  .use(async ({ ctx, input, meta, next }) => {
    const { caller } = ctx;
    if (caller.kind === "instance" ? caller.instanceId !== input.instanceId : caller.kind !== "internal") {
      throw new ApiError("invalid_token");
    }
    const instance = await ctx.platform.instanceCache.get(input.instanceId);
    if (!instance) throw new ApiError(caller.kind === "instance" ? "invalid_token" : "not_found");
    if (!meta?.allowInactive) {
      const blocked = usabilityError(instance);
      if (blocked) throw blocked;
    }
    return next({ ctx: { instance } });
  });
