// The wire protocol's answers: account operations (me, capping, timelock), errors of requests
// (not_open, unknown_op, bad_request) and the protocol errors that close a connection.
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createSimnet } from "../index.ts";
import { SimClient, useSimnet } from "./testing.ts";

const net = useSimnet({ qrIntervalMs: 2_000, pairingCodeLimit: 5, ackDelayMs: 10 });
const { connect, pair } = net;

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
