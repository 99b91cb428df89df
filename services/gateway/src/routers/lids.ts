import { ApiError, lidMappingSchema, lidParam, lidsListQuery, pnParam } from "@gw/contracts";
import { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import { router } from "../trpc/init.ts";

const tags = ["LID mappings"];
const route = areaRoute({ path: "/lids", tags, errors: [] });

const notKnown = () => new ApiError("not_found", "Mapeamento de LID desconhecido para esta instância.");

/**
 * Spec 4.14 `/lids`: the privacy ids the instance has learnt and the numbers behind them (read
 * from the identity store; no network call, so they answer while disconnected too).
 */
export const lidsRouter = router({
  listLids: route("GET", "", "Known LID ↔ number mappings, ordered by LID")
    .input(lidsListQuery)
    .output(z.array(lidMappingSchema))
    .query(async ({ ctx, input }) =>
      (await ctx.platform.identity.list(ctx.instance.id, input)).map(({ lid, phone }) => ({
        lid,
        pn: `${phone}@c.us`,
      })),
    ),

  countLids: route("GET", "/count", "How many LID mappings the instance knows")
    .output(z.object({ count: z.number().int() }))
    .query(async ({ ctx }) => ({ count: await ctx.platform.identity.count(ctx.instance.id) })),

  getLid: route("GET", "/{lid}", "The number behind a LID", { errors: ["not_found"] })
    .input(lidParam)
    .output(lidMappingSchema)
    .query(async ({ ctx, input }) => {
      const lid = `${input.lid}@lid`;
      const phone = await ctx.platform.identity.phoneOf(ctx.instance.id, lid);
      if (!phone) throw notKnown();
      return { lid, pn: `${phone}@c.us` };
    }),

  getLidByPhone: route("GET", "/pn/{phone}", "The LID of a number", { errors: ["not_found"] })
    .input(pnParam)
    .output(lidMappingSchema)
    .query(async ({ ctx, input }) => {
      const lid = await ctx.platform.identity.lidOf(ctx.instance.id, input.phone);
      if (!lid) throw notKnown();
      return { lid, pn: `${input.phone}@c.us` };
    }),
});
