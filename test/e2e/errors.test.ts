// Spec section 7: every error code reachable in the foundation, with its status and the exact
// body `{"error":{"code","message","details?"}}`; plus the body-parsing rules of the REST edge.
// (rate_limited and payload_too_large have their own files; internal_error cannot be caused
// from outside and is not tested.)
import { PAGE_OFFSET_MAX } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, expectError, expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

const settingsPath = (id: string) => `/v1/instances/${id}/settings`;

describe("bad_request (400)", () => {
  it("malformed JSON body", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: '{"client": {"deviceName": "x"',
    });
    await expectError(res, 400, "bad_request");
  });

  it("a JSON array as body", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: '[{"client": {"deviceName": "x"}}]',
    });
    await expectError(res, 400, "bad_request");
  });

  it("a JSON scalar as body", async () => {
    const { id, token } = await gw.createInstance();
    for (const body of ["42", '"text"', "true"]) {
      const res = await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: tokenHeaders(token, { "content-type": "application/json" }),
        body,
      });
      await expectError(res, 400, "bad_request");
    }
  });

  it("a body with an unsupported content type", async () => {
    const { id, token } = await gw.createInstance();
    for (const type of ["application/xml", "application/x-www-form-urlencoded", "text/plain"]) {
      const res = await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: tokenHeaders(token, { "content-type": type }),
        body: type === "application/xml" ? "<settings/>" : type === "text/plain" ? '{"a":1}' : "a=1",
      });
      await expectError(res, 400, "bad_request");
    }
    // Nothing changed.
    const after = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    expect(after.instance.settings.client.deviceName).toBe("Messaging Gateway");
  });

  it("a JSON body with a __proto__ key", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: '{"__proto__": {"client": {"deviceName": "polluted"}}}',
    });
    await expectError(res, 400, "bad_request");
  });

  it("malformed admin JSON", async () => {
    const res = await gw.request("/v1/admin/instances", {
      method: "POST",
      headers: adminHeaders({ "content-type": "application/json" }),
      body: "{name:",
    });
    await expectError(res, 400, "bad_request");
  });
});

describe("hostile parameters (found by a schemathesis run)", () => {
  it("an empty number in the query string is 422, not read as 0", async () => {
    const { id, token } = await gw.createInstance();
    for (const [path, field] of [
      ["/events?limit=", "limit"],
      ["/chats?offset=%20", "offset"],
      ["/chats/overview?limit=", "limit"],
    ] as const) {
      const body = await expectError(
        await gw.request(`/v1/instances/${id}${path}`, { headers: tokenHeaders(token) }),
        422,
        "validation_error",
      );
      expect(Object.keys(body.error.details ?? {})).toEqual([field]);
    }
    const admin = await expectError(
      await gw.request("/v1/admin/instances?limit=", { headers: adminHeaders() }),
      422,
      "validation_error",
    );
    expect(Object.keys(admin.error.details ?? {})).toEqual(["limit"]);
    // Absent, they take their defaults.
    expect((await gw.request(`/v1/instances/${id}/chats`, { headers: tokenHeaders(token) })).status).toBe(200);
  });

  it("GET /events?cursor=0-0 is an empty page, not a 500; an id past 64 bits is 422", async () => {
    const { id, token } = await gw.createInstance();
    const page = await expectJson(
      await gw.request(`/v1/instances/${id}/events?cursor=0-0`, { headers: tokenHeaders(token) }),
    );
    expect(page).toEqual({ data: [], nextCursor: null });
    const big = await gw.request(`/v1/instances/${id}/events?cursor=18446744073709551616-0`, {
      headers: tokenHeaders(token),
    });
    const body = await expectError(big, 422, "validation_error");
    expect(body.error.details?.cursor).toBeDefined();
    // Not a stream id at all (was a 500: the 64-bit check ran on text the pattern refused).
    for (const cursor of ["null", "1-x", "-"]) {
      const res = await gw.request(`/v1/instances/${id}/events?cursor=${cursor}`, { headers: tokenHeaders(token) });
      expect((await expectError(res, 422, "validation_error")).error.details?.cursor).toBeDefined();
    }
  });

  it("GET /admin/accounts with an offset past what the search answers is 422, not a 500", async () => {
    const res = await gw.admin("GET", "/v1/admin/accounts?limit=100&offset=9007199254740990");
    expect((await expectError(res, 422, "validation_error")).error.details?.offset).toBeDefined();
    expect((await gw.admin("GET", `/v1/admin/accounts?offset=${PAGE_OFFSET_MAX}`)).status).toBe(200);
  });

  it("a path parameter over the router's limit answers the spec's 400 body, not Fastify's 414", async () => {
    const { id, token } = await gw.createInstance();
    const chat = "5511999990000@c.us";
    // 301 characters: the route's own validation answers (messageId is at most 300).
    const long = await gw.request(`/v1/instances/${id}/chats/${chat}/messages/${"a".repeat(301)}`, {
      headers: tokenHeaders(token),
    });
    expect(long.status).toBe(422);
    await expectError(long, 422, "validation_error");
    const huge = await gw.request(`/v1/instances/${id}/chats/${chat}/messages/${"a".repeat(2000)}`, {
      headers: tokenHeaders(token),
    });
    await expectError(huge, 400, "bad_request");
  });
});

