// Pairing by QR: rotating QR values, a phone scanning one, the device's credentials and the
// session that opens.
import { describe, expect, it } from "vitest";
import { createSimnet } from "../index.ts";
import { controlClient, SimClient, useSimnet } from "./testing.ts";

const QR_RE = /^2@[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+,[A-Za-z0-9+/=]+$/;

const net = useSimnet({ qrIntervalMs: 2_000, pairingCodeLimit: 5, ackDelayMs: 10 });
const { connect } = net;

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
