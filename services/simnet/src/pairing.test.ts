import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createSimnet } from "./index.ts";
import { controlClient, SimClient, SimRequestError, useSimnet } from "./testing.ts";

const QR_RE = /^2@[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+$/;
const CODE_RE = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{8}$/;

const b64url = (s: string) => Buffer.from(s).toString("base64url");

const net = useSimnet({ qrIntervalMs: 2_000, pairingCodeLimit: 5, ackDelayMs: 10 });
const { connect, pair } = net;

describe("net.control API", () => {
  it("needs the admin token; health does not", async () => {
    expect((await fetch(`${net.url}/simnet/connections`)).status).toBe(401);
    const wrong = await controlClient(net.url, "nope").get("/simnet/connections");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: { code: "unauthorized" } });
    expect((await fetch(`${net.url}/healthz`)).status).toBe(200);
    expect((await net.control.get("/simnet/connections")).status).toBe(200);
  });

  it("answers validation errors and unknown routes as JSON errors", async () => {
    const bad = await net.control.post("/simnet/phones", { phone: "12ab" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "validation_error" } });
    expect((await net.control.get("/simnet/nothing-here")).status).toBe(404);
    expect((await net.control.get("/simnet/phones/5511999990000")).body).toMatchObject({
      error: { code: "not_found" },
    });
  });

  it("creates and reads accounts", async () => {
    const created = await net.control.post("/simnet/phones", { phone: "+55 11 99999-0001", pushName: "Ana" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ phone: "5511999990001", pushName: "Ana", devices: [] });
    expect(created.body.lid).toMatch(/^\d{15}@lid$/);
    const again = await net.control.post("/simnet/phones", { phone: "5511999990001", pushName: "Ana B" });
    expect(again.status).toBe(200);
    expect(again.body.lid).toBe(created.body.lid);
    const list = await net.control.get<{ phones: { phone: string; pushName: string }[] }>("/simnet/phones");
    expect(list.body.phones).toEqual([expect.objectContaining({ phone: "5511999990001", pushName: "Ana B" })]);
  });
});