describe("body-less requests", () => {
  it("PATCH without body and without Content-Type is accepted and changes nothing", async () => {
    const { id, token } = await gw.createInstance();
    const before = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    const res = await gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders(token) });
    const body = await expectJson(res);
    expect(body.instance.settings).toEqual(before.instance.settings);
  });

  it("PATCH with Content-Type application/json and an empty body is accepted", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: "",
    });
    const body = await expectJson(res);
    expect(body.instance.id).toBe(id);
  });

  it("POST without body and without Content-Type is accepted (token rotation)", async () => {
    const { id } = await gw.createInstance();
    const res = await gw.request(`/v1/admin/instances/${id}/token`, { method: "POST", headers: adminHeaders() });
    const body = await expectJson(res);
    expect(typeof body.token).toBe("string");
  });

  it("POST with Content-Type application/json and an empty body is accepted (client token)", async () => {
    const account = await expectJson(await gw.admin("POST", "/v1/admin/accounts", { name: "Empty body" }), 201);
    const res = await gw.request(`/v1/admin/accounts/${account.account.id}/client-token`, {
      method: "POST",
      headers: adminHeaders({ "content-type": "application/json" }),
      body: "",
    });
    const body = await expectJson(res, 201);
    expect(body.requireOnAllCalls).toBe(true); // the default
    expect(typeof body.clientToken).toBe("string");
  });
});

