// Test support for the Baileys provider's tests (imported only by *.test.ts and the other rigs
// of this folder): Baileys' own Boom, a Redis harness, a silent local network, the paired account
// and its stored creds, in-memory stand-ins for the provider context, and small assertions the
// test files share.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { ApiError, DEFAULT_SETTINGS, type Instance, type Settings } from "@gw/contracts";
import { AuthStateStore, createPlatform, loadConfig, type Platform, Sealer } from "@gw/platform";
import { instanceRecord } from "@gw/test/instance";
import { proto } from "@whiskeysockets/baileys";
import { expect, inject, vi } from "vitest";
import { WebSocketServer } from "ws";
import { useRedisAuthState } from "../connection/auth-state.ts";

/**
 * `@hapi/boom`'s Boom, loaded from where Baileys itself resolves it (it is Baileys' dependency,
 * not ours), so the errors under test are built exactly the way Baileys builds them.
 */
export interface BoomError extends Error {
  isBoom: true;
  output: { statusCode: number };
  data: unknown;
}
export type BoomConstructor = new (message?: string, options?: { statusCode?: number; data?: unknown }) => BoomError;

const requireHere = createRequire(import.meta.url);
const baileysEntry = requireHere.resolve("@whiskeysockets/baileys");
export const Boom: BoomConstructor = (createRequire(baileysEntry)("@hapi/boom") as { Boom: BoomConstructor }).Boom;

export interface RedisHarness {
  platform: Platform;
  sealer: Sealer;
  /** A new instance id (never used before in this run). */
  newInstanceId(): string;
  /** Takes the lease for `podId` and answers a store fenced by its epoch. */
  storeFor(instanceId: string, podId?: string): Promise<AuthStateStore>;
  /** Another store object for the same instance and epoch (a "restart" of the store). */
  reopen(store: AuthStateStore): AuthStateStore;
  close(): Promise<void>;
}

/** The harness pattern of test/support/gateway.ts, minimal: real Redis, a key prefix of its own. */
export async function redisHarness(): Promise<RedisHarness> {
  const config = loadConfig({
    NODE_ENV: "test",
    REDIS_URL: inject("redisUrl"),
    TEMPORAL_ADDRESS: inject("temporalAddress"),
    ADMIN_TOKEN: "test-admin-token",
    INTERNAL_SECRET: "test-internal-secret-0123456789",
    KEY_PREFIX: `t${randomBytes(5).toString("hex")}:`,
    LOG_LEVEL: "silent",
    // Required by the platform config since the webhooks work; unused by these tests.
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  });
  const platform = await createPlatform(config);
  const sealer = new Sealer(randomBytes(32).toString("base64"));
  return {
    platform,
    sealer,
    newInstanceId: () => `i${randomBytes(8).toString("hex")}`,
    async storeFor(instanceId, podId = "pod-a") {
      const epoch = await platform.leases.acquire(instanceId, podId);
      if (epoch === null) throw new Error(`lease of ${instanceId} is held by another pod`);
      return new AuthStateStore(platform.redis, platform.keys, sealer, instanceId, epoch);
    },
    reopen(store) {
      return new AuthStateStore(platform.redis, platform.keys, sealer, store.instanceId, store.epoch);
    },
    close: () => platform.close(),
  };
}

/** Binary-exact canonical form: every Buffer/Uint8Array becomes `bin:<hex>`, keys sorted. */
export function canonical(value: unknown): unknown {
  if (value instanceof Uint8Array) return `bin:${Buffer.from(value).toString("hex")}`;
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v);
    }
    return out;
  }
  return value;
}

/**
 * A WebSocket server on 127.0.0.1 where `makeWASocket` connects (`waWebSocketUrl: url`): it
 * accepts the connection and never answers the noise handshake, and counts the frames it gets.
 * Before the handshake completes what a socket sends travels unencrypted: the frames are kept
 * (`frames`, for area-rig.ts `decodeSentFrames`; a test may empty it).
 */
export interface SilentNetwork {
  url: string;
  framesReceived(): number;
  /** The frames received (each as sent), until the test empties the array. */
  readonly frames: Buffer[];
  close(): Promise<void>;
}

export async function silentNetwork(): Promise<SilentNetwork> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  let count = 0;
  const frames: Buffer[] = [];
  wss.on("connection", (c) =>
    c.on("message", (data: Buffer) => {
      count++;
      frames.push(Buffer.from(data));
    }),
  );
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws/chat`,
    framesReceived: () => count,
    frames,
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** A standard, paid, stopped Baileys instance record (its settings the defaults unless given). */
export function baileysInstance(id: string, client?: Settings["client"]): Instance {
  return instanceRecord({
    id,
    provider: "baileys",
    settings: { ...DEFAULT_SETTINGS, ...(client ? { client } : {}) },
  });
}

/** A provider context's identity helpers over a map (lid → phone), for tests. */
export function memoryIdentity(known = new Map<string, string>()) {
  return {
    rewrite: async (id: string) => {
      const phone = id.endsWith("@lid") ? known.get(id) : undefined;
      return phone ? `${phone}@c.us` : id;
    },
    lidOf: async (phone: string) => [...known].find(([, p]) => p === phone)?.[0] ?? null,
    learn: async (lid: string, phone: string) => void known.set(lid, phone),
  };
}

/** A provider context's records over maps, for tests. */
export function memoryRecords(store = new Map<string, Map<string, string>>()) {
  const of = (name: string) => {
    let m = store.get(name);
    if (!m) {
      m = new Map();
      store.set(name, m);
    }
    return m;
  };
  return {
    put: async (name: string, entries: Record<string, string>) => {
      for (const [k, v] of Object.entries(entries)) of(name).set(k, v);
    },
    all: async (name: string) => Object.fromEntries(of(name)),
    get: async (name: string, field: string) => of(name).get(field) ?? null,
    remove: async (name: string, fields: string[]) => {
      for (const f of fields) of(name).delete(f);
    },
  };
}

/** A provider context's raw message store over a map (id → stored form), for tests. */
export function memoryRawMessages(m = new Map<string, string>()) {
  return {
    save: async (id: string, raw: string) => {
      m.set(id, raw);
    },
    load: async (id: string) => m.get(id) ?? null,
  };
}

/** The paired account of the tests' sessions (`creds.me`). */
export const PAIRED_ME = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };

/** Stores creds of a paired device (`me` = PAIRED_ME and a signed identity) under `store`, as after pairing. */
export async function storePairedCreds(store: AuthStateStore): Promise<void> {
  const auth = await useRedisAuthState(store);
  auth.state.creds.me = { ...PAIRED_ME };
  auth.state.creds.account = proto.ADVSignedDeviceIdentity.fromObject({ details: Buffer.from("d") });
  await auth.saveCreds();
}

/**
 * vi.waitFor with a deadline far above a slow machine's scheduling noise (its default is 1 s):
 * what is awaited here comes within milliseconds, or never.
 */
export function waitFor<T>(fn: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(fn, { timeout: 10_000 });
}

/** The ApiError a promise rejects with (asserted to be one). */
export async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** A 1×1 PNG (made here: no binary fixtures). */
export const ONE_PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