describe("QR pairing", () => {
  it("shows a QR value, readable through the net.control API", async () => {
    const c = await connect({ instanceId: "iqr1", pod: "pod-a" });
    const qr = await c.next("qr");
    expect(qr.value).toMatch(QR_RE);
    const read = await net.control.get("/simnet/instances/iqr1/qr");
    expect(read.status).toBe(200);
    expect(read.body.value).toBe(qr.value);
    const conns = await net.control.get<{ connections: Record<string, unknown>[] }>("/simnet/connections");
    expect(conns.body.connections).toEqual([
      expect.objectContaining({ instanceId: "iqr1", pod: "pod-a", state: "pairing", phone: null, deviceId: null }),
    ]);
    expect((await net.control.get("/simnet/instances/nobody/qr")).body).toMatchObject({
      error: { code: "not_pairing" },
    });
  });

  it("rotates the QR value, refuses old values, gives up with qr_timeout; stops once paired", async () => {
    const fast = createSimnet({ port: 0, adminToken: net.token, qrIntervalMs: 100, qrLimit: 3, logLevel: "silent" });
    // Rotating as fast, with QR values for minutes: pairing it races the rotation, never qr_timeout.
    const rotating = createSimnet({
      port: 0,
      adminToken: net.token,
      qrIntervalMs: 100,
      qrLimit: 10_000,
      logLevel: "silent",
    });
    const fastUrl = await fast.listen();
    const rotatingUrl = await rotating.listen();
    const ctl = controlClient(fastUrl, net.token);
    try {
      const c = await SimClient.connect(fastUrl, { instanceId: "iqr2" });
      const first = await c.next("qr");
      const second = await c.next("qr");
      expect(second.value).toMatch(QR_RE);
      expect(second.value).not.toBe(first.value);
      const stale = await ctl.post("/simnet/phones/5511999990002/scan", { qr: first.value });
      expect(stale.status).toBe(404);
      expect(stale.body).toMatchObject({ error: { code: "invalid_qr" } });
      await c.next("qr"); // qrLimit: 3 values
      const close = await c.next("close");
      expect(close.reason).toBe("qr_timeout");
      await c.closed;
      expect(c.received.filter((f) => f.type === "qr")).toHaveLength(3);

      // Once paired, no more QR values come. (The value may rotate between reading and scanning: retry.)
      const rctl = controlClient(rotatingUrl, net.token);
      const p = await SimClient.connect(rotatingUrl, { instanceId: "iqr3" });
      await p.next("qr");
      let status = 0;
      for (const deadline = Date.now() + 20_000; status !== 200 && Date.now() < deadline; ) {
        const { body } = await rctl.get<{ value: string }>("/simnet/instances/iqr3/qr");
        status = (await rctl.post("/simnet/phones/5511999990002/scan", { qr: body.value })).status;
      }
      expect(status).toBe(200);
      await p.next("open");
      p.take("qr");
      await new Promise((r) => setTimeout(r, 350));
      expect(p.take("qr")).toEqual([]);
      expect(p.isOpen).toBe(true);
      await p.close();
    } finally {
      await fast.close();
      await rotating.close();
    }
  });

  it("pairs on scan: paired (creds), then open; the account is created", async () => {
    const c = await connect({ instanceId: "iscan", deviceName: "Gateway", browserName: "Firefox" });
    const qr = await c.next("qr");
    const scan = await net.control.post("/simnet/phones/5511999990003/scan", { qr: qr.value, pushName: "Bia" });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ phone: "5511999990003", instanceId: "iscan" });
    const paired = await c.next("paired");
    expect(paired.creds.deviceId).toBe(scan.body.deviceId);
    expect(paired.creds.secret.length).toBeGreaterThan(20);
    expect(paired.me).toMatchObject({ phone: "5511999990003", pushName: "Bia" });
    expect(paired.me.lid).toMatch(/@lid$/);
    const open = await c.next("open");
    expect(open.me).toEqual(paired.me);
    expect(c.received.map((f) => f.type)).toEqual(["qr", "paired", "open"]);
    expect(await c.request("me")).toEqual(paired.me);

    const acc = await net.control.get<{ devices: Record<string, unknown>[] }>("/simnet/phones/5511999990003");
    expect(acc.body.devices).toEqual([
      expect.objectContaining({
        deviceId: paired.creds.deviceId,
        instanceId: "iscan",
        deviceName: "Gateway",
        open: true,
      }),
    ]);
    const conns = await net.control.get<{ connections: Record<string, unknown>[] }>("/simnet/connections");
    expect(conns.body.connections).toEqual([
      expect.objectContaining({ state: "open", phone: "5511999990003", deviceId: paired.creds.deviceId }),
    ]);
    // The QR is gone once paired.
    expect((await net.control.get("/simnet/instances/iscan/qr")).status).toBe(409);
  });
});

describe("reconnecting with credentials", () => {
  it("opens without QR with valid creds", async () => {
    const { client, creds, me } = await pair("5511999990004");
    await client.close();
    const again = await connect({ instanceId: "i1", creds });
    const open = await again.next("open");
    expect(open.me).toEqual(me);
    expect(again.received.map((f) => f.type)).toEqual(["open"]);
    const stats = await net.control.get("/simnet/stats");
    expect(stats.body).toMatchObject({ connectionsOpened: 2, conflicts: 0 });
  });

  it("closes with bad_credentials for an unknown device or a wrong secret", async () => {
    const unknown = await connect({ creds: { deviceId: "dev_nope", secret: "x" } });
    expect((await unknown.next("close")).reason).toBe("bad_credentials");
    expect((await unknown.closed).code).toBe(1000);

    const { client, creds } = await pair("5511999990005");
    await client.close();
    const wrong = await connect({ creds: { deviceId: creds.deviceId, secret: "wrong-secret" } });
    expect((await wrong.next("close")).reason).toBe("bad_credentials");
  });

  it("replaces the older socket of the same device and counts a conflict", async () => {
    const { client: first, creds } = await pair("5511999990006", "irep");
    const second = await connect({ instanceId: "irep", creds });
    await second.next("open");
    const close = await first.next("close");
    expect(close.reason).toBe("replaced");
    await first.closed;
    expect(second.isOpen).toBe(true);
    const stats = await net.control.get("/simnet/stats");
    expect(stats.body).toMatchObject({ conflicts: 1, connectionsOpened: 2 });
    expect(stats.body.conflictLog).toEqual([expect.objectContaining({ deviceId: creds.deviceId, instanceId: "irep" })]);
    expect(net.sim.state.stats.conflicts).toBe(1);
    const conns = await net.control.get<{ connections: { state: string; deviceId: string }[] }>("/simnet/connections");
    expect(conns.body.connections.filter((c) => c.deviceId === creds.deviceId)).toHaveLength(1);
    expect(await second.request("me")).toMatchObject({ phone: "5511999990006" });
  });

  it("counts two live sockets of one instance id as an overlap", async () => {
    await (await connect({ instanceId: "iover" })).next("qr");
    await (await connect({ instanceId: "iover" })).next("qr");
    expect((await net.control.get("/simnet/stats")).body).toMatchObject({ instanceOverlaps: 1, conflicts: 0 });
  });
});

