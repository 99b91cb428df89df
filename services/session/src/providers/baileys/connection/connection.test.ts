import { DisconnectReason, proto, type WASocket } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { silentSuite } from "../test/paired-rig.ts";
import { ready, type SessionRigOptions, sessionRig, sleep, statuses } from "../test/session-rig.ts";
import { Boom, storePairedCreds, waitFor } from "../test/testing.ts";
import { useRedisAuthState } from "./auth-state.ts";

/**
 * The connection's lifecycle (connection.ts, with policy.ts' decisions) on real Baileys sockets
 * towards a silent local endpoint (test/session-rig.ts): the socket's config, QR and status
 * events, pairing and the 515 restart, each disconnect's action, the lease lost.
 */

const suite = silentSuite();
const rig = (opts: SessionRigOptions = {}) => sessionRig(suite, opts);

const activeTimeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
/** Polls without a timer of its own running at the moment it counts (vi.waitFor's would be counted). */
async function timeoutsDrainTo(baseline: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (activeTimeouts() <= baseline) return true;
    await sleep(20);
  }
  return activeTimeouts() <= baseline;
}

/** What pair-success hands to `creds.update` (configureSuccessfulPairing), emitted on the socket. */
function pairSuccess(sock: WASocket) {
  sock.ev.emit("creds.update", {
    me: { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" },
    account: proto.ADVSignedDeviceIdentity.fromObject({
      details: Buffer.from("details"),
      accountSignatureKey: Buffer.alloc(32, 1),
      accountSignature: Buffer.alloc(64, 2),
      deviceSignature: Buffer.alloc(64, 3),
    }),
    platform: "android",
  });
}

describe("Baileys session: socket and events", () => {
  it("builds a real socket with the gateway's config, maps connecting and QR, and stop() ends it", async () => {
    const baseline = activeTimeouts();
    const r = await rig({ connectTimeoutMs: 300 });
    const framesBefore = suite.net.framesReceived();
    await r.session.start();
    await r.session.start(); // idempotent: still one socket
    expect(r.sockets).toHaveLength(1);

    const cfg = r.configs[0]!;
    expect(cfg.markOnlineOnConnect).toBe(false);
    expect(cfg.syncFullHistory).toBe(false);
    expect(cfg.version).toEqual([2, 3000, 1]);
    expect(cfg.browser).toEqual(["Loja Centro", "Firefox", "1.0.0"]);
    expect(cfg.waWebSocketUrl).toBeUndefined(); // the real endpoint; only this test redirects it
    expect(cfg.logger?.level).toBe("silent"); // parent's level when quieter than warn
    expect(await cfg.getMessage?.({ remoteJid: "1@s.whatsapp.net", id: "X", fromMe: true })).toBeUndefined();
    expect(cfg.auth.creds.registered).toBe(false);
    expect(cfg.msgRetryCounterCache).toBeDefined();

    // Baileys emits `connecting` on the next tick and sends its client hello to our endpoint.
    await waitFor(() => expect(statuses(r.events)).toEqual(["STARTING"]));
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(framesBefore));

    const sock = r.sock();
    sock.ev.emit("connection.update", { qr: "2@ref1,noise,identity,adv,1" });
    sock.ev.emit("connection.update", { qr: "2@ref2,noise,identity,adv,1" });
    expect(r.events.filter((e) => e.type === "qr")).toEqual([
      { type: "qr", value: "2@ref1,noise,identity,adv,1" },
      { type: "qr", value: "2@ref2,noise,identity,adv,1" },
    ]);
    expect(statuses(r.events)).toEqual(["STARTING", "SCAN_QR_CODE"]);
    expect(r.session.currentQr()).toBe("2@ref2,noise,identity,adv,1");

    const eventCount = r.events.length;
    await r.session.stop();
    await r.session.stop(); // idempotent
    expect(sock.ws.isClosed).toBe(true);
    expect(r.session.currentQr()).toBeNull();
    expect(r.events).toHaveLength(eventCount); // an intentional close is not reported as a disconnect
    // No socket and no timer left behind (Baileys' own handshake timer runs out within connectTimeoutMs).
    expect(await timeoutsDrainTo(baseline, 10_000)).toBe(true);
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
  });

  it("pairing then 515: creds are in Redis before the restart, the old socket ends before the new one", async () => {
    const r = await rig();
    await r.session.start();
    await ready(r);
    const first = r.sock();
    first.ev.emit("connection.update", { qr: "2@ref,a,b,c,1" });
    pairSuccess(first);
    first.ev.emit("connection.update", { isNewLogin: true, qr: undefined });
    expect(r.session.currentQr()).toBeNull();
    expect(r.events.filter((e) => e.type === "account")).toEqual([
      { type: "account", account: { phone: "5511999999999", lid: "123456789@lid", pushName: "Ana" } },
    ]);

    await first.end(new Boom("Stream Errored (restart required)", { statusCode: DisconnectReason.restartRequired }));
    await waitFor(() => expect(r.sockets).toHaveLength(2));
    expect(r.earlierClosed).toEqual([true, true]);
    // the same creds object goes to the new socket, and it is already persisted
    expect(r.configs[1]!.auth.creds).toBe(r.configs[0]!.auth.creds);
    const stored = await useRedisAuthState(suite.h.reopen(r.store));
    expect(stored.state.creds.me?.id).toBe("5511999999999:12@s.whatsapp.net");
    expect(stored.state.creds.account).toBeInstanceOf(proto.ADVSignedDeviceIdentity);

    // Restarting after pair-success: reconnecting, transient (contracts failures.ts).
    await expect(r.session.account()).rejects.toMatchObject({ code: "network_unavailable", status: 503 });
    await ready(r);
    r.sock().ev.emit("connection.update", { connection: "open" });
    expect(statuses(r.events)).toEqual(["STARTING", "SCAN_QR_CODE", "STARTING", "WORKING"]);
    expect(await r.session.account()).toEqual({ phone: "5511999999999", lid: "123456789@lid", pushName: "Ana" });
    // a push-name change while open is reported
    r.sock().ev.emit("creds.update", { me: { ...r.sock().authState.creds.me!, name: "Ana Maria" } });
    expect(r.events.at(-1)).toEqual({
      type: "account",
      account: { phone: "5511999999999", lid: "123456789@lid", pushName: "Ana Maria" },
    });
  });

  it("a real handshake timeout (408 from Baileys) backs off and reconnects on a new socket, never two at once", async () => {
    const r = await rig({ connectTimeoutMs: 150 });
    await r.session.start();
    await waitFor(() => expect(r.sockets.length).toBeGreaterThanOrEqual(3));
    await r.session.stop();
    const count = r.sockets.length;
    expect(r.earlierClosed.every(Boolean)).toBe(true);
    expect(r.sockets.every((s) => s.ws.isClosed)).toBe(true);
    await sleep(300);
    expect(r.sockets).toHaveLength(count); // the reconnect timer died with stop()
  });

  it("401 logged out: wipes the auth state, emits logged-out, does not reconnect", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    await r.session.start();
    await ready(r);
    expect(r.configs[0]!.auth.creds.me?.id).toBe("5511999999999:12@s.whatsapp.net");
    await r.sock().end(
      new Boom("Stream Errored (conflict)", {
        statusCode: DisconnectReason.loggedOut,
        data: { tag: "conflict", attrs: { type: "device_removed" } },
      }),
    );
    await waitFor(() => expect(r.events.at(-1)).toEqual({ type: "logged-out", reason: "device_removed" }));
    expect(await store.readCreds()).toBeNull();
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
  });

  it("403 forbidden: FAILED with the reason, creds kept, no reconnect", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    await r.session.start();
    await ready(r);
    await r.sock().end(new Boom("Connection Failure", { statusCode: DisconnectReason.forbidden }));
    await waitFor(() => expect(statuses(r.events).at(-1)).toBe("FAILED:forbidden"));
    expect(await store.readCreds()).not.toBeNull();
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
  });

  it("QR refs exhausted: STOPPED qr_expired, no reconnect; a new start() shows a new QR", async () => {
    const r = await rig();
    await r.session.start();
    await ready(r);
    r.sock().ev.emit("connection.update", { qr: "2@ref,a,b,c,1" });
    await r.sock().end(new Boom("QR refs attempts ended", { statusCode: DisconnectReason.timedOut }));
    await waitFor(() => expect(statuses(r.events).at(-1)).toBe("STOPPED:qr_expired"));
    expect(r.session.currentQr()).toBeNull();
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
    await r.session.start();
    expect(r.sockets).toHaveLength(2);
    await waitFor(() => expect(statuses(r.events).at(-1)).toBe("STARTING"));
  });

  it("440 replaced: waits the hard back-off (no quick reconnect), and stop() cancels it", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    // A back-off of 1.5-1.9 s: far from the quick one (≤ 100 ms here) and from scheduling noise.
    const r = await rig({ store, policy: { replacedBaseMs: 1_500 } });
    await r.session.start();
    await ready(r);
    r.sock().ev.emit("connection.update", { connection: "open" });
    await r.sock().end(
      new Boom("Stream Errored (conflict)", {
        statusCode: DisconnectReason.connectionReplaced,
        data: { tag: "conflict", attrs: { type: "replaced" } },
      }),
    );
    await waitFor(() => expect(statuses(r.events).at(-1)).toBe("STARTING:replaced"));
    await sleep(300); // the quick back-off would have reconnected by now
    expect(r.sockets).toHaveLength(1);
    await r.session.stop();
    await sleep(2_100); // past the longest hard back-off (1.5 s + 25 % jitter)
    expect(r.sockets).toHaveLength(1);
  });

  it("405 asks for the version again and retries with it, without wiping", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store, resolveVersion: () => [2, 3000, 2] });
    await r.session.start();
    await ready(r);
    await r.sock().end(new Boom("Connection Failure", { statusCode: 405 }));
    await waitFor(() => expect(r.sockets).toHaveLength(2));
    expect(r.configs[1]!.version).toEqual([2, 3000, 2]);
    expect(await store.readCreds()).not.toBeNull();
  });

  it("stops at once when the lease is lost (a fenced write fails)", async () => {
    const id = suite.h.newInstanceId();
    const store = await suite.h.storeFor(id, "pod-a");
    const r = await rig({ store });
    await r.session.start();
    await ready(r);
    await suite.h.platform.leases.release(id, "pod-a", store.epoch);
    await suite.h.storeFor(id, "pod-b");
    pairSuccess(r.sock()); // creds.update → fenced write → StaleLeaseError
    await waitFor(() => expect(r.sock().ws.isClosed).toBe(true));
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
    expect(r.events.some((e) => e.type === "logged-out")).toBe(false);
  });
});
