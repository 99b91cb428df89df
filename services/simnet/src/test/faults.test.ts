import { describe, expect, it } from "vitest";
import { SimClient, useSimnet } from "./testing.ts";

const net = useSimnet({ qrIntervalMs: 5_000, ackDelayMs: 10 });
const { connect, pair } = net;

describe("drop", () => {
  it("cuts every connection without a close frame; creds still work after", async () => {
    const a = await pair("5511988880001", "ia");
    const b = await pair("5511988880002", "ib");
    const res = await net.control.post("/simnet/faults/drop");
    expect(res.body).toEqual({ dropped: 2 });
    await Promise.all([a.client.closed, b.client.closed]);
    expect([...a.client.received, ...b.client.received].filter((f) => f.type === "close")).toEqual([]);
    expect((await net.control.get<{ connections: unknown[] }>("/simnet/connections")).body.connections).toEqual([]);
    const again = await connect({ instanceId: "ia", creds: a.creds });
    expect((await again.next("open")).me.phone).toBe("5511988880001");
    expect((await net.control.get("/simnet/stats")).body).toMatchObject({ connectionsOpened: 3, conflicts: 0 });
  });

  it("cuts only the named instance", async () => {
    const a = await pair("5511988880003", "ia");
    const b = await pair("5511988880004", "ib");
    expect((await net.control.post("/simnet/faults/drop", { instanceId: "ib" })).body).toEqual({ dropped: 1 });
    await b.client.closed;
    expect(a.client.isOpen).toBe(true);
    expect(await a.client.request("me")).toMatchObject({ phone: "5511988880003" });
  });
});

describe("outage", () => {
  it("closes everything with outage, refuses upgrades with 503, then ends", async () => {
    const a = await pair("5511988880005", "ia");
    // Long enough that the checks below all fall inside it, however slow the machine.
    const res = await net.control.post("/simnet/faults/outage", { seconds: 60 });
    expect(res.status).toBe(200);
    expect(res.body.outageUntil).toEqual(expect.any(String));
    expect((await a.client.next("close")).reason).toBe("outage");
    await a.client.closed;
    await expect(SimClient.connect(net.url, { creds: a.creds })).rejects.toThrow(/503/);
    const stats = await net.control.get("/simnet/stats");
    expect(stats.body).toMatchObject({ refusedUpgrades: 1 });
    expect(stats.body.outageUntil).toEqual(expect.any(String));
    // The outage ends by itself: a new, short one replaces it, and connecting works again once
    // it has run out (polled; refused meanwhile).
    expect((await net.control.post("/simnet/faults/outage", { seconds: 1 })).body.outageUntil).toEqual(
      expect.any(String),
    );
    const deadline = Date.now() + 15_000;
    let again: SimClient | undefined;
    while (!again) {
      again = await connect({ instanceId: "ia", creds: a.creds }).catch((err: unknown) => {
        if (Date.now() > deadline || !/503/.test(String(err))) throw err;
        return undefined;
      });
      if (!again) await new Promise((r) => setTimeout(r, 50));
    }
    await again.next("open");
    expect((await net.control.get("/simnet/stats")).body.outageUntil).toBeNull();
  });

  it("ends early with seconds: 0", async () => {
    await net.control.post("/simnet/faults/outage", { seconds: 60 });
    await expect(SimClient.connect(net.url)).rejects.toThrow(/503/);
    expect((await net.control.post("/simnet/faults/outage", { seconds: 0 })).body).toEqual({ outageUntil: null });
    const c = await connect();
    await c.next("qr");
  });

  it("validates its body", async () => {
    const res = await net.control.post("/simnet/faults/outage", { seconds: -1 });
    expect(res.status).toBe(400);
  });
});

describe("slow", () => {
  it("delays every answer until turned off", async () => {
    const { client } = await pair("5511988880006", "ia");
    expect((await net.control.post("/simnet/faults/slow", { ms: 300 })).body).toEqual({ slowMs: 300 });
    const t0 = Date.now();
    await client.request("me");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await net.control.get("/simnet/stats")).body).toMatchObject({ slowMs: 300 });
    await net.control.post("/simnet/faults/slow", { ms: 0 });
    // Answers keep their order and still arrive.
    const [a, b] = await Promise.all([client.request("me"), client.request("timelock")]);
    expect(a).toHaveProperty("phone");
    expect(b).toHaveProperty("isActive", false);
  });
});

describe("slow-open", () => {
  it("opens a device's session only after the delay; requests meanwhile answer not_open", async () => {
    const a = await pair("5511988880010", "ia");
    await a.client.close();
    expect((await net.control.post("/simnet/faults/slow-open", { ms: 400 })).body).toEqual({ openDelayMs: 400 });
    const again = await connect({ instanceId: "ia", creds: a.creds });
    await expect(again.request("me")).rejects.toMatchObject({ code: "not_open" });
    expect((await again.next("open")).me.phone).toBe("5511988880010");
    expect(await again.request("me")).toMatchObject({ phone: "5511988880010" });
    await net.control.post("/simnet/faults/slow-open", { ms: 0 });
  });
});

describe("rate-limit", () => {
  const send = (c: SimClient, text: string) =>
    c.request("send", { to: "5511988880099", message: { type: "text", text } });

  it("refuses the next N sends with rate_overlimit, of any account or of one, then lets them through", async () => {
    await net.control.post("/simnet/phones", { phone: "5511988880099" });
    const a = await pair("5511988880007", "ia");
    const b = await pair("5511988880008", "ib");
    const limited = { code: "rate_overlimit" };

    // One account's: b is not counted.
    expect((await net.control.post("/simnet/faults/rate-limit", { sends: 2, phone: "5511988880007" })).body).toEqual({
      rateLimitSends: 2,
      phone: "5511988880007",
    });
    await expect(send(b.client, "b passa")).resolves.toHaveProperty("id");
    await expect(send(a.client, "1")).rejects.toMatchObject(limited);
    await expect(send(a.client, "2")).rejects.toMatchObject(limited);
    await expect(send(a.client, "3")).resolves.toHaveProperty("id");

    // Any account's, shared.
    await net.control.post("/simnet/faults/rate-limit", { sends: 2 });
    await expect(send(b.client, "4")).rejects.toMatchObject(limited);
    await expect(send(a.client, "5")).rejects.toMatchObject(limited);
    await expect(send(a.client, "6")).resolves.toHaveProperty("id");
    // Nothing refused was delivered.
    const inbox = await net.control.get<{ messages: { message: { text: string } }[] }>(
      "/simnet/phones/5511988880099/inbox",
    );
    expect(inbox.body.messages.map((m) => m.message.text).sort()).toEqual(["3", "6", "b passa"]);
  });
});
