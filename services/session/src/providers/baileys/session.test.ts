import { ApiError } from "@gw/contracts";
import { type AuthStateStore, createLogger } from "@gw/platform";
import {
  DisconnectReason,
  makeWASocket,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
} from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import type { ProviderEvent, ProviderSession } from "../contract.ts";
import { useRedisAuthState } from "./auth-state.ts";
import { baileysProvider, createBaileysProvider, parseBaileysVersion } from "./index.ts";
import { silentSuite } from "./paired-rig.ts";
import { type BaileysSessionOptions, browserFromSettings, createBaileysSession } from "./session.ts";
import { Boom, baileysInstance, memoryIdentity, memoryRecords } from "./testing.ts";

/**
 * The provider at its boundary with real Baileys sockets: `makeWASocket` connects to a WebSocket
 * server on 127.0.0.1 that accepts the connection and never answers the noise handshake. What
 * the network would say is driven through the socket's own event emitter (`sock.ev.emit`) and
 * its own `end(error)`, which emits `connection.update` close exactly as on a real disconnect.
 */

const suite = silentSuite();

const instanceFor = (id: string, client = { browserName: "Firefox", deviceName: "Loja Centro" }) =>
  baileysInstance(id, client);

interface Rig {
  session: ProviderSession;
  store: AuthStateStore;
  events: ProviderEvent[];
  sockets: WASocket[];
  configs: UserFacingSocketConfig[];
  /** For each socket: were all earlier sockets already closed when it was created? */
  earlierClosed: boolean[];
  sock(i?: number): WASocket;
}

async function rig(
  opts: BaileysSessionOptions & { connectTimeoutMs?: number; queryTimeoutMs?: number; store?: AuthStateStore } = {},
): Promise<Rig> {
  const store = opts.store ?? (await suite.h.storeFor(suite.h.newInstanceId()));
  const events: ProviderEvent[] = [];
  const sockets: WASocket[] = [];
  const configs: UserFacingSocketConfig[] = [];
  const earlierClosed: boolean[] = [];
  // Baileys' own makeWASocket; the test only points it at the local endpoint and shortens timeouts.
  const makeSocket = (config: UserFacingSocketConfig): WASocket => {
    configs.push(config);
    earlierClosed.push(sockets.every((s) => s.ws.isClosed));
    const sock = makeWASocket({
      ...config,
      waWebSocketUrl: suite.net.url,
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      defaultQueryTimeoutMs: opts.queryTimeoutMs ?? 300,
    });
    sockets.push(sock);
    return sock;
  };
  const session = createBaileysSession(
    {
      instance: instanceFor(store.instanceId),
      podId: "pod-a",
      auth: store,
      rawMessages: memoryRawMessages(),
      log: createLogger("silent"),
      identity: memoryIdentity(),
      records: memoryRecords(),
      emit: (e) => events.push(e),
    },
    { version: [2, 3000, 1], policy: { backoffBaseMs: 20, backoffMaxMs: 100 }, ...opts, makeSocket },
  );
  suite.cleanups.push(() => session.stop());
  return { session, store, events, sockets, configs, earlierClosed, sock: (i = sockets.length - 1) => sockets[i]! };
}

/**
 * vi.waitFor with a deadline far above a slow machine's scheduling noise (its default is 1 s):
 * what is awaited here comes within milliseconds, or never.
 */
function waitFor<T>(fn: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(fn, { timeout: 10_000 });
}

