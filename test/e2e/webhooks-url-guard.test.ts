// With private targets not allowed (the production default), webhook URLs that point inside
// are refused with 400 url_not_allowed when saved (spec 4.13). Every range and trick is covered
// by services/platform/src/url-guard.test.ts; this proves the route applies it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE: "false" });
});
afterAll(() => gw?.close());

it.each([
  "http://127.0.0.1/hook",
  "http://localhost/hook",
  "http://2130706433/hook",
  "http://0x7f.1/hook",
  "http://[::1]/hook",
  "http://[::ffff:10.0.0.1]/hook",
  "http://169.254.169.254/latest/meta-data",
  "http://100.64.0.1/hook",
  "http://192.168.1.10/hook",
  "https://93.184.216.34:8443/hook",
  "http://user:pass@93.184.216.34/hook",
  "ftp://93.184.216.34/hook",
])("refuses %s", async (url) => {
  const { id, token } = await gw.createInstance();
  const res = await gw.request(`/v1/instances/${id}/webhooks`, {
    method: "POST",
    headers: { "x-instance-token": token },
    json: { url, events: ["*"] },
  });
  const body = (await res.json()) as { error: { code: string; details?: Record<string, string> } };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.error.code).toBe("url_not_allowed");
  expect(body.error.details?.url).toBeTruthy();
});

it("also on PATCH", async () => {
  const { id, token } = await gw.createInstance();
  const created = await gw.request(`/v1/instances/${id}/webhooks`, {
    method: "POST",
    headers: { "x-instance-token": token },
    json: { url: "https://93.184.216.34/hook", events: ["*"] },
  });
  expect(created.status).toBe(201);
  const hook = (await created.json()) as { id: string };
  const res = await gw.request(`/v1/instances/${id}/webhooks/${hook.id}`, {
    method: "PATCH",
    headers: { "x-instance-token": token },
    json: { url: "http://10.0.0.5/hook" },
  });
  expect(res.status).toBe(400);
});
