// Redis unreachable for a while (killed, restarting from its AOF) and back: what clients get
// meanwhile, what the session pod does with connections whose leases it can no longer renew,
// and what becomes of a message that arrives meanwhile (issue 19 §3, found by `pnpm bench chaos`).
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type RedisProxy, startRedisProxy } from "../support/redis-proxy.ts";

let c: Cluster;
let proxy: RedisProxy;
const a = { id: "", token: "", phone: "5531967770001" };
const contact = "5531967770002";
const LEASE_TTL_MS = 3000;

beforeAll(async () => {
  proxy = await startRedisProxy();
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    env: { REDIS_URL: proxy.url, LEASE_TTL_MS: String(LEASE_TTL_MS), INSTANCE_CACHE_MS: "0" },
  });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Ana" });
}, 120_000);
afterEach(async () => {
  proxy.restore();
  await c.waitForStatus(a.id, "WORKING", 30_000);
}, 40_000);
afterAll(async () => {
  proxy?.restore();
  await c?.close();
  await proxy?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connectionsOf(instanceId: string): Promise<{ state: string }[]> {
  const res = await c.sim("GET", "/simnet/connections");
  const body = (await res.json()) as { connections: { instanceId: string; state: string }[] };
  return body.connections.filter((x) => x.instanceId === instanceId);
}

it("a route answers 503 network_unavailable with Retry-After while Redis is unreachable, not 500", async () => {
  proxy.cut();
  const res = await c.as(a.token)(`/v1/instances/${a.id}/messages/text`, {
    method: "POST",
    json: { chatId: contact, text: "durante a queda" },
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json()) as { error: { code: string } };
  expect(res.status, JSON.stringify(body)).toBe(503);
  expect(body.error.code).toBe("network_unavailable");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
}, 30_000);

it("a pod that cannot renew its lease closes the instance's connection once the TTL has passed", async () => {
  expect((await connectionsOf(a.id)).map((x) => x.state)).toEqual(["open"]);
  proxy.cut();
  const cutAt = Date.now();
  // Redis stays away far longer than a lease: its leases expire meanwhile, and another pod may
  // hold the instance when Redis is back. This one must have let go by then, on its own clock.
  const until = cutAt + 4 * LEASE_TTL_MS;
  while ((await connectionsOf(a.id)).length > 0 && Date.now() < until) await sleep(100);
  const closedAfter = Date.now() - cutAt;
  expect(await connectionsOf(a.id)).toEqual([]);
  expect(closedAfter).toBeLessThan(2 * LEASE_TTL_MS);
}, 30_000);

it("a message received while Redis is loading its AOF is recorded once Redis answers again", async () => {
  proxy.loading();
  const res = await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "text", text: "chegou durante a queda" },
  });
  const sent = (await res.json()) as { id: string };
  await sleep(1_500); // the pod has it, and fails to record it: Redis answers LOADING
  proxy.restore();
  const until = Date.now() + 20_000;
  let found = false;
  while (!found && Date.now() < until) {
    found = (await c.events(a.id, "message").catch(() => [])).some((e) =>
      String((e.payload as { id?: string }).id).endsWith(sent.id),
    );
    if (!found) await sleep(200);
  }
  expect(found).toBe(true);
}, 40_000);
