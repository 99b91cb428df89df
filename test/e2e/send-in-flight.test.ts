// A send whose connection drops while the network's answer is on its way (the chaos bench saw it
// when a pod fenced itself during a Redis outage): the network may have the message, so the
// answer is `504 network_timeout` (spec 7, rule 3: check the events before sending again), never
// `422 instance_not_connected`, which says "not sent, do not repeat". A retry under the same
// Idempotency-Key is delivered once.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 1555340xxxx (not Brazilian: no number check, which the slow network would hold up too).
const inst = { id: "", token: "", phone: "15553400001" };
const contact = "15553400099";

async function sent(): Promise<{ id: string; message: { text?: string } }[]> {
  const res = await c.sim("GET", `/simnet/phones/${inst.phone}/sent`);
  return ((await expectJson(res)) as { messages: { id: string; message: { text?: string } }[] }).messages;
}

beforeAll(async () => {
  c = await startCluster({ simnet: { ackDelayMs: 20 } });
  Object.assign(inst, await c.createInstance({ billingStatus: "active" }));
  await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
  await c.pair(inst.id, inst.phone);
  expect((await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Caio" })).status).toBeLessThan(300);
}, 60_000);
afterAll(async () => {
  await c?.sim("POST", "/simnet/faults/slow", { ms: 0 }).catch(() => {});
  await c?.close();
});

/**
 * Sends `text` under `key` while the network holds its answer back, runs `cut` once the network
 * has the message, and answers the send's outcome; then the client's retry with the same key.
 */
async function inFlight(text: string, key: string, cut: () => Promise<void>, back: () => Promise<void>) {
  const send = () =>
    c.as(inst.token)(`/v1/instances/${inst.id}/messages/text`, {
      method: "POST",
      json: { phone: contact, text },
      headers: { "idempotency-key": key },
    });
  // The network takes the send at once and answers it only after 30 s: long enough for the cut.
  await c.sim("POST", "/simnet/faults/slow", { ms: 30_000 });
  const answer = send();
  const deadline = Date.now() + 20_000;
  while (!(await sent()).some((m) => m.message.text === text)) {
    if (Date.now() > deadline) throw new Error("the send never reached the network");
    await new Promise((r) => setTimeout(r, 50));
  }
  await c.sim("POST", "/simnet/faults/slow", { ms: 0 });
  await cut();
  const res = await answer;
  const body = (await res.json()) as { error?: { code: string } };
  const first = { status: res.status, code: body.error?.code };

  // The number is back; the client, told the outcome is unknown, retries with the same key.
  await back();
  await c.waitForStatus(inst.id, "WORKING", 30_000);
  let retry = await send();
  for (let i = 0; retry.status !== 201 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200)); // the instance record catching up with WORKING
    retry = await send();
  }
  return { first, retry: retry.status, onNetwork: (await sent()).filter((m) => m.message.text === text).length };
}

it("the network connection drops with the send on it: 504 network_timeout (was 503: retried without a key, sent twice)", async () => {
  const r = await inFlight(
    "no ar quando a conexão caiu",
    "in-flight-drop",
    async () => {
      expect((await c.sim("POST", "/simnet/faults/drop", { instanceId: inst.id })).status).toBe(200);
    },
    async () => {},
  );
  expect(r).toEqual({ first: { status: 504, code: "network_timeout" }, retry: 201, onNetwork: 1 });
});

it("the pod lets go of the instance with the send on the network: 504 network_timeout (was 422: 'not sent, do not repeat')", async () => {
  const api = c.as(inst.token);
  const r = await inFlight(
    "no ar quando o pod largou a instância",
    "in-flight-let-go",
    async () => {
      expect((await api(`/v1/instances/${inst.id}/stop`, { method: "POST" })).status).toBe(200);
    },
    async () => {
      expect((await api(`/v1/instances/${inst.id}/start`, { method: "POST" })).status).toBe(200);
    },
  );
  expect(r).toEqual({ first: { status: 504, code: "network_timeout" }, retry: 201, onNetwork: 1 });
});

it("the pod loses the instance's lease with a number check on the network: 503 network_unavailable with Retry-After (was 422: 'not connected', final)", async () => {
  const api = c.as(inst.token);
  await c.waitForStatus(inst.id, "WORKING", 30_000);
  // The network answers only after 30 s: the check is on its way when the lease goes.
  await c.sim("POST", "/simnet/faults/slow", { ms: 30_000 });
  const check = api(`/v1/instances/${inst.id}/contacts/check-exists?phone=${contact}`);
  await new Promise((r) => setTimeout(r, 300));
  // Fenced: the lease now names another pod (as after a Redis blip that let it expire and a
  // survivor took it); this pod finds it lost at its next renewal and lets the instance go.
  const { redis, keys } = c.platform;
  await redis.set(keys.lease(inst.id), "pod-elsewhere|999999", "PX", 3_000);
  c.session?.manager.kick();
  const res = await check;
  await c.sim("POST", "/simnet/faults/slow", { ms: 0 });
  expect(res.status).toBe(503);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("network_unavailable");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  // The lease expires, this pod takes the instance again: it works as before.
  await c.waitForStatus(inst.id, "WORKING", 30_000);
  let again = await api(`/v1/instances/${inst.id}/contacts/check-exists?phone=${contact}`);
  for (let i = 0; again.status !== 200 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200));
    again = await api(`/v1/instances/${inst.id}/contacts/check-exists?phone=${contact}`);
  }
  expect(again.status).toBe(200);
});
