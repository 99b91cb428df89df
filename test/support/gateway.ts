// Boots a real gateway (real Redis Stack, real HTTP on an ephemeral port) for one test file.
import { randomBytes } from "node:crypto";
import { buildGateway, type Gateway } from "@gw/gateway";
import { type Config, createPlatform, loadConfig, type Platform } from "@gw/platform";
import { inject } from "vitest";

export const ADMIN_TOKEN = "test-admin-token";
export const INTERNAL_SECRET = "test-internal-secret-0123456789";

export interface TestGateway {
  url: string;
  internalUrl: string;
  config: Config;
  platform: Platform;
  gateway: Gateway;
  /** Fetch against the public server. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  admin(method: string, path: string, json?: unknown): Promise<Response>;
  createInstance(body?: Record<string, unknown>): Promise<{ id: string; token: string; accountId: string }>;
  close(): Promise<void>;
}

/** A key prefix of its own keeps each test file's data apart on the shared Redis. */
export const uniquePrefix = () => `t${randomBytes(5).toString("hex")}:`;

export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "test",
    REDIS_URL: inject("redisUrl"),
    TEMPORAL_ADDRESS: inject("temporalAddress"),
    ADMIN_TOKEN,
    INTERNAL_SECRET,
    KEY_PREFIX: uniquePrefix(),
    PORT: "0",
    INTERNAL_PORT: "0",
    WORKER_PORT: "0",
    LOG_LEVEL: "silent",
    ENABLE_SIM_PROVIDER: "true",
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE: "true",
    // The run's own temporary directory (global-setup.ts); S3 tests override MEDIA_STORE.
    MEDIA_DIR: inject("mediaDir"),
    // The whole suite on a sharded keyspace (docs/architecture.md "Sharding the keyspace"): new
    // instances alternate between the shards.
    ...(process.env.TEST_REDIS_SHARDS ? { REDIS_SHARDS: process.env.TEST_REDIS_SHARDS } : {}),
    ...overrides,
  };
}

export async function startGateway(overrides: Record<string, string> = {}): Promise<TestGateway> {
  const config = loadConfig(testEnv(overrides));
  const platform = await createPlatform(config);
  const gateway = await buildGateway(config, platform);
  const { publicUrl: url, internalUrl } = await gateway.listen();

  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, headers, ...rest } = init;
    const h = new Headers(headers);
    if (json !== undefined) h.set("content-type", "application/json");
    return fetch(url + path, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  const admin = (method: string, path: string, json?: unknown) =>
    request(path, { method, json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  return {
    url,
    internalUrl,
    config,
    platform,
    gateway,
    request,
    admin,
    async createInstance(body = {}) {
      const res = await admin("POST", "/v1/admin/instances", { name: "test", kind: "standard", ...body });
      if (res.status !== 201) throw new Error(`createInstance: ${res.status} ${await res.text()}`);
      const out = (await res.json()) as { instance: { id: string; accountId: string }; token: string };
      return { id: out.instance.id, token: out.token, accountId: out.instance.accountId };
    },
    async close() {
      await gateway.close();
      await platform.close();
    },
  };
}

/**
 * Two gateways sharing one Redis key prefix, as two replicas of one deployment. Started one
 * after the other: concurrent boots on a fresh prefix race on the index creation (see
 * startup-race.test.ts, which tests that race on purpose).
 */
export async function startReplicaPair(overrides: Record<string, string> = {}) {
  const KEY_PREFIX = uniquePrefix();
  const gw = await startGateway({ ...overrides, KEY_PREFIX });
  const replica = await startGateway({ ...overrides, KEY_PREFIX });
  return { gw, replica, close: () => Promise.all([gw.close(), replica.close()]) };
}
