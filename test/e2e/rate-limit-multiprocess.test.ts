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

async function readInstance(on: ChildGateway, id: string, token: string): Promise<{ status: number }> {
  const res = await fetch(`${on.url}/v1/instances/${id}`, { headers: tokenHeaders(token) });
  if (res.status === 429) {
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await expectError(res, 429, "rate_limited");
  } else {
    await res.arrayBuffer();
  }
  return { status: res.status };
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
    const results = await Promise.all(targets.map((p) => readInstance(p, id, token)));
    const elapsed = (performance.now() - started) / 1000;

    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429).length;
    expect(ok + limited, JSON.stringify(results.map((r) => r.status))).toBe(80);
    expect(ok).toBeGreaterThanOrEqual(BURST);
    // Two buckets of their own would grant all 80 (40 each); one shared bucket grants the burst
    // and what refilled meanwhile. Which process the refusals land on depends on which one
    // answered first, so it is not asserted here (the next test pins it down).
    expect(ok).toBeLessThanOrEqual(BURST + RATE * elapsed + 2);
  });

  it("a burst spent through one process is spent for the other", async () => {
    const { id, token } = await createInstance(a);
    const started = performance.now();
    const throughA = await Promise.all(Array.from({ length: BURST }, () => readInstance(a, id, token)));
    expect(throughA.map((r) => r.status)).toEqual(Array(BURST).fill(200));

    // A bucket per process would leave b's whole burst; the shared one has only what refilled
    // since the burst began, so b is refused however the two processes were scheduled.
    const throughB = await Promise.all(Array.from({ length: BURST }, () => readInstance(b, id, token)));
    const elapsed = (performance.now() - started) / 1000;
    const okOnB = throughB.filter((r) => r.status === 200).length;
    expect(okOnB).toBeLessThanOrEqual(RATE * elapsed + 2);
    expect(throughB.filter((r) => r.status === 429).length).toBe(BURST - okOnB);
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
