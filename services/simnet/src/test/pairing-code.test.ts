// Pairing without a QR: a code asked for a number and typed on the phone (limits, expiry, the
// ninth digit), and a passkey (challenge, assertion, confirmation).
import { describe, expect, it } from "vitest";
import { createSimnet } from "../index.ts";
import { controlClient, SimClient, SimRequestError, useSimnet } from "./testing.ts";

const CODE_RE = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{8}$/;

const b64url = (s: string) => Buffer.from(s).toString("base64url");

const net = useSimnet({ qrIntervalMs: 2_000, pairingCodeLimit: 5, ackDelayMs: 10 });
const { connect, pair } = net;

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
