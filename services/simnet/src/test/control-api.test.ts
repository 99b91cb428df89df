// simnet's control API itself: the admin token, JSON errors, accounts made and read, and the
// reset that forgets everything.
import { describe, expect, it } from "vitest";
import { controlClient, useSimnet } from "./testing.ts";

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