const statuses = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === "status" ? [e.cause ? `${e.status}:${e.cause.reason}` : e.status] : []));
/** The latest socket announced `connecting` and its WebSocket to our endpoint is open. */
async function ready(r: Rig) {
  await waitFor(() => {
    expect(statuses(r.events).at(-1)).toBe("STARTING");
    expect(r.sock().ws.isOpen).toBe(true);
  });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Bound for "answered at once, without waiting for the network": far below the 30 s timeouts
 * the rigs of those tests give Baileys, far above a slow machine's GC pauses and scheduling.
 */
const NO_WAIT_MS = 5_000;
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

async function storePairedCreds(store: AuthStateStore) {
  const auth = await useRedisAuthState(store);
  auth.state.creds.me = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };
  auth.state.creds.account = proto.ADVSignedDeviceIdentity.fromObject({ details: Buffer.from("d") });
  await auth.saveCreds();
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
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

describe("Baileys session: pairing code", () => {
  it("waits for the socket to be ready, then asks Baileys for the code", async () => {
    const r = await rig({ pairingCodeLimit: { max: 2, windowMs: 60_000 } });
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("instance_not_connected");
    await r.session.start();
    await ready(r);
    const pending = r.session.requestPairingCode("+55 (11) 99999-9999");
    await sleep(50);
    const before = suite.net.framesReceived();
    r.sock().ev.emit("connection.update", { qr: "2@ref,a,b,c,1" });
    const code = await pending;
    expect(code).toMatch(/^[0-9A-Z]{8}$/);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before)); // link_code_companion_reg went out
    expect(r.sock().authState.creds.me?.id).toBe("5511999999999@s.whatsapp.net");
    // nothing is paired yet, so nothing is stored
    expect(await r.store.readCreds()).toBeNull();

    expect(await r.session.requestPairingCode("5511999999999")).toMatch(/^[0-9A-Z]{8}$/);
    const limited = await apiError(r.session.requestPairingCode("5511999999999"));
    expect(limited.code).toBe("too_many_attempts");
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBeGreaterThan(0);

    // a reconnect before the code was typed starts a clean registration (no half-set `me`)
    await r.sock().end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    await waitFor(() => expect(r.sockets).toHaveLength(2));
    expect(r.configs[1]!.auth.creds.me).toBeUndefined();
  });

  it("refuses SMS/voice delivery (501), bad numbers, and an already paired number", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    const sms = await apiError(r.session.requestPairingCode("5511999999999", "sms"));
    expect(sms.code).toBe("not_supported");
    expect(sms.status).toBe(501);
    expect(sms.message).toMatch(/SMS/);
    expect((await apiError(r.session.requestPairingCode("12"))).code).toBe("validation_error");
    await r.session.start();
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("bad_request");
  });

  it("times out when the socket never gets ready", async () => {
    const r = await rig({ pairingReadyTimeoutMs: 50 });
    await r.session.start();
    expect((await apiError(r.session.requestPairingCode("5511999999999"))).code).toBe("network_timeout");
  });
});

describe("Baileys session: account routes, logout, passkeys", () => {
  it("account/capping/timelock need an open connection; network failures map to ApiErrors", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    await r.session.start();
    await ready(r);
    // Started, not open yet: reconnecting (503 with Retry-After), not "not connected" (422).
    for (const call of [() => r.session.account(), () => r.session.capping(), () => r.session.timelock()]) {
      expect(await apiError(call())).toMatchObject({ code: "network_unavailable", retryAfter: 5 });
    }
    r.sock().ev.emit("connection.update", { connection: "open" });
    expect(await r.session.account()).toEqual({ phone: "5511999999999", lid: "123456789@lid", pushName: "Ana" });
    // our endpoint never answers the w:mex query: Baileys gives up and we answer a network error
    for (const call of [() => r.session.capping(), () => r.session.timelock()]) {
      expect(["network_timeout", "network_error"]).toContain((await apiError(call())).code);
    }
  });

  it("logout while open removes the device through Baileys, then wipes; not a network logout", async () => {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store });
    await r.session.start();
    await ready(r);
    r.sock().ev.emit("connection.update", { connection: "open" });
    const before = suite.net.framesReceived();
    await r.session.logout();
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before)); // remove-companion-device
    await waitFor(() => expect(r.sock().ws.isClosed).toBe(true)); // Baileys' own end(401 Intentional Logout)
    expect(await store.readCreds()).toBeNull();
    expect(r.events.some((e) => e.type === "logged-out")).toBe(false);
    await sleep(100);
    expect(r.sockets).toHaveLength(1);
  });

  it("logout when not connected (or never started) still wipes the auth state; the device left linked is reported", async () => {
    // Our endpoint never opens a connection: the logout's own socket (logout.test.ts) gives up.
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store, logoutTimeoutMs: 200 });
    await r.session.logout();
    expect(await store.readCreds()).toBeNull();
    expect(r.events.filter((e) => e.type === "status")).toEqual([
      {
        type: "status",
        status: "STOPPED",
        cause: {
          reason: "device_still_linked",
          detail: "no connection to the network within 200 ms; remove it on the phone (Linked devices)",
        },
      },
    ]);

    const store2 = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store2);
    const r2 = await rig({ store: store2, logoutTimeoutMs: 200 });
    await r2.session.start();
    await r2.session.logout();
    expect(r2.sockets.every((s) => s.ws.isClosed)).toBe(true);
    expect(await store2.readCreds()).toBeNull();
    expect(statuses(r2.events).at(-1)).toBe("STOPPED:device_still_linked");
  });

  it("passkeys are not supported by Baileys: 501 with a Portuguese message", async () => {
    const r = await rig();
    const calls = [
      () => r.session.passkeyChallenge(),
      () =>
        r.session.submitPasskey({
          id: "x",
          rawId: "eA",
          type: "public-key",
          response: { authenticatorData: "AA", clientDataJSON: "AA", signature: "AA" },
        }),
      () => r.session.passkeyConfirmation(),
      () => r.session.confirmPasskey(),
    ];
    for (const call of calls) {
      const err = await apiError(call());
      expect(err.code).toBe("not_supported");
      expect(err.status).toBe(501);
      expect(err.message).toMatch(/passkey não é suportado/);
    }
  });
});

