// Spec section 5: token rotation, account Client-Token, admin bearer; each checked on one
// gateway and across two replicas that share Redis (same KEY_PREFIX), where a change made
// through one must be enforced by the other on the very next request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, expectError, expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { startReplicaPair, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let replica: TestGateway;
beforeAll(async () => {
  ({ gw, replica } = await startReplicaPair());
});
afterAll(async () => {
  await Promise.all([gw?.close(), replica?.close()]);
});

const getInstance = (g: TestGateway, id: string, headers: Record<string, string>) =>
  g.request(`/v1/instances/${id}`, { headers });

describe("token rotation", () => {
  it("the old token is refused at once and the new one works", async () => {
    const { id, token: old } = await gw.createInstance();
    expect((await getInstance(gw, id, tokenHeaders(old))).status).toBe(200);

    const rotated = await expectJson<{ token: string }>(await gw.admin("POST", `/v1/admin/instances/${id}/token`));
    expect(rotated.token).not.toBe(old);

    await expectError(await getInstance(gw, id, tokenHeaders(old)), 401, "invalid_token");
    await expectError(await getInstance(gw, id, { authorization: `Bearer ${old}` }), 401, "invalid_token");
    const ok = await expectJson(await getInstance(gw, id, tokenHeaders(rotated.token)));
    expect(ok.instance.id).toBe(id);

    // Rotating again retires the second token too.
    const again = await expectJson<{ token: string }>(await gw.admin("POST", `/v1/admin/instances/${id}/token`));
    await expectError(await getInstance(gw, id, tokenHeaders(rotated.token)), 401, "invalid_token");
    expect((await getInstance(gw, id, tokenHeaders(again.token))).status).toBe(200);
  });

  it("across replicas: rotate on one, the other refuses the old token on the next request", async () => {
    const { id, token: old } = await gw.createInstance();
    // Both replicas know the instance and accept the token (the replica has it cached now).
    expect((await getInstance(replica, id, tokenHeaders(old))).status).toBe(200);
    expect((await getInstance(gw, id, tokenHeaders(old))).status).toBe(200);

    const { token } = await expectJson<{ token: string }>(await gw.admin("POST", `/v1/admin/instances/${id}/token`));
    await expectError(await getInstance(replica, id, tokenHeaders(old)), 401, "invalid_token");
    expect((await getInstance(replica, id, tokenHeaders(token))).status).toBe(200);

    // And the other way round.
    const r2 = await expectJson<{ token: string }>(await replica.admin("POST", `/v1/admin/instances/${id}/token`));
    await expectError(await getInstance(gw, id, tokenHeaders(token)), 401, "invalid_token");
    expect((await getInstance(gw, id, tokenHeaders(r2.token))).status).toBe(200);
  });

  it("deleting an instance stops its token on every replica", async () => {
    const { id, token } = await gw.createInstance();
    expect((await getInstance(replica, id, tokenHeaders(token))).status).toBe(200);
    expect(await expectJson(await gw.admin("DELETE", `/v1/admin/instances/${id}`))).toEqual({ success: true });
    await expectError(await getInstance(replica, id, tokenHeaders(token)), 401, "invalid_token");
    await expectError(await getInstance(gw, id, tokenHeaders(token)), 401, "invalid_token");
    await expectError(await replica.admin("GET", `/v1/admin/instances/${id}`), 404, "not_found");
  });
});

