// A paired device's sessions: reconnecting with its credentials (and the `replaced` rule) and
// logging out, from the device or from the phone.
import { describe, expect, it } from "vitest";
import { useSimnet } from "./testing.ts";

const net = useSimnet({ qrIntervalMs: 2_000, pairingCodeLimit: 5, ackDelayMs: 10 });
const { connect, pair } = net;

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