describe("Baileys provider factory and helpers", () => {
  it("baileysProvider makes Baileys sessions; the version comes from BAILEYS_VERSION", () => {
    expect(parseBaileysVersion("2,3000,1023223821")).toEqual([2, 3000, 1023223821]);
    expect(parseBaileysVersion(undefined)).toBeUndefined();
    expect(parseBaileysVersion("2.3000")).toBeUndefined();
    const ctx = {
      instance: instanceFor("iabcdefgh1"),
      podId: "pod-a",
      auth: null as unknown as AuthStateStore,
      rawMessages: memoryRawMessages(),
      log: createLogger("silent"),
      identity: memoryIdentity(),
      records: memoryRecords(),
      emit: () => {},
    };
    expect(baileysProvider(ctx).provider).toBe("baileys");
    expect(createBaileysProvider({ version: [2, 3000, 5] })(ctx).provider).toBe("baileys");
  });

  it("browser tuple from the instance settings", () => {
    expect(browserFromSettings(instanceFor("iabcdefgh1"))).toEqual(["Loja Centro", "Firefox", "1.0.0"]);
    expect(browserFromSettings(instanceFor("iabcdefgh1", { browserName: "Android", deviceName: "" }))).toEqual([
      "Messaging Gateway",
      "Chrome",
      "1.0.0",
    ]);
  });
});

