// Spec 1, transport rule 2: server-to-server only, no CORS on purpose. No response may carry
// an `access-control-*` header, whatever the Origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corsHeaders, expectError, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let instance: { id: string; token: string };
beforeAll(async () => {
  gw = await startGateway();
  instance = await gw.createInstance();
});
afterAll(() => gw?.close());

const origin = { origin: "https://evil.example" };

describe("no CORS", () => {
  it("a successful GET with an Origin", async () => {
    const res = await gw.request(`/v1/instances/${instance.id}`, { headers: tokenHeaders(instance.token, origin) });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
  });

  it("a successful PATCH with an Origin", async () => {
    const res = await gw.request(`/v1/instances/${instance.id}/settings`, {
      method: "PATCH",
      headers: tokenHeaders(instance.token, origin),
      json: { ignore: { status: true } },
    });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
  });

  it("error responses with an Origin", async () => {
    for (const res of [
      await gw.request(`/v1/instances/${instance.id}`, { headers: origin }),
      await gw.request(`/v1/instances/${instance.id}`, { headers: tokenHeaders("gwt_wrong", origin) }),
      await gw.request("/v1/nope", { headers: origin }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(corsHeaders(res)).toEqual([]);
      await res.arrayBuffer();
    }
  });

  it("OPTIONS preflights are not answered with CORS", async () => {
    for (const path of [
      `/v1/instances/${instance.id}`,
      `/v1/instances/${instance.id}/settings`,
      "/v1/admin/instances",
      "/v1/openapi.json",
    ]) {
      const res = await gw.request(path, {
        method: "OPTIONS",
        headers: {
          ...origin,
          "access-control-request-method": "PATCH",
          "access-control-request-headers": "x-instance-token, content-type",
        },
      });
      expect(corsHeaders(res), path).toEqual([]);
      expect(res.status).toBeGreaterThanOrEqual(400);
      // OPTIONS is declared on no path: 405 with Allow (test/e2e/methods.test.ts), never a preflight.
      expect(res.headers.get("allow"), path).toMatch(/^[A-Z, ]+$/);
      await expectError(res, 405, "bad_request");
    }
  });

  it("docs, OpenAPI and health", async () => {
    for (const path of ["/v1/openapi.json", "/docs", "/healthz", "/readyz"]) {
      const res = await gw.request(path, { headers: origin });
      expect(res.status, path).toBe(200);
      expect(corsHeaders(res), path).toEqual([]);
      await res.arrayBuffer();
    }
  });
});