describe("Client-Token", () => {
  async function setup() {
    const { account } = await expectJson(await gw.admin("POST", "/v1/admin/accounts", { name: "Client token" }), 201);
    const { id, token } = await gw.createInstance({ accountId: account.id });
    const other = await gw.createInstance({ accountId: account.id });
    return { accountId: account.id as string, id, token, other };
  }

  it("required on all calls: missing or wrong → 401 invalid_client_token, right → 200", async () => {
    const { accountId, id, token, other } = await setup();
    const issued = await expectJson<{ clientToken: string; requireOnAllCalls: boolean }>(
      await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: true }),
      201,
    );
    expect(issued.requireOnAllCalls).toBe(true);
    expect(issued.clientToken.length).toBeGreaterThan(20);

    const acc = await expectJson(await gw.admin("GET", `/v1/admin/accounts/${accountId}`));
    expect(acc.account.clientToken).toEqual({ enabled: true, requireOnAllCalls: true });
    expect(JSON.stringify(acc)).not.toContain(issued.clientToken);

    for (const g of [gw, replica]) {
      await expectError(await getInstance(g, id, tokenHeaders(token)), 401, "invalid_client_token");
      await expectError(
        await getInstance(g, id, tokenHeaders(token, { "client-token": "gwc_wrong" })),
        401,
        "invalid_client_token",
      );
      await expectError(
        await g.request(`/v1/instances/${id}/settings`, {
          method: "PATCH",
          headers: tokenHeaders(token),
          json: { client: { deviceName: "no" } },
        }),
        401,
        "invalid_client_token",
      );
      expect((await getInstance(g, id, tokenHeaders(token, { "client-token": issued.clientToken }))).status).toBe(200);
      // Account-wide: the account's other instance needs it too.
      await expectError(await getInstance(g, other.id, tokenHeaders(other.token)), 401, "invalid_client_token");
      expect(
        (await getInstance(g, other.id, tokenHeaders(other.token, { "client-token": issued.clientToken }))).status,
      ).toBe(200);
    }

    // The instance token is checked first: a wrong instance token stays invalid_token.
    await expectError(
      await getInstance(gw, id, tokenHeaders("gwt_wrong", { "client-token": issued.clientToken })),
      401,
      "invalid_token",
    );
  });

  it("an unrelated account is not affected", async () => {
    const { accountId } = await setup();
    await expectJson(await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, {}), 201);
    const stranger = await gw.createInstance();
    expect((await getInstance(replica, stranger.id, tokenHeaders(stranger.token))).status).toBe(200);
  });

  it("issuing a new Client-Token retires the previous one", async () => {
    const { accountId, id, token } = await setup();
    const first = await expectJson(await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, {}), 201);
    const second = await expectJson(
      await replica.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, {}),
      201,
    );
    expect(second.clientToken).not.toBe(first.clientToken);
    await expectError(
      await getInstance(gw, id, tokenHeaders(token, { "client-token": first.clientToken })),
      401,
      "invalid_client_token",
    );
    expect((await getInstance(gw, id, tokenHeaders(token, { "client-token": second.clientToken }))).status).toBe(200);
  });

  it("requireOnAllCalls:false stops requiring it, on both replicas at once", async () => {
    const { accountId, id, token } = await setup();
    const { clientToken } = await expectJson(
      await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: true }),
      201,
    );
    await expectError(await getInstance(replica, id, tokenHeaders(token)), 401, "invalid_client_token");

    const patched = await expectJson(
      await gw.admin("PATCH", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: false }),
    );
    expect(patched.account.clientToken).toEqual({ enabled: true, requireOnAllCalls: false });
    for (const g of [replica, gw]) {
      expect((await getInstance(g, id, tokenHeaders(token))).status).toBe(200);
      expect((await getInstance(g, id, tokenHeaders(token, { "client-token": clientToken }))).status).toBe(200);
    }

    // Switched back on through the replica: required again on the first gateway.
    await expectJson(
      await replica.admin("PATCH", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: true }),
    );
    await expectError(await getInstance(gw, id, tokenHeaders(token)), 401, "invalid_client_token");
    expect((await getInstance(gw, id, tokenHeaders(token, { "client-token": clientToken }))).status).toBe(200);
  });

  it("DELETE disables it, on both replicas at once", async () => {
    const { accountId, id, token } = await setup();
    await expectJson(await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, {}), 201);
    await expectError(await getInstance(replica, id, tokenHeaders(token)), 401, "invalid_client_token");

    const disabled = await expectJson(await gw.admin("DELETE", `/v1/admin/accounts/${accountId}/client-token`));
    expect(disabled.account.clientToken).toEqual({ enabled: false, requireOnAllCalls: false });
    expect((await getInstance(replica, id, tokenHeaders(token))).status).toBe(200);
    expect((await getInstance(gw, id, tokenHeaders(token))).status).toBe(200);

    // Without a Client-Token, requiring one is refused.
    const body = await expectError(
      await gw.admin("PATCH", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: true }),
      422,
      "validation_error",
    );
    expect(body.error.details?.requireOnAllCalls).toBeTruthy();
    expect((await getInstance(gw, id, tokenHeaders(token))).status).toBe(200);
  });

  it("issued with requireOnAllCalls:false it is not demanded", async () => {
    const { accountId, id, token } = await setup();
    const issued = await expectJson(
      await gw.admin("POST", `/v1/admin/accounts/${accountId}/client-token`, { requireOnAllCalls: false }),
      201,
    );
    expect(issued.requireOnAllCalls).toBe(false);
    expect((await getInstance(replica, id, tokenHeaders(token))).status).toBe(200);
  });
});