describe("Baileys session: messaging", () => {
  const CONTACT = "5511988887777";
  const CHAT = `${CONTACT}@c.us`;
  const CHAT_JID = `${CONTACT}@s.whatsapp.net`;
  const GROUP = "120363012345678901@g.us";
  const text = { type: "text", text: "oi" } as const;

  /** A paired session whose real socket is open towards our silent endpoint. */
  async function openRig(opts: Parameters<typeof rig>[0] = {}) {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store, ...opts });
    await r.session.start();
    await ready(r);
    r.sock().ev.emit("connection.update", { connection: "open" });
    return r;
  }

  const allCalls = (s: ProviderSession) => [
    () => s.send(CHAT, text),
    () => s.checkExists(CONTACT),
    () => s.markRead(CHAT, ["3A1B2C3D4E5F60718293"]),
    () => s.presence("composing", CHAT),
  ];

  it("every call needs an open connection: answered at once, never a hang (422 stopped, 503 while connecting)", async () => {
    // Baileys' timeouts far above the bound below: a call that waited for the network (a query,
    // the handshake) instead of answering at once would take 30 s, not a few.
    const r = await rig({ queryTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
    const check = async (code: string) => {
      for (const call of allCalls(r.session)) {
        const t = Date.now();
        expect((await apiError(call())).code).toBe(code);
        expect(Date.now() - t).toBeLessThan(NO_WAIT_MS);
      }
    };
    await check("instance_not_connected"); // never started
    await r.session.start();
    await ready(r);
    await check("network_unavailable"); // a real socket that never opened: connecting, transient
    await r.session.stop();
    await check("instance_not_connected"); // stopped
  });

  it("send: the call Baileys gets, and the answer (network id, @c.us chat, seconds)", async () => {
    const r = await openRig();
    const sock = r.sock();
    const sendMessage = vi.spyOn(sock, "sendMessage");
    const before = suite.net.framesReceived();
    const t0 = Math.floor(Date.now() / 1000);
    const result = await r.session.send(
      CHAT,
      { type: "text", text: "oi @5511977776666" },
      { id: "3EB0AAAABBBBCCCCDDDD01", mentions: ["5511977776666@c.us"] },
    );
    expect(sendMessage).toHaveBeenCalledWith(
      CHAT_JID,
      { text: "oi @5511977776666", mentions: ["5511977776666@s.whatsapp.net"] },
      { messageId: "3EB0AAAABBBBCCCCDDDD01" },
    );
    // Baileys' device queries go unanswered here; it still relays the stanza to our endpoint.
    expect(result).toEqual({ id: "3EB0AAAABBBBCCCCDDDD01", chatId: CHAT, timestamp: expect.any(Number) });
    expect(result.timestamp).toBeGreaterThanOrEqual(t0);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before));

    // nothing reaches Baileys for what cannot be sent faithfully
    sendMessage.mockClear();
    const quote = await apiError(r.session.send(CHAT, text, { quotedId: `false_${CHAT}_3A00` }));
    expect(quote.details).toEqual({ reply_to: "mensagem não encontrada" });
    const vote = await apiError(
      r.session.send(CHAT, { type: "poll_vote", pollId: `false_${CHAT}_3A00`, votes: ["a"] }),
    );
    // A vote needs the poll as stored (its secret): unknown here.
    expect(vote.code).toBe("validation_error");
    expect(vote.details).toHaveProperty("pollMessageId");
    expect((await apiError(r.session.send("bogus", text))).details).toHaveProperty("chatId");
    expect(sendMessage).not.toHaveBeenCalled();
  });

  it("send: the sent message is kept for Baileys' retries (getMessage), quotes by bare id and votes on our poll", async () => {
    const r = await openRig(); // the session's own store of raw messages, no lookup of the test's
    const sock = r.sock();
    const sent = await r.session.send(CHAT, { type: "text", text: "guardada" });
    // Baileys asks getMessage when the recipient's device requests a retry: the content is there.
    const retry = await r.configs[0]!.getMessage?.({ remoteJid: CHAT_JID, fromMe: true, id: sent.id });
    expect(JSON.stringify(retry)).toContain("guardada");

    const sendMessage = vi.spyOn(sock, "sendMessage");
    await r.session.send(CHAT, { type: "text", text: "citando" }, { quotedId: sent.id });
    const quoted = (sendMessage.mock.calls[0]?.[2] as { quoted?: WAMessage } | undefined)?.quoted;
    expect(quoted?.key).toMatchObject({ id: sent.id, fromMe: true });

    // A vote on our own poll is encrypted with the poll's secret, which only the kept message has.
    const poll = await r.session.send(CHAT, {
      type: "poll",
      name: "Sim?",
      options: ["sim", "não"],
      multipleAnswers: false,
    });
    const relay = vi.spyOn(sock, "relayMessage");
    const vote = await r.session.send(CHAT, { type: "poll_vote", pollId: poll.id, votes: ["sim"] });
    expect(vote.chatId).toBe(CHAT);
    expect(relay).toHaveBeenCalledTimes(1);
    const relayed = relay.mock.calls[0]![1] as { pollUpdateMessage?: { pollCreationMessageKey?: { id?: string } } };
    expect(relayed.pollUpdateMessage?.pollCreationMessageKey?.id).toBe(poll.id);
  });

  it("send: a quote comes from the session's message lookup (also Baileys' getMessage)", async () => {
    const stored: WAMessage = {
      key: { remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" },
      message: { conversation: "pergunta" },
    };
    const asked: WAMessageKey[] = [];
    const r = await openRig({
      loadMessage: async (key) => {
        asked.push(key);
        return key.id === stored.key.id ? stored : undefined;
      },
    });
    expect(await r.configs[0]!.getMessage?.(stored.key)).toEqual({ conversation: "pergunta" });
    const sendMessage = vi.spyOn(r.sock(), "sendMessage");
    await r.session.send(CHAT, { type: "text", text: "resposta" }, { quotedId: `false_${CHAT}_3A0000000000000000AB` });
    expect(sendMessage.mock.calls[0]?.[2]).toEqual({ quoted: stored });
    expect(asked.at(-1)).toEqual({ remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" });
  });

  it("send with mentions 'all': participants read once and cached; dropped when the group changes", async () => {
    const r = await openRig();
    const sock = r.sock();
    const groupMetadata = vi.spyOn(sock, "groupMetadata");
    // The real query goes unanswered here: a timeout.
    expect((await apiError(r.session.send(GROUP, text, { mentions: ["all"] }))).code).toBe("network_timeout");
    expect(groupMetadata).toHaveBeenCalledWith(GROUP);

    // The network's answer, for the caching: us (PN and LID) and two others.
    groupMetadata.mockResolvedValue({
      id: GROUP,
      subject: "Equipe",
      owner: undefined,
      participants: [
        { id: "5511999999999@s.whatsapp.net" },
        { id: "123456789@lid" },
        { id: "222233334444555@lid" },
        { id: CHAT_JID },
      ],
    });
    groupMetadata.mockClear();
    const sendMessage = vi.spyOn(sock, "sendMessage");
    for (let i = 0; i < 2; i++) {
      // Baileys' relay takes the same metadata (cachedGroupMetadata): no query of its own.
      expect((await r.session.send(GROUP, text, { mentions: ["all"] })).chatId).toBe(GROUP);
    }
    expect(groupMetadata).toHaveBeenCalledTimes(1);
    expect(sendMessage.mock.calls[0]?.[1]).toEqual({ text: "oi", mentions: ["222233334444555@lid", CHAT_JID] });
    sock.ev.emit("group-participants.update", {
      id: GROUP,
      author: "5511999999999@s.whatsapp.net",
      participants: [],
      action: "add",
    });
    // The event itself asks for the group's name once (the groups area names the group in its event).
    await vi.waitFor(() => expect(groupMetadata).toHaveBeenCalledTimes(2));
    await r.session.send(GROUP, text, { mentions: ["all"] });
    // The group's metadata was dropped with the change: the send reads it again.
    expect(groupMetadata).toHaveBeenCalledTimes(3);
  });

  it("checkExists: onWhatsApp with the number, then its ninth-digit form; LID from the mapping store", async () => {
    const r = await openRig();
    const sock = r.sock();
    const onWhatsApp = vi.spyOn(sock, "onWhatsApp");
    // unanswered query: a timeout, not "does not exist"
    expect((await apiError(r.session.checkExists("+55 11 98888-7777"))).code).toBe("network_timeout");
    expect(onWhatsApp).toHaveBeenCalledWith("5511988887777");

    // The network's answers: registered in the old 8-digit form only.
    onWhatsApp.mockReset();
    onWhatsApp.mockImplementation(async (n) =>
      n === "551188887777" ? [{ jid: `${n}@s.whatsapp.net`, exists: true }] : [],
    );
    // a real mapping in the session's own key store (Baileys' LID mapping store over our Redis)
    await sock.signalRepository.lidMapping.storeLIDPNMappings([
      { lid: "222233334444555@lid", pn: "551188887777@s.whatsapp.net" },
    ]);
    expect(await r.session.checkExists("5511988887777")).toEqual({
      exists: true,
      chatId: "551188887777@c.us",
      lid: "222233334444555@lid",
    });
    expect(onWhatsApp.mock.calls).toEqual([["5511988887777"], ["551188887777"]]);

    onWhatsApp.mockClear();
    expect(await r.session.checkExists("5511933334444")).toEqual({ exists: false, chatId: null, lid: null });
    expect(onWhatsApp.mock.calls).toEqual([["5511933334444"]]); // no ninth-digit form for it
    expect((await apiError(r.session.checkExists("12"))).details).toHaveProperty("phone");
    expect((await apiError(r.session.checkExists("123456789012345@lid"))).code).toBe("validation_error");
  });

  it("markRead: read receipts for others' messages, keys from chat and ids; unanswered = timeout", async () => {
    const r = await openRig();
    const readMessages = vi.spyOn(r.sock(), "readMessages");
    const err = await apiError(
      r.session.markRead(CHAT, ["3A1B2C3D4E5F60718293", `true_${CHAT}_3EB0AB`, `false_${CHAT}_3A99`]),
    );
    // readMessages asks for our privacy settings first; nobody answers here
    expect(err.code).toBe("network_timeout");
    expect(readMessages).toHaveBeenCalledWith([
      { remoteJid: CHAT_JID, id: "3A1B2C3D4E5F60718293", fromMe: false },
      { remoteJid: CHAT_JID, fromMe: false, id: "3A99" },
    ]);
    readMessages.mockClear();
    await expect(
      r.session.markRead(GROUP, [`false_${GROUP}_3A77_5511977776666@c.us`]).catch((e: ApiError) => e.code),
    ).resolves.toBe("network_timeout");
    expect(readMessages).toHaveBeenCalledWith([
      { remoteJid: GROUP, fromMe: false, id: "3A77", participant: "5511977776666@s.whatsapp.net" },
    ]);
    // a bare id in a group does not say whose it was; own messages alone: nothing to send
    readMessages.mockClear();
    expect((await apiError(r.session.markRead(GROUP, ["3A77"]))).details).toHaveProperty("messageIds");
    await r.session.markRead(CHAT, [`true_${CHAT}_3EB0AB`]);
    expect(readMessages).not.toHaveBeenCalled();
  });

  it("presence: chat states to the chat, online/offline for the account (needs the push name)", async () => {
    const r = await openRig();
    const sock = r.sock();
    const sendPresenceUpdate = vi.spyOn(sock, "sendPresenceUpdate");
    const before = suite.net.framesReceived();
    await r.session.presence("composing", CHAT);
    await r.session.presence("recording", GROUP);
    await r.session.presence("paused", CHAT);
    await r.session.presence("available");
    await r.session.presence("unavailable", CHAT);
    expect(sendPresenceUpdate.mock.calls).toEqual([
      ["composing", CHAT_JID],
      ["recording", GROUP],
      ["paused", CHAT_JID],
      ["available", undefined],
      ["unavailable", undefined],
    ]);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThanOrEqual(before + 5));
    expect((await apiError(r.session.presence("composing"))).details).toHaveProperty("chatId");
    sock.authState.creds.me = { ...sock.authState.creds.me!, name: "" };
    expect((await apiError(r.session.presence("available"))).code).toBe("bad_request");
  });

  it("a call in flight answers 503 network_unavailable as soon as the connection drops (was 422)", async () => {
    // The query would otherwise wait out its 30 s timeout (Baileys' end() drops its listeners).
    const r = await openRig({ queryTimeoutMs: 30_000 });
    const before = suite.net.framesReceived();
    const pending = r.session.checkExists(CONTACT).catch((e: unknown) => e);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before)); // the query went out
    const t = Date.now();
    await r.sock().end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    const err = await pending;
    expect(err).toBeInstanceOf(ApiError);
    // Nothing reached the network: transient, repeat after Retry-After (contracts failures.ts).
    expect(err).toMatchObject({ code: "network_unavailable", status: 503, retryAfter: 2 });
    expect(Date.now() - t).toBeLessThan(NO_WAIT_MS);
  });

  it("a send in flight when the connection drops answers network_timeout: it may have left (not 'not sent')", async () => {
    const r = await openRig({ queryTimeoutMs: 30_000 });
    const sock = r.sock();
    let started = false;
    // The stanza is on its way; the network's answer never comes back on this socket.
    vi.spyOn(sock, "sendMessage").mockImplementation(() => {
      started = true;
      return new Promise(() => {});
    });
    const pending = r.session.send(CHAT, { type: "text", text: "no ar" }).catch((e: unknown) => e);
    await waitFor(() => expect(started).toBe(true));
    await sock.end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    const err = await pending;
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("network_timeout");
  });
});

function memoryRawMessages() {
  const m = new Map<string, string>();
  return {
    save: async (id: string, raw: string) => {
      m.set(id, raw);
    },
    load: async (id: string) => m.get(id) ?? null,
  };
}
