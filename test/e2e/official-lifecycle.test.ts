// Official-gateway instances: credentials, connection status, the number's data, the routes the
// kind lacks — end to end on the local operator mock (services/cloudmock), real HTTP and Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson } from "../support/e2e-helpers.ts";
import { type OfficialRig, startOfficial } from "../support/official.ts";

let r: OfficialRig;
beforeAll(async () => {
  r = await startOfficial();
});
afterAll(() => r?.close());

describe("credentials", () => {
  it("are given at creation, sealed at rest, never answered; the public part is shown", async () => {
    const n = await r.number({ start: false });
    const admin = await expectJson<{ instance: Record<string, unknown> }>(
      await r.c.admin("GET", `/v1/admin/instances/${n.id}`),
    );
    expect(admin.instance.cloud).toEqual({
      phoneNumberId: n.phoneNumberId,
      wabaId: n.wabaId,
      apiBaseUrl: `${r.mockUrl}/v25.0`,
    });
    const text = JSON.stringify(admin);
    expect(text).not.toContain(n.accessToken);
    expect(text).not.toContain(n.appSecret);
    // At rest: neither secret appears in any Redis value of the instance.
    const stored = await r.c.platform.redis.hgetall(r.c.platform.keys.cloudCredentials(n.id));
    expect(JSON.stringify(stored)).not.toContain(n.accessToken);
    expect(JSON.stringify(stored)).not.toContain(n.appSecret);
    const own = await expectJson<{ instance: Record<string, unknown> }>(await r.c.as(n.token)(`/v1/instances/${n.id}`));
    expect(JSON.stringify(own)).not.toContain(n.accessToken);
  });

  it("refuses incomplete credentials, credentials on a standard instance and a number another instance runs", async () => {
    const base = { phoneNumberId: "1234567", wabaId: "7654321", accessToken: "EAAGtoken-123", appSecret: "secret-123" };
    const { accessToken: _t, ...incomplete } = base;
    const missing = await r.c.admin("POST", "/v1/admin/instances", { name: "x", kind: "official", cloud: incomplete });
    expect((await expectError(missing, 422, "validation_error")).error.details).toHaveProperty("cloud.accessToken");
    const standard = await r.c.admin("POST", "/v1/admin/instances", { name: "x", kind: "standard", cloud: base });
    expect((await expectError(standard, 422, "validation_error")).error.details).toHaveProperty("cloud");
    const n = await r.number({ start: false });
    const taken = await r.c.admin("POST", "/v1/admin/instances", {
      name: "x",
      kind: "official",
      cloud: { ...base, phoneNumberId: n.phoneNumberId },
    });
    expect((await expectError(taken, 422, "validation_error")).error.details).toHaveProperty("cloud.phoneNumberId");
  });
});

