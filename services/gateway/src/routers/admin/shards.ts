import { moveShardInput, moveShardResultSchema, shardListSchema } from "@gw/contracts";
import { z } from "zod";
import { adminProcedure, router } from "../../trpc/init.ts";

const tags = ["Admin: shards"];

/** The Redis shards (docs/architecture.md "Sharding the keyspace"): their state, and rebalancing. */
export const adminShardsRouter = router({
  list: adminProcedure
    .meta({
      auth: "admin",
      openapi: { method: "GET", path: "/admin/shards", tags, summary: "The Redis shards and the instances moving now" },
    })
    .input(z.object({}))
    .output(shardListSchema)
    .query(({ ctx }) => ctx.platform.shards.describe()),

  move: adminProcedure
    .meta({
      auth: "admin",
      errors: ["not_found", "validation_error", "network_unavailable"],
      openapi: {
        method: "POST",
        path: "/admin/instances/{instanceId}/shard",
        tags,
        summary: "Move an instance's data to another Redis shard",
        description:
          "Session pods let the instance go, then its keys are copied (TTLs kept) and removed from the old shard; nothing is lost. While they are copied (a few seconds at most) the instance's routes answer 503 `network_unavailable` with Retry-After. A second move of an instance already moving answers 503 as well.",
      },
    })
    .input(moveShardInput)
    .output(moveShardResultSchema)
    .mutation(({ ctx, input }) => ctx.platform.moveInstance(input.instanceId, input.shard)),
});
