import type { AddressInfo } from "node:net";
import { type AuthStateStore, createLogger } from "@gw/platform";
import {
  type BinaryNode,
  getBinaryNodeChild,
  makeWASocket,
  type UserFacingSocketConfig,
  type WASocket,
} from "@whiskeysockets/baileys";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocketServer } from "ws";
import type { ProviderEvent, ProviderSession } from "../../contract.ts";
import { createBaileysSession } from "../session.ts";
import { decodeSentFrames } from "../test/area-rig.ts";
import { silentSuite } from "../test/paired-rig.ts";
import {
  Boom,
  baileysInstance,
  memoryIdentity,
  memoryRecords,
  PAIRED_ME,
  storePairedCreds,
  waitFor,
} from "../test/testing.ts";

/**
 * Logout of a paired session that is not connected, on real Baileys sockets: they connect to a
 * local endpoint that never completes the noise handshake, so what they send travels unencrypted
 * and is decoded here. The connection opening is the socket's own `connection.update`, emitted.
 */

const suite = silentSuite();
// Each test reads only the frames its own sockets sent.
beforeEach(() => {
  suite.net.frames.length = 0;
});

/** The `iq` stanzas the sockets sent (the handshake's ClientHello is not one). */
const sentIqs = () => decodeSentFrames(suite.net.frames, ["iq"]);

const removeCompanion = (n: BinaryNode) => getBinaryNodeChild(n, "remove-companion-device");

interface Rig {
  session: ProviderSession;
  store: AuthStateStore;
  events: ProviderEvent[];
  sockets: WASocket[];
  /** The session's warnings (its Baileys logger's `warn`). */
  warn: ReturnType<typeof vi.fn>;
}

/** A paired session (creds stored) whose sockets go to `socketUrl`. */
async function pairedRig(opts: { logoutTimeoutMs: number; socketUrl?: string }): Promise<Rig> {
  const store = await suite.h.storeFor(suite.h.newInstanceId());
  await storePairedCreds(store);
  const events: ProviderEvent[] = [];
  const sockets: WASocket[] = [];
  // The session's logger (baileysLogger: a child of ctx.log) with its warnings counted; Baileys'
  // own loggers, its children, stay silent.
  const log = createLogger("silent");
  const child = log.child({});
  child.level = "warn";
  const warn = vi.fn();
  child.warn = warn as unknown as typeof child.warn;
  child.child = (() => createLogger("silent")) as unknown as typeof child.child;
  log.child = (() => child) as unknown as typeof log.child;
  const session = createBaileysSession(
    {
      instance: baileysInstance(store.instanceId),
      podId: "pod-a",
      auth: store,
      rawMessages: { save: async () => {}, load: async () => null },
      log,
      identity: memoryIdentity(),
      records: memoryRecords(),
      emit: (e) => events.push(e),
    },
    {
      version: [2, 3000, 1],
      logoutTimeoutMs: opts.logoutTimeoutMs,
      makeSocket: (config: UserFacingSocketConfig) => {
        const sock = makeWASocket({
          ...config,
          waWebSocketUrl: opts.socketUrl ?? suite.net.url,
          connectTimeoutMs: 60_000,
          defaultQueryTimeoutMs: 30_000,
        });
        sockets.push(sock);
        return sock;
      },
    },
  );
  suite.cleanups.push(() => session.stop());
  return { session, store, events, sockets, warn };
}

const stillLinked = (events: ProviderEvent[]) =>
  events.filter((e) => e.type === "status" && e.cause?.reason === "device_still_linked");

