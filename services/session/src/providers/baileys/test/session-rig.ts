// Test support (imported only by *.test.ts): a Baileys session not yet started, its sockets
// Baileys' own pointed at a silent local endpoint and recorded with their configs; the set-up of
// the session, connection, pairing and messaging tests.
import { type AuthStateStore, createLogger } from "@gw/platform";
import { makeWASocket, type UserFacingSocketConfig, type WASocket } from "@whiskeysockets/baileys";
import { expect } from "vitest";
import type { ProviderEvent, ProviderSession } from "../../contract.ts";
import { type BaileysSessionOptions, createBaileysSession } from "../session.ts";
import type { SilentSuite } from "./paired-rig.ts";
import { baileysInstance, memoryIdentity, memoryRawMessages, memoryRecords, waitFor } from "./testing.ts";

/**
 * The provider at its boundary with real Baileys sockets: `makeWASocket` connects to a WebSocket
 * server on 127.0.0.1 that accepts the connection and never answers the noise handshake. What
 * the network would say is driven through the socket's own event emitter (`sock.ev.emit`) and
 * its own `end(error)`, which emits `connection.update` close exactly as on a real disconnect.
 */
export interface SessionRig {
  session: ProviderSession;
  store: AuthStateStore;
  events: ProviderEvent[];
  sockets: WASocket[];
  configs: UserFacingSocketConfig[];
  /** For each socket: were all earlier sockets already closed when it was created? */
  earlierClosed: boolean[];
  sock(i?: number): WASocket;
}

export type SessionRigOptions = BaileysSessionOptions & {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  store?: AuthStateStore;
};

/** A Baileys instance whose settings name the device (browser tuple `["Loja Centro", "Firefox", …]`). */
export const instanceFor = (id: string, client = { browserName: "Firefox", deviceName: "Loja Centro" }) =>
  baileysInstance(id, client);

/** A session (not started) on a new instance of the suite, or on `opts.store`; stopped after the test. */
export async function sessionRig(suite: SilentSuite, opts: SessionRigOptions = {}): Promise<SessionRig> {
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

/** The statuses emitted, in order (`STATUS:reason` when a cause came with it). */
export const statuses = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === "status" ? [e.cause ? `${e.status}:${e.cause.reason}` : e.status] : []));

/** The latest socket announced `connecting` and its WebSocket to our endpoint is open. */
export async function ready(r: SessionRig) {
  await waitFor(() => {
    expect(statuses(r.events).at(-1)).toBe("STARTING");
    expect(r.sock().ws.isOpen).toBe(true);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