describe("missing_token / invalid_token (401)", () => {
  it("no token", async () => {
    const { id } = await gw.createInstance();
    await expectError(await gw.request(`/v1/instances/${id}`), 401, "missing_token");
    await expectError(await gw.request(settingsPath(id), { method: "PATCH", json: {} }), 401, "missing_token");
    // An empty header counts as absent.
    await expectError(
      await gw.request(`/v1/instances/${id}`, { headers: { "x-instance-token": "" } }),
      401,
      "missing_token",
    );
  });

  it("wrong token", async () => {
    const { id } = await gw.createInstance();
    await expectError(
      await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders("gwt_wrong") }),
      401,
      "invalid_token",
    );
    await expectError(
      await gw.request(`/v1/instances/${id}`, { headers: { authorization: "Bearer gwt_wrong" } }),
      401,
      "invalid_token",
    );
  });

  it("the token is accepted as X-Instance-Token and as Authorization: Bearer", async () => {
    const { id, token } = await gw.createInstance();
    expect((await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })).status).toBe(200);
    expect((await gw.request(`/v1/instances/${id}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });

  it("each token opens only its own instance, both ways", async () => {
    const a = await gw.createInstance();
    const b = await gw.createInstance();
    for (const [target, other] of [
      [a, b],
      [b, a],
    ] as const) {
      await expectError(
        await gw.request(`/v1/instances/${target.id}`, { headers: tokenHeaders(other.token) }),
        401,
        "invalid_token",
      );
      await expectError(
        await gw.request(settingsPath(target.id), {
          method: "PATCH",
          headers: tokenHeaders(other.token),
          json: { client: { deviceName: "hijack" } },
        }),
        401,
        "invalid_token",
      );
      const own = await expectJson(
        await gw.request(`/v1/instances/${target.id}`, { headers: tokenHeaders(target.token) }),
      );
      expect(own.instance.settings.client.deviceName).toBe("Messaging Gateway");
    }
  });

  it("a valid token on an instance id that does not exist", async () => {
    const { token } = await gw.createInstance();
    await expectError(
      await gw.request("/v1/instances/i0000000000000000000000000", { headers: tokenHeaders(token) }),
      401,
      "invalid_token",
    );
  });
});

describe("payment_required (402)", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["suspended", { billingStatus: "suspended" }],
    ["canceled", { billingStatus: "canceled" }],
    ["past_due without graceUntil", { billingStatus: "past_due" }],
    ["past_due with graceUntil in the past", { billingStatus: "past_due", graceUntil: "2020-01-01T00:00:00Z" }],
    ["trialing with trialEndsAt in the past", { billingStatus: "trialing", trialEndsAt: "2020-01-01T00:00:00.000Z" }],
  ];
  for (const [name, billing] of cases) {
    it(`${name}: GET answers 200 (allowInactive), PATCH /settings answers 402`, async () => {
      const { id, token } = await gw.createInstance();
      const put = await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, billing));
      expect(put.instance.billingStatus).toBe(billing.billingStatus);

      const get = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
      expect(get.instance.billingStatus).toBe(billing.billingStatus);
      if (billing.billingStatus === "suspended") expect(typeof get.instance.suspendedAt).toBe("string");

      const patch = await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: tokenHeaders(token),
        json: { client: { deviceName: "blocked" } },
      });
      await expectError(patch, 402, "payment_required");
    });
  }

  it("past_due within graceUntil stays usable; back to active unblocks a suspended instance", async () => {
    const { id, token } = await gw.createInstance();
    const grace = new Date(Date.now() + 86_400_000).toISOString();
    await expectJson(
      await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "past_due", graceUntil: grace }),
    );
    const patch = (deviceName: string) =>
      gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders(token), json: { client: { deviceName } } });
    expect((await patch("grace")).status).toBe(200);

    await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "suspended" }));
    await expectError(await patch("suspended"), 402, "payment_required");

    const active = await expectJson(
      await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "active" }),
    );
    expect(active.instance.suspendedAt).toBeNull();
    const ok = await expectJson(await patch("active again"));
    expect(ok.instance.settings.client.deviceName).toBe("active again");
  });
});

describe("instance_not_provisioned (409)", () => {
  it("created with provisioned:false: GET answers 200, PATCH answers 409", async () => {
    const { id, token } = await gw.createInstance({ provisioned: false });
    const get = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    expect(get.instance.provisionedAt).toBeNull();
    await expectError(
      await gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders(token), json: {} }),
      409,
      "instance_not_provisioned",
    );
  });

  it("PUT .../provisioning toggles it", async () => {
    const { id, token } = await gw.createInstance();
    const patch = () => gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders(token), json: {} });
    const off = await expectJson(
      await gw.admin("PUT", `/v1/admin/instances/${id}/provisioning`, { provisioned: false }),
    );
    expect(off.instance.provisionedAt).toBeNull();
    await expectError(await patch(), 409, "instance_not_provisioned");
    const on = await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/provisioning`, { provisioned: true }));
    expect(typeof on.instance.provisionedAt).toBe("string");
    expect((await patch()).status).toBe(200);
  });
});

