import { z } from "zod";
import { instanceIdSchema } from "./instance.ts";

/** `POST /admin/instances/{instanceId}/shard`: moves the instance's data to another Redis shard. */
export const moveShardInput = z.object({
  instanceId: instanceIdSchema,
  shard: z.number().int().min(0).meta({ description: "The shard to move to: 0 (the control shard) … shards − 1." }),
});
export type MoveShardInput = z.infer<typeof moveShardInput>;

export const moveShardResultSchema = z.object({
  instanceId: instanceIdSchema,
  from: z.number().int(),
  to: z.number().int(),
  keys: z.number().int().meta({ description: "Keys copied to the new shard (and removed from the old one)." }),
  blockedMs: z
    .number()
    .int()
    .meta({ description: "How long the instance answered 503 with Retry-After while its keys were copied." }),
});
export type MoveShardResult = z.infer<typeof moveShardResultSchema>;

export const shardInfoSchema = z.object({
  shard: z.number().int(),
  control: z.boolean().meta({ description: "Shard 0 also holds the global data (accounts, the directory, leases)." }),
  up: z.boolean(),
  placed: z
    .number()
    .int()
    .meta({ description: "Instances created on or moved to it since sharding (new ids name it)." }),
  keys: z.number().int().nullable().meta({ description: "DBSIZE; null when the shard cannot be reached." }),
  usedMemory: z.number().int().nullable().meta({ description: "INFO used_memory, bytes; null when unreachable." }),
});
export const shardListSchema = z.object({ data: z.array(shardInfoSchema), moving: z.array(instanceIdSchema) });
export type ShardList = z.infer<typeof shardListSchema>;
