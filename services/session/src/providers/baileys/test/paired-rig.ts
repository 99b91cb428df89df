// Test support (imported only by *.test.ts and area-rig.ts): paired Baileys sessions on real
// sockets against a silent local endpoint, the set-up the inbound, outbound, status and area
// tests share.
import { createLogger } from "@gw/platform";
import { makeWASocket, type UserFacingSocketConfig, type WASocket } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import type { ProviderEvent, ProviderSession } from "../../contract.ts";
import { createBaileysSession } from "../session.ts";
import {
  baileysInstance,
  memoryIdentity,
  memoryRawMessages,
  memoryRecords,
  type RedisHarness,
  redisHarness,
  type SilentNetwork,
  silentNetwork,
  storePairedCreds,
} from "./testing.ts";

/** A suite's Redis harness and silent endpoint, and what to close after each test (hooks registered here). */
export interface SilentSuite {
  readonly h: RedisHarness;
  readonly net: SilentNetwork;
  readonly cleanups: (() => Promise<void>)[];
}

export function silentSuite(): SilentSuite {
  const suite = { cleanups: [] as (() => Promise<void>)[] } as {
    h: RedisHarness;
    net: SilentNetwork;
    cleanups: (() => Promise<void>)[];
  };
  beforeAll(async () => {
    suite.h = await redisHarness();
    suite.net = await silentNetwork();
  });
  afterEach(async () => {
    for (const c of suite.cleanups.splice(0)) await c();
  });
  afterAll(async () => {
    await suite.net?.close();
    await suite.h?.close();
  });
  return suite;
}

export interface Paired {
  session: ProviderSession;
  sock: WASocket;
  events: ProviderEvent[];
  /** The raw messages the session kept (id → stored form). */
  raw: Map<string, string>;
  /** lid → phone the identity helpers know (a test may seed it). */
  known: Map<string, string>;
  /** The provider's records (name → field → value), as `ctx.records` wrote them. */
  records: Map<string, Map<string, string>>;
}

/** Where a paired session's sockets go, how long they wait, and where its stop is queued. */
export interface PairedOptions {
  h: RedisHarness;
  /** The silent endpoint's URL (`waWebSocketUrl`). */
  url: string;
  /** Run after the test (the session's stop is pushed here). */
  cleanups: (() => Promise<void>)[];
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/**
 * A paired session on a real socket, its connection open and the offline backlog flushed (as
 * `ib offline` would): what the network says is emitted on `sock.ev` by the test.
 */
export async function openPairedSession(opts: PairedOptions): Promise<Paired> {
  const store = await opts.h.storeFor(opts.h.newInstanceId());
  await storePairedCreds(store);
  const events: ProviderEvent[] = [];
  const sockets: WASocket[] = [];
  const raw = new Map<string, string>();
  const known = new Map<string, string>();
  const records = new Map<string, Map<string, string>>();
  const session = createBaileysSession(
    {
      instance: baileysInstance(store.instanceId),
      podId: "pod-a",
      auth: store,
      rawMessages: memoryRawMessages(raw),
      log: createLogger("silent"),
      identity: memoryIdentity(known),
      records: memoryRecords(records),
      emit: (e) => events.push(e),
    },
    {
      version: [2, 3000, 1],
      makeSocket: (config: UserFacingSocketConfig) => {
        const sock = makeWASocket({
          ...config,
          waWebSocketUrl: opts.url,
          connectTimeoutMs: opts.connectTimeoutMs,
          defaultQueryTimeoutMs: opts.queryTimeoutMs,
        });
        sockets.push(sock);
        return sock;
      },
    },
  );
  opts.cleanups.push(() => session.stop());
  await session.start();
  await vi.waitFor(() => expect(sockets[0]?.ws.isOpen).toBe(true), { timeout: 10_000 });
  const sock = sockets[0]!;
  sock.ev.emit("connection.update", { connection: "open" });
  // A registered session buffers events until the offline backlog is in (`ib offline`): flush as that would.
  sock.ev.flush();
  return { session, sock, events, raw, known, records };
}

/** {@link openPairedSession} in a {@link silentSuite}: Baileys' queries time out after 300 ms. */
export function openPaired(suite: SilentSuite, opts: { connectTimeoutMs?: number } = {}): Promise<Paired> {
  return openPairedSession({
    h: suite.h,
    url: suite.net.url,
    cleanups: suite.cleanups,
    connectTimeoutMs: opts.connectTimeoutMs ?? 60_000,
    queryTimeoutMs: 300,
  });
}