describe("logout", () => {
  it("from the API: the logout frame removes the device; its creds then get logged_out", async () => {
    const { client, creds } = await pair("5511999990007");
    client.send({ type: "logout" });
    expect((await client.next("close")).reason).toBe("logged_out");
    await client.closed;
    const acc = await net.control.get("/simnet/phones/5511999990007");
    expect(acc.body.devices).toEqual([]);
    const again = await connect({ creds });
    expect((await again.next("close")).reason).toBe("logged_out");
  });

  it("a logout frame before pairing just closes", async () => {
    const c = await connect();
    await c.next("qr");
    c.send({ type: "logout" });
    expect((await c.next("close")).reason).toBe("logged_out");
    await c.closed;
  });

  it("from the phone: every linked device is closed with logged_out", async () => {
    const a = await pair("5511999990008", "ia");
    const b = await pair("5511999990008", "ib");
    await b.client.close(); // offline device: removed too
    const out = await net.control.post<{ removed: string[] }>("/simnet/phones/5511999990008/logout");
    expect(out.status).toBe(200);
    expect(out.body.removed.sort()).toEqual([a.creds.deviceId, b.creds.deviceId].sort());
    expect((await a.client.next("close")).reason).toBe("logged_out");
    const again = await connect({ creds: b.creds });
    expect((await again.next("close")).reason).toBe("logged_out");
  });

  it("from the phone: one device by id", async () => {
    const a = await pair("5511999990009", "ia");
    const b = await pair("5511999990009", "ib");
    const out = await net.control.post("/simnet/phones/5511999990009/logout", { deviceId: a.creds.deviceId });
    expect(out.body).toEqual({ removed: [a.creds.deviceId] });
    expect((await a.client.next("close")).reason).toBe("logged_out");
    expect(b.client.isOpen).toBe(true);
    expect(
      (await net.control.post("/simnet/phones/5511999990009/logout", { deviceId: "dev_other" })).body,
    ).toMatchObject({
      error: { code: "not_found" },
    });
  });
});

