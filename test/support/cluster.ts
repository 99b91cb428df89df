// A whole gateway in one process for end-to-end tests: simnet, a session pod and the gateway,
// on real Redis and real HTTP/WebSocket, each on an ephemeral port.

import type { EventEnvelope } from "@gw/contracts";
import { buildGateway, type Gateway } from "@gw/gateway";
import { createLogger, createPlatform, loadConfig, type Platform } from "@gw/platform";
import { type SessionRole, startSessionRole } from "@gw/session";
import { createSimnet, type Simnet } from "@gw/simnet";
import { startWorkerRole, type WorkerRole } from "@gw/worker";
import { expect } from "vitest";
import { ADMIN_TOKEN, testEnv } from "./gateway.ts";
import { scanShownQr } from "./qr.ts";

export const AUTH_STATE_KEY = Buffer.alloc(32, 7).toString("base64");

export interface Cluster {
  url: string;
  simnetUrl: string;
  platform: Platform;
  gateway: Gateway;
  session?: SessionRole;
  worker?: WorkerRole;
  simnet: Simnet;
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  admin(method: string, path: string, json?: unknown): Promise<Response>;
  /** The simnet control API. */
  sim(method: string, path: string, json?: unknown): Promise<Response>;
  createInstance(body?: Record<string, unknown>): Promise<{ id: string; token: string }>;
  /** A client bound to one instance's token. */
  as(token: string): (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
  waitForStatus(id: string, status: string, timeoutMs?: number): Promise<void>;
  /** The statuses of the instance's session.status events, oldest first. */
  statuses(id: string): Promise<string[]>;
  /**
   * Polls the session.status events published after the first `from` until `done` holds for
   * their statuses; returns those statuses. For states that may be short-lived, or that the
   * stored status already showed before a change began (a restart, a handover).
   */
  waitForStatuses(id: string, from: number, done: (after: string[]) => boolean, timeoutMs?: number): Promise<string[]>;
  /** Pairs a started instance by scanning its QR from `phone`. */
  pair(id: string, phone: string): Promise<void>;
  events(instanceId: string, kind?: string): Promise<EventEnvelope[]>;
  close(): Promise<void>;
}

export async function startCluster(
  opts: {
    env?: Record<string, string>;
    session?: boolean;
    /** The worker role (dispatcher + Temporal worker) with a shortened retry schedule. */
    worker?: { retryScheduleMs: number[] };
    simnet?: Partial<Parameters<typeof createSimnet>[0]>;
  } = {},
): Promise<Cluster> {
  const simnet = createSimnet({
    port: 0,
    adminToken: ADMIN_TOKEN,
    qrIntervalMs: 400,
    // A QR shown for 40 s before the connection gives up (qr_timeout): pairing on a slow machine
    // never races it. Tests of the expiry pass their own qrLimit.
    qrLimit: 100,
    logLevel: "silent",
    ...opts.simnet,
  });
  const simnetUrl = await simnet.listen();
  const config = loadConfig(
    testEnv({
      SIMNET_URL: simnetUrl.replace(/^http/, "ws"),
      AUTH_STATE_KEY,
      LEASE_TTL_MS: "3000",
      SESSION_PORT: "0",
      OWNER_WAIT_MS: "1500",
      TEMPORAL_TASK_QUEUE: `test-${Math.random().toString(36).slice(2)}`,
      ...opts.env,
    }),
  );
  const platform = await createPlatform(config);
  const log = createLogger("silent");
  const session = opts.session === false ? undefined : await startSessionRole(config, platform, log);
  const worker = opts.worker
    ? await startWorkerRole(config, platform, log, { retryScheduleMs: opts.worker.retryScheduleMs })
    : undefined;
  const gateway = await buildGateway(config, platform, { localSession: session?.manager });
  const { publicUrl: url } = await gateway.listen();

  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, headers, ...rest } = init;
    const h = new Headers(headers);
    if (json !== undefined) h.set("content-type", "application/json");
    return fetch(url + path, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const admin = (method: string, path: string, json?: unknown) => request(path, { method, json, headers: bearer });
  const sim = (method: string, path: string, json?: unknown) =>
    fetch(simnetUrl + path, {
      method,
      headers: { ...bearer, ...(json !== undefined ? { "content-type": "application/json" } : {}) },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
  const readStatus = async (id: string) => {
    const res = await admin("GET", `/v1/admin/instances/${id}`);
    return ((await res.json()) as { instance: { connectionStatus: string } }).instance.connectionStatus;
  };

  const cluster: Cluster = {
    url,
    simnetUrl,
    platform,
    gateway,
    session,
    worker,
    simnet,
    request,
    admin,
    sim,
    async createInstance(body = {}) {
      const res = await admin("POST", "/v1/admin/instances", {
        name: "e2e",
        kind: "standard",
        provider: "sim",
        ...body,
      });
      const out = (await res.json()) as { instance: { id: string }; token: string };
      expect(res.status, JSON.stringify(out)).toBe(201);
      return { id: out.instance.id, token: out.token };
    },
    as:
      (token) =>
      (path, init = {}) =>
        request(path, { ...init, headers: { ...init.headers, "x-instance-token": token } }),
    async waitForStatus(id, status, timeoutMs = 10_000) {
      // A status is stored just before its session.status event is published: both are waited
      // for, so that a test reading the events next finds this one.
      const announced = async () => {
        const last = (await cluster.statuses(id)).at(-1);
        return last === undefined || last === status;
      };
      const until = Date.now() + timeoutMs;
      let last = "";
      while (Date.now() < until) {
        last = await readStatus(id);
        if (last === status && (await announced())) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`instance ${id} stayed ${last}, expected ${status}`);
    },
    async statuses(id) {
      return (await cluster.events(id, "session.status")).map((e) => (e.payload as { status: string }).status);
    },
    async waitForStatuses(id, from, done, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      let after = (await cluster.statuses(id)).slice(from);
      while (!done(after)) {
        if (Date.now() > until) {
          throw new Error(`instance ${id}: session.status after #${from} stayed ${JSON.stringify(after)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
        after = (await cluster.statuses(id)).slice(from);
      }
      return after;
    },
    async pair(id, phone) {
      await cluster.waitForStatus(id, "SCAN_QR_CODE");
      await scanShownQr(simnetUrl, id, phone);
      await cluster.waitForStatus(id, "WORKING");
    },
    async events(instanceId, kind) {
      const all = await platform.events.history(instanceId);
      return all.filter((e) => !kind || e.event === kind);
    },
    async close() {
      await gateway.close();
      // The session pod and worker the cluster has now (a test may have replaced them).
      await cluster.session?.close();
      await cluster.worker?.close();
      await simnet.close();
      await platform.close();
    },
  };
  return cluster;
}
