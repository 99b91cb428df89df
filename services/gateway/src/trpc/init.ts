import { ApiError, capabilityError, instanceIdSchema, routeKey } from "@gw/contracts";
import { formatTrpcError, usabilityError } from "@gw/platform";
import { initTRPC } from "@trpc/server";
import { z } from "zod";
import type { Context } from "./context.ts";
import type { Meta } from "./meta.ts";

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    defaultMeta: { auth: "instance" },
    // Internal callers get the public error back (data.api), so they can re-raise it unchanged.
    errorFormatter: ({ shape, error }) => formatTrpcError(shape, error),
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;

export const publicProcedure = t.procedure;

/** Operator routes: the admin token at the edge, or a trusted internal service. */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.caller.kind !== "admin" && ctx.caller.kind !== "internal") throw new ApiError("invalid_token");
  return next();
});

/** Each route's key in the capability table, found once per procedure. */
const routeKeys = new WeakMap<Meta, string | null>();
function routeKeyOf(meta: Meta | undefined): string | null {
  if (!meta?.openapi) return null;
  let key = routeKeys.get(meta);
  if (key === undefined) {
    key = routeKey(meta.openapi.method, meta.openapi.path);
    routeKeys.set(meta, key);
  }
  return key;
}

/**
 * Routes under /v1/instances/{instanceId}: the caller must hold that instance's token (checked
 * at the edge) or be an internal service; the instance must exist and, unless the route says
 * otherwise, be provisioned and paid; and the route must exist for the instance's kind and
 * provider (the capability table, contracts/capabilities.ts: 501 otherwise, before the body is
 * validated — no body makes a missing route exist).
 */
export const instanceProcedure = publicProcedure
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
    const key = routeKeyOf(meta);
    const unsupported = key ? capabilityError(key, instance) : null;
    if (unsupported) throw unsupported;
    return next({ ctx: { instance } });
  });
