import { Repository, Schema } from "redis-om";
import type { Keys } from "../infra/keys.ts";
import type { OmClient } from "../infra/redis.ts";

/**
 * redis-om schemas. Only the fields we search or sort on are declared; the rest of each
 * document is stored as it is (redis-om keeps unknown JSON properties).
 */
export function createRepositories(client: OmClient, k: Keys) {
  const instances = new Repository(
    new Schema(
      k.instanceSchema,
      {
        accountId: { type: "string" },
        kind: { type: "string" },
        createdAtMs: { type: "number", sortable: true },
      },
      { dataStructure: "JSON" },
    ),
    client,
  );
  const accounts = new Repository(
    new Schema(k.accountSchema, { createdAtMs: { type: "number", sortable: true } }, { dataStructure: "JSON" }),
    client,
  );
  return { instances, accounts };
}
export type Repositories = ReturnType<typeof createRepositories>;
