// Replicas share Redis (same KEY_PREFIX) and are started together in any deployment (scale-out,
// rolling restart after a flush). Every one of them must come up and serve.
import { afterAll, describe, expect, it } from "vitest";
import { expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway, uniquePrefix } from "../support/gateway.ts";

const started: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(started.map((g) => g.close()));
});

describe("replicas booting at the same moment on a fresh prefix", () => {
  it("all start and serve the same data", async () => {
    const KEY_PREFIX = uniquePrefix();
    const results = await Promise.allSettled([1, 2, 3].map(() => startGateway({ KEY_PREFIX })));
    for (const r of results) if (r.status === "fulfilled") started.push(r.value);
    const failures = results.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
    expect(failures).toEqual([]);

    const { id, token } = await started[0]!.createInstance();
    for (const g of started) {
      const body = await expectJson(await g.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
      expect(body.instance.id).toBe(id);
      const list = await expectJson(await g.admin("GET", "/v1/admin/instances"));
      expect(list.data.map((i: { id: string }) => i.id)).toEqual([id]);
    }
  });
});
