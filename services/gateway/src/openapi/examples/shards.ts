import { adminExamples } from "./define.ts";
import { INSTANCE_ID } from "./samples.ts";

/** Control plane: Redis shards (routers/admin/shards.ts; test/e2e/shards.test.ts; docs/operations.md "Redis shards"). */
export const adminShardsExamples = adminExamples("shards", {
  list: {
    response: {
      data: [
        { shard: 0, control: true, up: true, placed: 1_204, keys: 3_911_842, usedMemory: 41_873_920_512 },
        { shard: 1, control: false, up: true, placed: 1_197, keys: 3_702_115, usedMemory: 39_112_673_280 },
        { shard: 2, control: false, up: false, placed: 403, keys: null, usedMemory: null },
      ],
      moving: [],
    },
    summary: "Three shards; the third does not answer (its instances answer 503).",
  },
  move: {
    path: { instanceId: INSTANCE_ID },
    body: { shard: 2 },
    response: { instanceId: INSTANCE_ID, from: 0, to: 2, keys: 18_402, blockedMs: 1_840 },
    errors: {
      validation_error: { message: "Campos inválidos.", details: { shard: "shards 0 a 2 nesta implantação" } },
      network_unavailable: {
        message: `A instância ${INSTANCE_ID} está sendo movida para outro shard; tente de novo em instantes.`,
      },
    },
  },
});
