import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSimnet, type Simnet } from "./index.ts";
import { type ControlClient, controlClient, pairByQr, SimClient } from "./testing.ts";

const TOKEN = "simnet-test-token";
let sim: Simnet;
let url: string;
let control: ControlClient;
const clients: SimClient[] = [];

async function connect(hello: Parameters<typeof SimClient.connect>[1] = {}) {
  const c = await SimClient.connect(url, hello);
  clients.push(c);
  return c;
}
async function pair(phone: string, instanceId: string) {
  const out = await pairByQr(url, control, phone, { instanceId });
  clients.push(out.client);
  return out;
}

beforeAll(async () => {
  sim = createSimnet({ port: 0, adminToken: TOKEN, qrIntervalMs: 5_000, ackDelayMs: 10, logLevel: "silent" });
  url = await sim.listen();
  control = controlClient(url, TOKEN);
});
afterEach(async () => {
  const done = clients.splice(0);
  await Promise.all(done.map((c) => c.close()));
  expect(done.flatMap((c) => c.violations)).toEqual([]);
  await control.post("/simnet/reset");
});
afterAll(() => sim.close());

describe("drop", () => {
  it("cuts every connection without a close frame; creds still work after", async () => {
    const a = await pair("5511988880001", "ia");
    const b = await pair("5511988880002", "ib");
    const res = await control.post("/simnet/faults/drop");
    expect(res.body).toEqual({ dropped: 2 });
    await Promise.all([a.client.closed, b.client.closed]);
    expect([...a.client.received, ...b.client.received].filter((f) => f.type === "close")).toEqual([]);
    expect((await control.get<{ connections: unknown[] }>("/simnet/connections")).body.connections).toEqual([]);
    const again = await connect({ instanceId: "ia", creds: a.creds });
    expect((await again.next("open")).me.phone).toBe("5511988880001");
    expect((await control.get("/simnet/stats")).body).toMatchObject({ connectionsOpened: 3, conflicts: 0 });
  });

  it("cuts only the named instance", async () => {
    const a = await pair("5511988880003", "ia");
    const b = await pair("5511988880004", "ib");
    expect((await control.post("/simnet/faults/drop", { instanceId: "ib" })).body).toEqual({ dropped: 1 });
    await b.client.closed;
    expect(a.client.isOpen).toBe(true);
    expect(await a.client.request("me")).toMatchObject({ phone: "5511988880003" });
  });
});

describe("outage", () => {
  it("closes everything with outage, refuses upgrades with 503, then ends", async () => {
    const a = await pair("5511988880005", "ia");
    const res = await control.post("/simnet/faults/outage", { seconds: 1 });
    expect(res.status).toBe(200);
    expect(res.body.outageUntil).toEqual(expect.any(String));
    expect((await a.client.next("close")).reason).toBe("outage");
    await a.client.closed;
    await expect(SimClient.connect(url, { creds: a.creds })).rejects.toThrow(/503/);
    const stats = await control.get("/simnet/stats");
    expect(stats.body).toMatchObject({ refusedUpgrades: 1 });
    expect(stats.body.outageUntil).toEqual(expect.any(String));
    await new Promise((r) => setTimeout(r, 1_100));
    const again = await connect({ instanceId: "ia", creds: a.creds });
    await again.next("open");
    expect((await control.get("/simnet/stats")).body.outageUntil).toBeNull();
  });

  it("ends early with seconds: 0", async () => {
    await control.post("/simnet/faults/outage", { seconds: 60 });
    await expect(SimClient.connect(url)).rejects.toThrow(/503/);
    expect((await control.post("/simnet/faults/outage", { seconds: 0 })).body).toEqual({ outageUntil: null });
    const c = await connect();
    await c.next("qr");
  });

  it("validates its body", async () => {
    const res = await control.post("/simnet/faults/outage", { seconds: -1 });
    expect(res.status).toBe(400);
  });
});

describe("slow", () => {
  it("delays every answer until turned off", async () => {
    const { client } = await pair("5511988880006", "ia");
    expect((await control.post("/simnet/faults/slow", { ms: 300 })).body).toEqual({ slowMs: 300 });
    const t0 = Date.now();
    await client.request("me");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await control.get("/simnet/stats")).body).toMatchObject({ slowMs: 300 });
    await control.post("/simnet/faults/slow", { ms: 0 });
    // Answers keep their order and still arrive.
    const [a, b] = await Promise.all([client.request("me"), client.request("timelock")]);
    expect(a).toHaveProperty("phone");
    expect(b).toHaveProperty("isActive", false);
  });
});
