// The per-instance rate limit (20/s, bursts of 40) is one bucket shared by every replica: two
// real gateway processes (services/main) on one Redis prefix must not grant twice the budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChildGateway,
  expectError,
  expectJson,
  spawnGatewayProcess,
  tokenHeaders,
} from "../support/e2e-helpers.ts";
import { ADMIN_TOKEN, uniquePrefix } from "../support/gateway.ts";

const RATE = 20;
const BURST = 40;

const children: ChildGateway[] = [];
let a: ChildGateway;
let b: ChildGateway;

beforeAll(async () => {
  const KEY_PREFIX = uniquePrefix();
  // One after the other: concurrent boots on a fresh prefix race on the index creation
  // (see startup-race.test.ts).
  a = await spawnGatewayProcess({ KEY_PREFIX });
  children.push(a);
  b = await spawnGatewayProcess({ KEY_PREFIX });
  children.push(b);
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
});

async function createInstance(on: ChildGateway): Promise<{ id: string; token: string }> {
  const res = await fetch(`${on.url}/v1/admin/instances`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "multiprocess", kind: "standard" }),
  });
  const body = await expectJson<{ instance: { id: string }; token: string }>(res, 201);
  return { id: body.instance.id, token: body.token };
}

describe("rate limit across two gateway processes", () => {
  it("both processes serve the same instance", async () => {
    const { id, token } = await createInstance(a);
    for (const p of [a, b]) {
      const body = await expectJson(await fetch(`${p.url}/v1/instances/${id}`, { headers: tokenHeaders(token) }));
      expect(body.instance.id).toBe(id);
    }
    expect(a.child.pid).not.toBe(b.child.pid);
  });

  it("80 concurrent requests split across both respect one shared bucket", async () => {
    const { id, token } = await createInstance(a);
    const targets = Array.from({ length: 80 }, (_, i) => (i % 2 ? b : a));

    const started = performance.now();
    const results = await Promise.all(
      targets.map(async (p) => {
        const res = await fetch(`${p.url}/v1/instances/${id}`, { headers: tokenHeaders(token) });
        if (res.status === 429) {
          const retryAfter = Number(res.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          await expectError(res, 429, "rate_limited");
        } else {
          await res.arrayBuffer();
        }
        return { p, status: res.status };
      }),
    );
    const elapsed = (performance.now() - started) / 1000;

    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    expect(ok + limited.length, JSON.stringify(results.map((r) => r.status))).toBe(80);
    expect(ok).toBeGreaterThanOrEqual(BURST);
    expect(ok).toBeLessThanOrEqual(BURST + RATE * elapsed + 2);
    // Each process refused some: the budget is not per process.
    expect(limited.filter((r) => r.p === a).length).toBeGreaterThan(0);
    expect(limited.filter((r) => r.p === b).length).toBeGreaterThan(0);
  });

  it("the bucket of one instance does not affect another, whichever process serves it", async () => {
    const first = await createInstance(a);
    const second = await createInstance(b);
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        fetch(`${(i % 2 ? b : a).url}/v1/instances/${first.id}`, { headers: tokenHeaders(first.token) }).then((r) =>
          r.arrayBuffer(),
        ),
      ),
    );
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${(i % 2 ? b : a).url}/v1/instances/${second.id}`, { headers: tokenHeaders(second.token) }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
        ),
      ),
    );
    expect(statuses).toEqual(Array(20).fill(200));
  });
});
