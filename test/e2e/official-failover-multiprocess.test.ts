// An official-gateway instance when its session pod crashes: gateway and two session pods as
// separate OS processes, the operator mock in this one. The owning pod is killed with SIGKILL (no
// close, no lease released): the other pod takes the instance once the lease expires, under a new
// epoch, checks the credentials with the operator again and serves its calls.
import { type CloudMock, createCloudMock } from "@gw/cloudmock";
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, testEnv } from "../support/gateway.ts";
import { spawnMultiProcessCluster } from "../support/processes.ts";

let cl: Awaited<ReturnType<typeof spawnMultiProcessCluster>>;
let mock: CloudMock;
let mockUrl: string;
let platform: Platform;

const N = {
  phoneNumberId: `30${Date.now()}`.slice(0, 15),
  wabaId: `40${Date.now()}`.slice(0, 15),
  displayPhoneNumber: "5511955554444",
  accessToken: "EAAGfailover-token-123",
  appSecret: "failover-app-secret",
};

const ctl = (method: string, path: string, json?: unknown) =>
  fetch(mockUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  cl = await spawnMultiProcessCluster(["pod-a", "pod-b"]);
  platform = await createPlatform(loadConfig(testEnv({ KEY_PREFIX: cl.keyPrefix ?? "" })));
  mock = createCloudMock({
    port: 0,
    adminToken: ADMIN_TOKEN,
    logLevel: "silent",
    ackDelayMs: 100,
    templateApprovalMs: 100,
    webhookUrl: `${cl.gateway.url}/v1/official/webhook`,
  });
  mockUrl = await mock.listen();
  expect((await ctl("POST", "/mock/numbers", { ...N, verifiedName: "Loja Resiliente" })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await cl?.close();
  await mock?.close();
  await platform?.close();
}, 60_000);

describe("kill -9 of the session pod that owns an official instance", () => {
  it("the other pod takes it when the lease expires, checks the credentials again and serves it", async () => {
    const created = await cl.admin("POST", "/v1/admin/instances", {
      name: "oficial-failover",
      kind: "official",
      cloud: {
        phoneNumberId: N.phoneNumberId,
        wabaId: N.wabaId,
        accessToken: N.accessToken,
        appSecret: N.appSecret,
        apiBaseUrl: `${mockUrl}/v25.0`,
      },
    });
    const { instance, token } = (await created.json()) as { instance: { id: string }; token: string };
    expect(created.status).toBe(201);
    const id = instance.id;
    const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${cl.gateway.url}/v1/instances/${id}${path}`, {
        ...init,
        headers: {
          "x-instance-token": token,
          ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      });
    const status = async () =>
      (
        (await (await cl.admin("GET", `/v1/admin/instances/${id}`)).json()) as {
          instance: { connectionStatus: string };
        }
      ).instance.connectionStatus;
    expect((await api("/start", { method: "POST" })).status).toBe(200);
    await waitUntil(async () => (await status()) === "WORKING", "WORKING", 20_000);
    const first = await platform.leases.owner(id);
    expect(["pod-a", "pod-b"]).toContain(first?.podId);
    const checks = async () =>
      (
        (await (await ctl("GET", `/mock/numbers/${N.phoneNumberId}/requests`)).json()) as {
          requests: { method: string; path: string }[];
        }
      ).requests.filter((q) => q.method === "GET" && q.path.endsWith(`/${N.phoneNumberId}`)).length;
    const checksBefore = await checks();

    // The owner dies on the spot: nothing is closed, its lease is left to expire.
    await cl.pods.get(first!.podId)!.kill();
    const survivor = first!.podId === "pod-a" ? "pod-b" : "pod-a";
    await waitUntil(
      async () => (await platform.leases.owner(id))?.podId === survivor && (await status()) === "WORKING",
      `the instance WORKING on ${survivor}`,
      40_000,
    );
    const second = await platform.leases.owner(id);
    expect(second!.epoch).toBeGreaterThan(first!.epoch); // a new owner, fenced from the dead one
    // The new owner asks the operator again. A takeover keeps WORKING while it reconnects
    // (docs/lifecycle.md "Handover"), so the status above can come before the check: wait for it.
    await waitUntil(async () => (await checks()) > checksBefore, "the new owner's credentials check", 20_000);
    expect(await checks()).toBeGreaterThan(checksBefore);

    // The new owner serves the instance: an operator call, and a send (a template passes the window).
    await waitUntil(async () => (await api("/phone-number")).status === 200, "GET /phone-number", 20_000);
    const tpl = await api("/templates", {
      method: "POST",
      json: {
        name: "depois_da_queda",
        language: "pt_BR",
        category: "UTILITY",
        components: [{ type: "BODY", text: "Seguimos aqui." }],
      },
    });
    expect(tpl.status).toBe(201);
    await waitUntil(
      async () => {
        const page = (await (await api("/templates?name=depois_da_queda")).json()) as { data?: { status: string }[] };
        return page.data?.[0]?.status === "APPROVED";
      },
      "template approved",
      10_000,
    );
    const sent = await api("/messages/template", {
      method: "POST",
      json: { phone: "5511944443333", template: { name: "depois_da_queda", language: "pt_BR" } },
    });
    expect(sent.status, await sent.clone().text()).toBe(201);
    const outbox = (await (await ctl("GET", `/mock/numbers/${N.phoneNumberId}/messages`)).json()) as {
      messages: { to: string; type: string }[];
    };
    expect(outbox.messages).toEqual([expect.objectContaining({ to: "5511944443333", type: "template" })]);
  }, 120_000);
});