describe("not_found (404)", () => {
  it("unknown routes and methods", async () => {
    await expectError(await gw.request("/v1/nope"), 404, "not_found");
    await expectError(await gw.request("/"), 404, "not_found");
    await expectError(await gw.request("/v2/instances/i0000000000"), 404, "not_found");
    const { id, token } = await gw.createInstance();
    await expectError(
      await gw.request(`/v1/instances/${id}/unknown`, { headers: tokenHeaders(token) }),
      404,
      "not_found",
    );
    // a known path's undeclared method: 405 with Allow (test/e2e/methods.test.ts)
    await expectError(
      await gw.request(`/v1/instances/${id}`, { method: "DELETE", headers: tokenHeaders(token) }),
      405,
      "bad_request",
    );
  });

  it("malformed instance ids", async () => {
    const { token } = await gw.createInstance();
    for (const bad of ["abc", "x123456789", "i12", "I0123456789", "i0123456789-"]) {
      await expectError(await gw.request(`/v1/instances/${bad}`, { headers: tokenHeaders(token) }), 404, "not_found");
      await expectError(await gw.admin("GET", `/v1/admin/instances/${bad}`), 404, "not_found");
    }
    for (const bad of ["acc_", "account1", "acc_UPPER0000"]) {
      await expectError(await gw.admin("GET", `/v1/admin/accounts/${bad}`), 404, "not_found");
    }
  });

  it("unknown admin resources", async () => {
    await expectError(await gw.admin("GET", "/v1/admin/instances/i0000000000000000000000000"), 404, "not_found");
    await expectError(await gw.admin("DELETE", "/v1/admin/instances/i0000000000000000000000000"), 404, "not_found");
    await expectError(await gw.admin("POST", "/v1/admin/instances/i0000000000000000000000000/token"), 404, "not_found");
    await expectError(
      await gw.admin("PUT", "/v1/admin/instances/i0000000000000000000000000/billing", { billingStatus: "active" }),
      404,
      "not_found",
    );
    await expectError(await gw.admin("GET", "/v1/admin/accounts/acc_0000000000000000000000"), 404, "not_found");
    await expectError(
      await gw.admin("POST", "/v1/admin/accounts/acc_0000000000000000000000/client-token", {}),
      404,
      "not_found",
    );
    await expectError(
      await gw.admin("POST", "/v1/admin/instances", {
        name: "orphan",
        kind: "standard",
        accountId: "acc_0000000000000000000000",
      }),
      404,
      "not_found",
    );
  });
});

