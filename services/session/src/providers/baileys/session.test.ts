import type { AuthStateStore } from "@gw/platform";
import { createLogger } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { baileysProvider, createBaileysProvider, parseBaileysVersion } from "./index.ts";
import { browserFromSettings } from "./session.ts";
import { silentSuite } from "./test/paired-rig.ts";
import { instanceFor, ready, type SessionRigOptions, sessionRig, sleep, statuses } from "./test/session-rig.ts";
import {
  apiError,
  memoryIdentity,
  memoryRawMessages,
  memoryRecords,
  storePairedCreds,
  waitFor,
} from "./test/testing.ts";

/**
 * The session's own routes (session.ts: account, capping, timelock, logout, passkeys) on real
 * Baileys sockets towards a silent local endpoint (test/session-rig.ts), and the provider's
 * factory (index.ts). The connection, pairing and messaging have tests of their own
 * (connection/, outbound/messaging.test.ts).
 */

const suite = silentSuite();
const rig = (opts: SessionRigOptions = {}) => sessionRig(suite, opts);

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