describe("admin bearer", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/v1/admin/instances"],
    ["POST", "/v1/admin/instances", { name: "x", kind: "standard" }],
    ["GET", "/v1/admin/accounts"],
    ["POST", "/v1/admin/accounts", { name: "x" }],
    ["GET", "/v1/admin/accounts/acc_0000000000000000000000"],
  ];

  it("missing → 401 missing_token, wrong → 401 invalid_token", async () => {
    const { token } = await gw.createInstance();
    for (const [method, path, json] of routes) {
      const init = json === undefined ? { method } : { method, json };
      await expectError(await gw.request(path, init), 401, "missing_token");
      await expectError(
        await gw.request(path, { ...init, headers: { authorization: "Bearer not-the-admin-token" } }),
        401,
        "invalid_token",
      );
      // An instance token is no admin token, in either header.
      await expectError(
        await gw.request(path, { ...init, headers: { authorization: `Bearer ${token}` } }),
        401,
        "invalid_token",
      );
      await expectError(await gw.request(path, { ...init, headers: tokenHeaders(token) }), 401, "missing_token");
    }
  });

  it("the admin token opens no instance route", async () => {
    const { id } = await gw.createInstance();
    await expectError(await gw.request(`/v1/instances/${id}`, { headers: adminHeaders() }), 401, "invalid_token");
  });
});

describe("credential headers", () => {
  it("an Authorization header that is no bearer token is refused, also beside a valid X-Instance-Token", async () => {
    const { id, token } = await gw.createInstance();
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "", `Token ${token}`, `Bearer ${token} extra`]) {
      const res = await getInstance(gw, id, { ...tokenHeaders(token), authorization });
      const body = await expectError(res, 401, "invalid_token");
      expect(body.error.message).toMatch(/Authorization/);
    }
    // The same malformed header on an admin route.
    await expectError(
      await gw.request("/v1/admin/instances", { headers: { authorization: "Basic eA==" } }),
      401,
      "invalid_token",
    );
  });

  it("two different tokens are refused; the same token in both headers is accepted", async () => {
    const a = await gw.createInstance();
    const b = await gw.createInstance();
    const both = { ...tokenHeaders(a.token), authorization: `Bearer ${b.token}` };
    await expectError(await getInstance(gw, a.id, both), 401, "invalid_token");
    const same = { ...tokenHeaders(a.token), authorization: `bearer ${a.token}` };
    expect((await getInstance(gw, a.id, same)).status).toBe(200);
    expect((await getInstance(gw, a.id, { authorization: `Bearer ${a.token}` })).status).toBe(200);
  });
});