describe("pairing code", () => {
  it("pairs when the phone types the code", async () => {
    const c = await connect({ instanceId: "icode" });
    await c.next("qr");
    const { code } = await c.request<{ code: string }>("pairing-code", { phone: "+55 11 99999-0010" });
    expect(code).toMatch(CODE_RE);
    const typed = `${code.slice(0, 4).toLowerCase()}-${code.slice(4)}`;
    const res = await net.control.post("/simnet/phones/5511999990010/pairing-code", { code: typed, pushName: "Caio" });
    expect(res.status).toBe(200);
    const paired = await c.next("paired");
    expect(paired.me).toMatchObject({ phone: "5511999990010", pushName: "Caio" });
    await c.next("open");
    expect(await c.request("me")).toMatchObject({ phone: "5511999990010" });
    // The code is used up.
    const reuse = await net.control.post("/simnet/phones/5511999990010/pairing-code", { code });
    expect(reuse.body).toMatchObject({ error: { code: "invalid_code" } });
  });

  it("limits codes per number per 10 minutes (too_many_attempts)", async () => {
    const c1 = await connect({ instanceId: "ilimit" });
    await c1.next("qr");
    for (let i = 0; i < 3; i++) await c1.request("pairing-code", { phone: "5511999990011" });
    const c2 = await connect({ instanceId: "ilimit2" });
    await c2.next("qr");
    for (let i = 0; i < 2; i++) await c2.request("pairing-code", { phone: "5511999990011" });
    await expect(c2.request("pairing-code", { phone: "5511999990011" })).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    await expect(c1.request("pairing-code", { phone: "5511999990011" })).rejects.toBeInstanceOf(SimRequestError);
    // Another number is not affected.
    expect(await c1.request("pairing-code", { phone: "5511999990012" })).toHaveProperty("code");
  });

  it("expires after the TTL; unknown codes are refused", async () => {
    const short = createSimnet({ port: 0, adminToken: net.token, pairingCodeTtlMs: 150, logLevel: "silent" });
    const shortUrl = await short.listen();
    const ctl = controlClient(shortUrl, net.token);
    try {
      const c = await SimClient.connect(shortUrl);
      await c.next("qr");
      const { code } = await c.request<{ code: string }>("pairing-code", { phone: "5511999990013" });
      await new Promise((r) => setTimeout(r, 250));
      const late = await ctl.post("/simnet/phones/5511999990013/pairing-code", { code });
      expect(late.status).toBe(410);
      expect(late.body).toMatchObject({ error: { code: "code_expired" } });
      const unknown = await ctl.post("/simnet/phones/5511999990013/pairing-code", { code: "ZZZZZZZZ" });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: { code: "invalid_code" } });
      await c.close();
    } finally {
      await short.close();
    }
  });

  it("a code asked with the ninth digit for an account registered without it is the wrong number", async () => {
    await net.control.post("/simnet/phones", { phone: "551187654321" });
    const c = await connect();
    await c.next("qr");
    const { code } = await c.request<{ code: string }>("pairing-code", { phone: "5511987654321" });
    const res = await net.control.post("/simnet/phones/551187654321/pairing-code", { code });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: "wrong_number" } });
    const retry = await c.request<{ code: string }>("pairing-code", { phone: "551187654321" });
    expect((await net.control.post("/simnet/phones/551187654321/pairing-code", { code: retry.code })).status).toBe(200);
    expect((await c.next("open")).me.phone).toBe("551187654321");
  });

  it("is refused on an open connection (not_pairing)", async () => {
    const { client } = await pair("5511999990014");
    await expect(client.request("pairing-code", { phone: "5511999990014" })).rejects.toMatchObject({
      code: "not_pairing",
    });
  });
});

describe("passkey", () => {
  it("challenge, assertion, confirmation, confirm: pairs to the userHandle's phone", async () => {
    const c = await connect({ instanceId: "ipk" });
    await c.next("qr");
    await expect(c.request("passkey-confirmation")).rejects.toMatchObject({ code: "invalid_passkey" });
    const ch = await c.request<{ challenge: string; rpId: string; allowCredentials: { type: string }[] }>(
      "passkey-challenge",
    );
    expect(ch).toMatchObject({ rpId: expect.any(String), timeout: expect.any(Number), extensions: {} });
    expect(ch.allowCredentials[0]?.type).toBe("public-key");
    const assertion = (challenge: string) => ({
      id: "cred-1",
      rawId: b64url("cred-1"),
      type: "public-key",
      response: {
        authenticatorData: b64url("auth"),
        clientDataJSON: b64url(JSON.stringify({ type: "webauthn.get", challenge, origin: "https://example" })),
        signature: b64url("sig"),
        userHandle: b64url("5511999990015"),
      },
    });
    await expect(c.request("passkey", assertion("not-the-challenge"))).rejects.toMatchObject({
      code: "invalid_passkey",
    });
    await expect(c.request("passkey", { id: "x" })).rejects.toMatchObject({ code: "bad_request" });
    const notJson = assertion(ch.challenge);
    notJson.response.clientDataJSON = b64url("not json");
    await expect(c.request("passkey", notJson)).rejects.toMatchObject({ code: "invalid_passkey" });
    expect(await c.request("passkey", assertion(ch.challenge))).toEqual({});
    const conf = await c.request<{ code: string }>("passkey-confirmation");
    expect(conf.code).toMatch(/^\d{6}$/);
    expect(await c.request("passkey-confirm")).toEqual({});
    expect((await c.next("paired")).me.phone).toBe("5511999990015");
    await c.next("open");
    await expect(c.request("passkey-challenge")).rejects.toMatchObject({ code: "not_pairing" });
  });

  it("refuses an assertion before any challenge", async () => {
    const c = await connect();
    await c.next("qr");
    await expect(
      c.request("passkey", {
        id: "a",
        rawId: "YQ",
        type: "public-key",
        response: { authenticatorData: "", clientDataJSON: b64url("{}"), signature: "" },
      }),
    ).rejects.toMatchObject({ code: "invalid_passkey" });
  });
});