describe("connection status", () => {
  it("start checks the credentials: WORKING with the number and its display name", async () => {
    const n = await r.number();
    const { instance } = await expectJson<{ instance: Record<string, unknown> }>(
      await r.c.as(n.token)(`/v1/instances/${n.id}`),
    );
    expect(instance.connectionStatus).toBe("WORKING");
    expect(instance.phone).toBe(n.phone);
    expect(instance.pushName).toBe("Loja Exemplo");
    const me = await expectJson(await r.c.as(n.token)(`/v1/instances/${n.id}/me`));
    expect(me).toMatchObject({
      id: `${n.phone}@c.us`,
      pushName: "Loja Exemplo",
      messageCapping: null,
      reachoutTimelock: null,
    });
    const statuses = await r.c.statuses(n.id);
    expect(statuses.slice(-2)).toEqual(["STARTING", "WORKING"]);
  });

  it("GET /phone-number shows the operator's data of the number", async () => {
    const n = await r.number({ mock: { qualityRating: "YELLOW", messagingLimitTier: "TIER_10K" } });
    const info = await expectJson(await r.c.as(n.token)(`/v1/instances/${n.id}/phone-number`));
    expect(info).toEqual({
      phoneNumberId: n.phoneNumberId,
      displayPhoneNumber: expect.stringContaining(n.phone.slice(-4)),
      phone: n.phone,
      verifiedName: "Loja Exemplo",
      nameStatus: "APPROVED",
      qualityRating: "YELLOW",
      messagingLimitTier: "TIER_10K",
      throughput: "STANDARD",
      status: "CONNECTED",
      codeVerificationStatus: "VERIFIED",
      platformType: "CLOUD_API",
    });
  });

  it("a token the operator refuses at start is FAILED with the reason", async () => {
    const n = await r.number({ start: false });
    await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, { tokenExpired: true });
    await r.c.as(n.token)(`/v1/instances/${n.id}/start`, { method: "POST" });
    await r.c.waitForStatus(n.id, "FAILED");
    const last = (await r.c.events(n.id, "session.status")).at(-1)!;
    expect(String(last.payload.reason)).toMatch(/^operator_auth/);
  });

  it("a call answered with code 190 makes the instance FAILED; a rotated token brings it back to WORKING", async () => {
    const n = await r.number();
    await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, { tokenExpired: true });
    const res = await r.c.as(n.token)(`/v1/instances/${n.id}/phone-number`);
    const body = await expectError(res, 422, "instance_not_connected");
    expect(body.error.details?.operatorCode).toBe("190");
    await r.c.waitForStatus(n.id, "FAILED");
    // The operator issues a new token; the gateway's operator rotates it.
    await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, {
      accessToken: "EAAGrotated-token-1",
      tokenExpired: false,
    });
    const patched = await r.c.admin("PATCH", `/v1/admin/instances/${n.id}`, {
      cloud: { accessToken: "EAAGrotated-token-1" },
    });
    expect(patched.status).toBe(200);
    await r.c.as(n.token)(`/v1/instances/${n.id}/start`, { method: "POST" });
    await r.c.waitForStatus(n.id, "WORKING");
    await expectJson(await r.c.as(n.token)(`/v1/instances/${n.id}/phone-number`));
  });

  it("a proxy's error page (not the operator's JSON) at start is transient: checked again, never FAILED operator_auth", async () => {
    const n = await r.number({ start: false });
    await r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/errors`, {
      op: "node",
      status: 502,
      body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
      count: 2,
    });
    const from = (await r.c.statuses(n.id)).length;
    await r.c.as(n.token)(`/v1/instances/${n.id}/start`, { method: "POST" });
    const after = await r.c.waitForStatuses(n.id, from, (s) => s.includes("WORKING") || s.includes("FAILED"));
    // STARTING, then STARTING again saying why it is still starting and when it checks next.
    expect(after).toEqual(["STARTING", "STARTING", "WORKING"]);
    const why = (await r.c.events(n.id, "session.status")).slice(from).find((e) => e.payload.reason);
    expect(why?.payload).toMatchObject({
      status: "STARTING",
      reason: "operator_unavailable",
      detail: expect.any(String),
      retryAt: expect.any(Number),
    });
    // The two refused checks and the one that passed.
    const checks = (
      (await (await r.ctl("GET", `/mock/numbers/${n.phoneNumberId}/requests`)).json()) as {
        requests: { method: string; path: string }[];
      }
    ).requests.filter((q) => q.method === "GET" && q.path.endsWith(`/${n.phoneNumberId}`));
    expect(checks.length).toBe(3);
  });

  it("mid-use, a proxy's 5xx or 404 page maps by its HTTP status and the instance stays WORKING; a bare 401 fails it", async () => {
    const n = await r.number();
    const inject = (status: number, body: string) =>
      r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/errors`, { op: "node", status, body, contentType: "text/plain" });
    const phone = () => r.c.as(n.token)(`/v1/instances/${n.id}/phone-number`);
    await inject(503, "Service Unavailable");
    const unavailable = await phone();
    expect((await expectError(unavailable, 503, "network_unavailable")).error.details).toEqual({
      operatorStatus: "503",
    });
    expect(Number(unavailable.headers.get("retry-after"))).toBeGreaterThan(0);
    await inject(404, "<h1>Not Found</h1>");
    expect((await expectError(await phone(), 502, "network_error")).error.message).toMatch(/apiBaseUrl/);
    await expectJson(await phone());
    expect(await r.c.statuses(n.id)).not.toContain("FAILED");
    await inject(401, "Unauthorized");
    const refused = await expectError(await phone(), 422, "instance_not_connected");
    expect(refused.error.details?.operatorStatus).toBe("401");
    await r.c.waitForStatus(n.id, "FAILED");
    expect(String((await r.c.events(n.id, "session.status")).at(-1)!.payload.reason)).toMatch(/^operator_auth/);
  });

  it("a rotated token reaches a WORKING instance at once, without /start: it reconnects and keeps working", async () => {
    const n = await r.number();
    const from = (await r.c.statuses(n.id)).length;
    // The operator issues a new token and revokes the old one; the gateway's operator rotates it.
    await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, { accessToken: "EAAGrotated-while-working-1" });
    const patched = await r.c.admin("PATCH", `/v1/admin/instances/${n.id}`, {
      cloud: { accessToken: "EAAGrotated-while-working-1" },
    });
    expect(patched.status).toBe(200);
    await r.c.waitForStatuses(n.id, from, (s) => s.at(-1) === "WORKING" && s.includes("STARTING"));
    // Calls now go with the new token (the old one would be refused with 190 and FAILED).
    await expectJson(await r.c.as(n.token)(`/v1/instances/${n.id}/phone-number`));
    expect((await r.c.statuses(n.id)).slice(from)).not.toContain("FAILED");
  });

  it("stop and logout keep the credentials; start reconnects", async () => {
    const n = await r.number();
    await r.c.as(n.token)(`/v1/instances/${n.id}/logout`, { method: "POST" });
    await r.c.waitForStatus(n.id, "STOPPED");
    expect(await r.c.platform.cloud.get(n.id)).not.toBeNull();
    await r.c.as(n.token)(`/v1/instances/${n.id}/start`, { method: "POST" });
    await r.c.waitForStatus(n.id, "WORKING");
  });
});

