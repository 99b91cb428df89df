// Official-gateway instances end to end: a cluster (gateway, session pod, worker, simnet) plus the
// local operator mock (services/cloudmock), which sends its signed webhooks to the gateway's
// /v1/official/webhook.
import { randomBytes } from "node:crypto";
import { type CloudMock, createCloudMock } from "@gw/cloudmock";
import { expect } from "vitest";
import { type Cluster, startCluster } from "./cluster.ts";
import { ADMIN_TOKEN } from "./gateway.ts";

export const VERIFY_TOKEN = "test-verify-token";

export interface OfficialNumber {
  id: string;
  token: string;
  phoneNumberId: string;
  wabaId: string;
  /** Digits of the business number. */
  phone: string;
  accessToken: string;
  appSecret: string;
}

export interface OfficialRig {
  c: Cluster;
  mock: CloudMock;
  mockUrl: string;
  /** The mock's control API. */
  ctl(method: string, path: string, json?: unknown): Promise<Response>;
  /** A business number on the mock and an official instance running it, WORKING. */
  number(opts?: { start?: boolean; mock?: Record<string, unknown> }): Promise<OfficialNumber>;
  /** A customer writes to the business (opens the 24 h window); answers the mock's `{id, payload}`. */
  inbound(n: OfficialNumber, from: string, message: Record<string, unknown>): Promise<{ id: string; payload: unknown }>;
  close(): Promise<void>;
}

let seq = 0;
const uniqueDigits = (n: number) => `${Date.now()}${process.pid}${++seq}${randomBytes(4).readUInt32BE()}`.slice(-n);

export async function startOfficial(opts: { env?: Record<string, string>; mock?: Record<string, unknown> } = {}) {
  const c = await startCluster({
    worker: { retryScheduleMs: [500, 1_000, 2_000] },
    env: { CLOUD_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN, DISPATCH_CLAIM_IDLE_MS: "1500", ...opts.env },
  });
  const mock = createCloudMock({
    port: 0,
    adminToken: ADMIN_TOKEN,
    logLevel: "silent",
    ackDelayMs: 100,
    templateApprovalMs: 200,
    webhookRetryMs: [200, 500, 1_000, 2_000],
    webhookUrl: `${c.url}/v1/official/webhook`,
    ...opts.mock,
  });
  const mockUrl = await mock.listen();
  const ctl = (method: string, path: string, json?: unknown) =>
    fetch(mockUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(json !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });

  const rig: OfficialRig = {
    c,
    mock,
    mockUrl,
    ctl,
    async number(o = {}) {
      const n = {
        phoneNumberId: `10${uniqueDigits(13)}`,
        wabaId: `20${uniqueDigits(13)}`,
        phone: `5511${uniqueDigits(9)}`,
        accessToken: `EAAG${randomBytes(24).toString("hex")}`,
        appSecret: randomBytes(16).toString("hex"),
      };
      const reg = await ctl("POST", "/mock/numbers", {
        phoneNumberId: n.phoneNumberId,
        wabaId: n.wabaId,
        displayPhoneNumber: n.phone,
        verifiedName: "Loja Exemplo",
        accessToken: n.accessToken,
        appSecret: n.appSecret,
        ...o.mock,
      });
      expect(reg.status, await reg.clone().text()).toBeLessThan(300);
      const created = await c.admin("POST", "/v1/admin/instances", {
        name: "official",
        kind: "official",
        cloud: {
          phoneNumberId: n.phoneNumberId,
          wabaId: n.wabaId,
          accessToken: n.accessToken,
          appSecret: n.appSecret,
          apiBaseUrl: `${mockUrl}/v25.0`,
        },
      });
      const body = (await created.json()) as { instance: { id: string }; token: string };
      expect(created.status, JSON.stringify(body)).toBe(201);
      const out: OfficialNumber = { id: body.instance.id, token: body.token, ...n };
      if (o.start !== false) {
        await c.as(out.token)(`/v1/instances/${out.id}/start`, { method: "POST" });
        await c.waitForStatus(out.id, "WORKING");
      }
      return out;
    },
    async inbound(n, from, message) {
      const res = await ctl("POST", `/mock/numbers/${n.phoneNumberId}/inbound`, { from, ...message });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(300);
      return JSON.parse(text) as { id: string; payload: unknown };
    },
    async close() {
      await c.close();
      await mock.close();
    },
  };
  return rig;
}

/** Polls the instance's history until an event of `kind` satisfies `match`. */
export async function waitForEvent(
  c: Cluster,
  instanceId: string,
  kind: string,
  match: (payload: Record<string, unknown>) => boolean = () => true,
  timeoutMs = 15_000,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await c.events(instanceId, kind)).filter((e) => match(e.payload));
    if (found.length > 0) return found;
    if (Date.now() > until) throw new Error(`no ${kind} event matched within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