describe("account operations", () => {
  it("me, capping and timelock; restrictions settable per phone", async () => {
    const { client } = await pair("5511999990016", "i1", "Duda");
    expect(await client.request("me")).toMatchObject({ phone: "5511999990016", pushName: "Duda" });
    const capping = await client.request<Record<string, number | string>>("capping");
    expect(capping).toMatchObject({
      cappingStatus: "NONE",
      mvStatus: "NOT_ACTIVE",
      oteStatus: "NOT_ELIGIBLE",
      totalQuota: 1000,
      usedQuota: 0,
    });
    expect(Number(capping.cycleEnd) - Number(capping.cycleStart)).toBe(30 * 86400);
    expect(Number(capping.cycleStart)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(await client.request("timelock")).toEqual({
      enforcementType: "NONE",
      isActive: false,
      timeEnforcementEnds: 0,
    });

    const ends = Math.floor(Date.now() / 1000) + 3600;
    const put = await net.control.put("/simnet/phones/5511999990016/restrictions", {
      capping: { cappingStatus: "CAPPED", usedQuota: 1000 },
      timelock: { enforcementType: "REACHOUT_TIMELOCK", isActive: true, timeEnforcementEnds: ends },
    });
    expect(put.status).toBe(200);
    expect(await client.request("capping")).toMatchObject({ cappingStatus: "CAPPED", usedQuota: 1000 });
    expect(await client.request("timelock")).toEqual({
      enforcementType: "REACHOUT_TIMELOCK",
      isActive: true,
      timeEnforcementEnds: ends,
    });
    await net.control.put("/simnet/phones/5511999990016/restrictions", { capping: null, timelock: null });
    expect(await client.request("timelock")).toMatchObject({ isActive: false });
  });

  it("answers not_open, unknown_op and bad_request", async () => {
    const c = await connect();
    await c.next("qr");
    await expect(c.request("me")).rejects.toMatchObject({ code: "not_open" });
    await expect(c.request("send", { to: "1", message: { type: "text", text: "x" } })).rejects.toMatchObject({
      code: "not_open",
    });
    await expect(c.request("fly")).rejects.toMatchObject({ code: "unknown_op" });
    await expect(c.request("pairing-code", { phone: "abc" })).rejects.toMatchObject({ code: "bad_request" });
    c.send({ type: "request", id: "x1", op: 5 });
    const res = await c.next("response", (f) => f.id === "x1");
    expect(res).toMatchObject({ ok: false, error: { code: "bad_request" } });
  });
});

describe("protocol errors", () => {
  it("closes when the first frame is not hello", async () => {
    const c = await connect(false);
    c.send({ type: "request", id: "1", op: "me", args: {} });
    expect((await c.next("close")).reason).toBe("protocol_error");
  });

  it("closes on non-JSON and on a second hello", async () => {
    const a = await connect(false);
    a.send("not json");
    expect((await a.next("close")).reason).toBe("protocol_error");
    const b = await connect();
    await b.next("qr");
    b.send({ type: "hello", instanceId: "again" });
    expect((await b.next("close")).reason).toBe("protocol_error");
  });

  it("closes a connection that never says hello", async () => {
    const quick = createSimnet({ port: 0, adminToken: net.token, helloTimeoutMs: 100, logLevel: "silent" });
    const quickUrl = await quick.listen();
    try {
      const c = await SimClient.connect(quickUrl, false);
      expect((await c.next("close")).reason).toBe("protocol_error");
      await c.closed;
    } finally {
      await quick.close();
    }
  });

  it("answers 404 to upgrades on other paths", async () => {
    const ws = new WebSocket(`${net.url.replace("http", "ws")}/other`);
    const status = await new Promise<number>((resolve) => {
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => resolve(-1));
    });
    expect(status).toBe(404);
  });
});

describe("reset", () => {
  it("forgets accounts and cuts connections", async () => {
    const { client, creds } = await pair("5511999990017");
    expect((await net.control.post("/simnet/reset")).body).toEqual({ ok: true });
    await client.closed;
    expect(client.received.filter((f) => f.type === "close")).toEqual([]);
    expect((await net.control.get("/simnet/phones/5511999990017")).status).toBe(404);
    const again = await connect({ creds });
    expect((await again.next("close")).reason).toBe("bad_credentials");
    expect((await net.control.get("/simnet/stats")).body).toMatchObject({ conflicts: 0, connectionsOpened: 0 });
  });
});