describe("Baileys logout while not connected", () => {
  it("paired, connection not open: logout connects a socket of its own and, once open, removes this device on the network, then wipes", async () => {
    const r = await pairedRig({ logoutTimeoutMs: 10_000 });
    await r.session.start();
    await waitFor(() => expect(r.sockets[0]?.ws.isOpen).toBe(true)); // handshaking, never open
    const done = r.session.logout();
    await waitFor(() => expect(r.sockets[1]?.ws.isOpen).toBe(true));
    // Never two sockets: the one that never opened was ended first.
    expect(r.sockets[0]!.ws.isClosed).toBe(true);
    expect((await sentIqs()).filter(removeCompanion)).toHaveLength(0);

    r.sockets[1]!.ev.emit("connection.update", { connection: "open" });
    await done;
    const removal = (await sentIqs()).filter(removeCompanion);
    expect(removal).toHaveLength(1);
    expect(removal[0]!.attrs).toMatchObject({ xmlns: "md", type: "set", to: "@s.whatsapp.net" });
    expect(removeCompanion(removal[0]!)!.attrs).toEqual({ jid: PAIRED_ME.id, reason: "user_initiated" });
    await waitFor(() => expect(r.sockets[1]!.ws.isClosed).toBe(true));
    expect(await r.store.readCreds()).toBeNull();
    // Unlinked on the network: nothing for the operator to do on the phone.
    expect(stillLinked(r.events)).toEqual([]);
    expect(r.warn).not.toHaveBeenCalled();
    expect(r.sockets).toHaveLength(2);
  });

  it("never started (a held instance not connected): the same, on a socket made for the logout", async () => {
    const r = await pairedRig({ logoutTimeoutMs: 10_000 });
    const done = r.session.logout();
    await waitFor(() => expect(r.sockets[0]?.ws.isOpen).toBe(true));
    r.sockets[0]!.ev.emit("connection.update", { connection: "open" });
    await done;
    expect((await sentIqs()).filter(removeCompanion)).toHaveLength(1);
    expect(await r.store.readCreds()).toBeNull();
    expect(stillLinked(r.events)).toEqual([]);
  });

  it("the network unreachable within the budget: wiped here only; a warning and the STOPPED status say the phone must remove the device", async () => {
    // Our endpoint never completes the handshake: the connection never opens.
    const r = await pairedRig({ logoutTimeoutMs: 300 });
    await r.session.start();
    await waitFor(() => expect(r.sockets[0]?.ws.isOpen).toBe(true));
    const t = Date.now();
    await r.session.logout();
    expect(Date.now() - t).toBeLessThan(5_000);
    expect(await r.store.readCreds()).toBeNull();
    expect((await sentIqs()).filter(removeCompanion)).toHaveLength(0);
    expect(r.sockets.every((s) => s.ws.isClosed)).toBe(true);
    expect(stillLinked(r.events)).toEqual([
      {
        type: "status",
        status: "STOPPED",
        cause: {
          reason: "device_still_linked",
          detail: "no connection to the network within 300 ms; remove it on the phone (Linked devices)",
        },
      },
    ]);
    expect(r.warn).toHaveBeenCalledWith(
      { why: "no connection to the network within 300 ms" },
      expect.stringMatching(/could not be removed on the network/),
    );
  });

  it("the connection refused: reported at once, not after the budget", async () => {
    const closed = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => closed.once("listening", () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await pairedRig({ logoutTimeoutMs: 10_000, socketUrl: `ws://127.0.0.1:${port}/ws/chat` });
    const t = Date.now();
    await r.session.logout();
    expect(Date.now() - t).toBeLessThan(5_000);
    expect(await r.store.readCreds()).toBeNull();
    const reported = stillLinked(r.events);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({
      status: "STOPPED",
      cause: { detail: expect.stringMatching(/connection failed/) },
    });
  });

  it("refused as logged out on connect (the phone removed it meanwhile): wiped, nothing left to report", async () => {
    const r = await pairedRig({ logoutTimeoutMs: 10_000 });
    const done = r.session.logout();
    await waitFor(() => expect(r.sockets[0]?.ws.isOpen).toBe(true));
    // `<failure reason=401>` / `device_removed`: Baileys ends the socket with 401.
    await r.sockets[0]!.end(new Boom("Connection Failure", { statusCode: 401 }));
    await done;
    expect(await r.store.readCreds()).toBeNull();
    expect(stillLinked(r.events)).toEqual([]);
  });
});
