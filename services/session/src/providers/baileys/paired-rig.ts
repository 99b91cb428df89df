// Test support (imported only by *.test.ts next to it): paired Baileys sessions on real sockets
// against a silent local endpoint, the set-up the inbound and status tests share.
import { createLogger } from "@gw/platform";
import { makeWASocket, proto, type UserFacingSocketConfig, type WASocket } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import type { ProviderEvent, ProviderSession } from "../contract.ts";
import { useRedisAuthState } from "./auth-state.ts";
import { createBaileysSession } from "./session.ts";
import {
  baileysInstance,
  memoryIdentity,
  memoryRecords,
  type RedisHarness,
  redisHarness,
  type SilentNetwork,
  silentNetwork,
} from "./testing.ts";

/** The paired account of these sessions. */
export const PAIRED_ME = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };

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
}

/**
 * A paired session on a real socket, its connection open and the offline backlog flushed (as
 * `ib offline` would): what the network says is emitted on `sock.ev` by the test.
 */
export async function openPaired(suite: SilentSuite, opts: { connectTimeoutMs?: number } = {}): Promise<Paired> {
  const store = await suite.h.storeFor(suite.h.newInstanceId());
  const auth = await useRedisAuthState(store);
  auth.state.creds.me = { ...PAIRED_ME };
  auth.state.creds.account = proto.ADVSignedDeviceIdentity.fromObject({ details: Buffer.from("d") });
  await auth.saveCreds();
  const events: ProviderEvent[] = [];
  const raw = new Map<string, string>();
  const sockets: WASocket[] = [];
  const session = createBaileysSession(
    {
      instance: baileysInstance(store.instanceId),
      podId: "pod-a",
      auth: store,
      rawMessages: { save: async (id, value) => void raw.set(id, value), load: async (id) => raw.get(id) ?? null },
      log: createLogger("silent"),
      identity: memoryIdentity(),
      records: memoryRecords(),
      emit: (e) => events.push(e),
    },
    {
      version: [2, 3000, 1],
      makeSocket: (config: UserFacingSocketConfig) => {
        const sock = makeWASocket({
          ...config,
          waWebSocketUrl: suite.net.url,
          connectTimeoutMs: opts.connectTimeoutMs ?? 60_000,
          defaultQueryTimeoutMs: 300,
        });
        sockets.push(sock);
        return sock;
      },
    },
  );
  suite.cleanups.push(() => session.stop());
  await session.start();
  await vi.waitFor(() => expect(sockets[0]?.ws.isOpen).toBe(true), { timeout: 10_000 });
  const sock = sockets[0]!;
  sock.ev.emit("connection.update", { connection: "open" });
  sock.ev.flush();
  return { session, sock, events, raw };
}
