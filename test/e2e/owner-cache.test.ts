// The gateway keeps each instance's owner in memory for a lease period instead of reading the
// lease on every send. Here the owner changes under it: the pod it remembers is alive but no
// longer holds the instance, so it refuses before doing anything, and the gateway asks the new
// owner in the same request. Gateway without a session role of its own; two pods in this process.
import { createLogger } from "@gw/platform";
import { type SessionRole, startSessionRole } from "@gw/session";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const pods: SessionRole[] = [];
const a = { id: "", token: "", phone: "5531977710001" };
const contact = "5531977710002";

beforeAll(async () => {
  // A lease period far longer than the test: the remembered owner never expires on its own.
  c = await startCluster({ session: false, env: { LEASE_TTL_MS: "60000" }, simnet: { ackDelayMs: 20 } });
  pods.push(await startSessionRole(c.platform.config, c.platform, createLogger("silent")));
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Contato" });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(async () => {
  for (const pod of pods) await pod.close().catch(() => {});
  await c?.close();
});

const send = (text: string) =>
  c.as(a.token)(`/v1/instances/${a.id}/messages/text`, {
    method: "POST",
    json: { phone: contact, text },
  });

async function sentTexts(): Promise<string[]> {
  const out = await expectJson<{ messages: { message: { text?: string } }[] }>(
    await c.sim("GET", `/simnet/phones/${a.phone}/sent?limit=50`),
  );
  return out.messages.map((m) => m.message.text ?? "");
}

it("a send reaches the new owner when the remembered one let go of the instance", async () => {
  const [first] = pods;
  expect(first!.manager.size).toBe(1);
  await expectJson(await send("antes"), 201); // the gateway now remembers the first pod

  // A second pod comes up; the first lets go of its instances but keeps serving (as during a
  // handover), and the second takes the instance over. The status stays WORKING throughout (no
  // session.status: docs/lifecycle.md, "Handover"): the handover is over when simnet shows the
  // second pod's connection open.
  const before = await c.statuses(a.id);
  const second = await startSessionRole(c.platform.config, c.platform, createLogger("silent"));
  pods.push(second);
  await first!.manager.close();
  await c.platform.redis.publish(c.platform.keys.sessionKick, "1");
  const deadline = Date.now() + 10_000;
  while (second.manager.size === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(second.manager.size).toBe(1);
  const openOnSecond = async () => {
    const { connections } = await expectJson<{ connections: { instanceId: string; pod: string; state: string }[] }>(
      await c.sim("GET", "/simnet/connections"),
    );
    return connections.some((x) => x.instanceId === a.id && x.pod === second.podId && x.state === "open");
  };
  while (!(await openOnSecond()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(await openOnSecond()).toBe(true);
  expect(await c.statuses(a.id)).toEqual(before);
  await c.waitForStatus(a.id, "WORKING");
  expect(await c.platform.leases.owner(a.id)).toMatchObject({ podId: second.podId });

  // The remembered owner answers "not held here" before sending; the gateway asks the new one.
  await expectJson(await send("depois"), 201);
  await expectJson(await send("mais uma"), 201);
  expect(await sentTexts()).toEqual(expect.arrayContaining(["antes", "depois", "mais uma"]));
  expect((await sentTexts()).filter((t) => t === "depois")).toHaveLength(1);
});