describe("routes each kind lacks (the capability table)", () => {
  it("official instances: standard-only routes answer 501 not_supported_by_provider", async () => {
    const n = await r.number();
    const api = r.c.as(n.token);
    const base = `/v1/instances/${n.id}`;
    for (const [method, path, json] of [
      ["GET", "/qr-code?format=raw", undefined],
      ["POST", "/pairing-code", { phoneNumber: "5511999999999" }],
      ["GET", "/capping", undefined],
      [
        "POST",
        "/messages/poll",
        { phone: "5511999990000", poll: { name: "q", options: ["a", "b"], multipleAnswers: false } },
      ],
      ["POST", "/messages/event", { phone: "5511999990000", event: { name: "e", startTime: 1 } }],
      ["POST", "/messages/forward", { phone: "5511999990000", messageId: "abcd" }],
      ["GET", "/contacts/check-exists?phone=5511999990000", undefined],
      ["GET", "/chats/5511999990000@c.us/picture", undefined],
      ["GET", "/lids", undefined],
    ] as const) {
      const res = await api(`${base}${path}`, { method, ...(json ? { json } : {}) });
      await expectError(res, 501, "not_supported_by_provider");
    }
  });

  it("standard instances: official-only routes answer 501 official_api_only", async () => {
    const s = await r.c.createInstance();
    const api = r.c.as(s.token);
    for (const path of ["/business-profile", "/templates", "/phone-number"]) {
      await expectError(await api(`/v1/instances/${s.id}${path}`), 501, "official_api_only");
    }
    await expectError(
      await api(`/v1/instances/${s.id}/templates/pedido`, { method: "DELETE" }),
      501,
      "official_api_only",
    );
  });
});