describe("validation_error (422)", () => {
  it("deviceName of 41 characters", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token),
      json: { client: { deviceName: "d".repeat(41) } },
    });
    const body = await expectError(res, 422, "validation_error");
    expect(body.error.details?.deviceName).toBeTruthy();
    expect(body.error.details?.["client.deviceName"]).toBeTruthy();
  });

  it("fields of the wrong type", async () => {
    const { id, token } = await gw.createInstance();
    const cases: [unknown, string][] = [
      [{ ignore: { groups: "yes" } }, "groups"],
      [{ storage: { messages: 1 } }, "messages"],
      [{ client: { browserName: 42 } }, "browserName"],
      [{ client: "Chrome" }, "client"],
      [{ client: { deviceName: "" } }, "deviceName"],
    ];
    for (const [json, field] of cases) {
      const res = await gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders(token), json });
      const body = await expectError(res, 422, "validation_error");
      expect(body.error.details?.[field], JSON.stringify(json)).toBeTruthy();
    }
  });

  it("admin inputs", async () => {
    let body = await expectError(
      await gw.admin("POST", "/v1/admin/instances", { kind: "standard" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.name).toBeTruthy();
    body = await expectError(
      await gw.admin("POST", "/v1/admin/instances", { name: "x", kind: "weird" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.kind).toBeTruthy();
    body = await expectError(
      await gw.admin("POST", "/v1/admin/accounts", { name: "x", email: "not-an-email" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.email).toBeTruthy();
    body = await expectError(await gw.admin("GET", "/v1/admin/instances?limit=0"), 422, "validation_error");
    expect(body.error.details?.limit).toBeTruthy();
    body = await expectError(await gw.admin("GET", "/v1/admin/instances?cursor=abc"), 422, "validation_error");
    expect(body.error.details?.cursor).toBeTruthy();
    const { id } = await gw.createInstance();
    body = await expectError(
      await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "free" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.billingStatus).toBeTruthy();
    body = await expectError(
      await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "past_due", graceUntil: "tomorrow" }),
      422,
      "validation_error",
    );
    expect(body.error.details?.graceUntil).toBeTruthy();
  });
});

describe("order of checks on instance routes (docs/api.md)", () => {
  it("token before everything else", async () => {
    const { id } = await gw.createInstance({ provisioned: false });
    // Invalid body of a well-formed JSON object + wrong token → the token is reported.
    await expectError(
      await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: tokenHeaders("gwt_wrong"),
        json: { client: { deviceName: "x".repeat(41) } },
      }),
      401,
      "invalid_token",
    );
    await expectError(
      await gw.request(settingsPath(id), { method: "PATCH", json: { client: { deviceName: "x".repeat(41) } } }),
      401,
      "missing_token",
    );
    // A JSON array with a wrong token: the token is reported.
    await expectError(
      await gw.request(settingsPath(id), { method: "PATCH", headers: tokenHeaders("gwt_wrong"), json: [1] }),
      401,
      "invalid_token",
    );
    // Credentials are checked before the body is read: unparseable or oversized bodies of an
    // anonymous caller get 401, not 400/413.
    await expectError(
      await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: "{not json",
      }),
      401,
      "missing_token",
    );
    await expectError(
      await gw.request(settingsPath(id), {
        method: "PATCH",
        headers: { ...tokenHeaders("gwt_wrong"), "content-type": "application/json" },
        body: JSON.stringify({ pad: "x".repeat(1_100_000) }),
      }),
      401,
      "invalid_token",
    );
  });

  it("the instance's state before validation; provisioning before billing", async () => {
    const { id, token } = await gw.createInstance({ provisioned: false, billingStatus: "suspended" });
    const invalid = () =>
      gw.request(settingsPath(id), {
        method: "PATCH",
        headers: tokenHeaders(token),
        json: { client: { deviceName: "x".repeat(41) } },
      });
    await expectError(await invalid(), 409, "instance_not_provisioned");
    await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/provisioning`, { provisioned: true }));
    await expectError(await invalid(), 402, "payment_required");
    await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "active" }));
    await expectError(await invalid(), 422, "validation_error");
  });
});

describe("unknown request fields", () => {
  it("are ignored (spec 9)", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(settingsPath(id), {
      method: "PATCH",
      headers: tokenHeaders(token),
      json: { future: true, client: { deviceName: "known", shape: "round" }, ignore: { newsletters: true } },
    });
    const body = await expectJson(res);
    expect(body.instance.settings.client.deviceName).toBe("known");
    expect(body.instance.settings.client).not.toHaveProperty("shape");
    expect(body.instance.settings.ignore).not.toHaveProperty("newsletters");
    expect(body.instance).not.toHaveProperty("future");

    const created = await gw.admin("POST", "/v1/admin/instances", { name: "x", kind: "standard", color: "blue" });
    expect(created.status).toBe(201);
  });
});

describe("request ids", () => {
  it("every response, errors included, carries x-request-id", async () => {
    const res = await gw.request("/v1/nope");
    await expectError(res, 404, "not_found");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const given = await gw.request("/v1/nope", { headers: { "x-request-id": "my-req.1" } });
    expect(given.headers.get("x-request-id")).toBe("my-req.1");
  });
});
