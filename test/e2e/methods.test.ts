// RFC 9110 15.5.6: a method the API does not declare on a path it knows answers
// `405 Method Not Allowed` with `Allow` (the path's methods) and the spec's error body
// (`bad_request`: the spec has no 405 code); an unknown path stays 404. Real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, expectError, rawRequest, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let instance: { id: string; token: string };
beforeAll(async () => {
  gw = await startGateway();
  instance = await gw.createInstance();
});
afterAll(() => gw?.close());

const allowOf = (res: Response) =>
  (res.headers.get("allow") ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();

async function expect405(res: Response, allowed: string[]) {
  expect(allowOf(res)).toEqual([...allowed].sort());
  const body = await expectError(res, 405, "bad_request");
  expect(body.error.message).toMatch(/não permitido/);
}

describe("405 Method Not Allowed", () => {
  it("an undeclared method on an instance route, with the declared methods in Allow", async () => {
    const path = `/v1/instances/${instance.id}/settings`;
    for (const method of ["GET", "POST", "PUT", "DELETE", "OPTIONS"]) {
      const res = await gw.request(path, { method, headers: tokenHeaders(instance.token) });
      await expect405(res, ["PATCH"]);
    }
  });

  it("methods fetch cannot send (TRACE, QUERY), through node:http", async () => {
    for (const method of ["TRACE", "QUERY"]) {
      const res = await rawRequest(`${gw.url}/v1/instances/${instance.id}/settings`, {
        method,
        headers: { "x-instance-token": instance.token },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow, method).toBe("PATCH");
      expect(JSON.parse(res.body).error.code).toBe("bad_request");
    }
  });

  it("comes before credentials and the body: no token, a body that is not JSON", async () => {
    const res = await gw.request(`/v1/instances/${instance.id}/settings`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    await expect405(res, ["PATCH"]);
  });

  it("control plane, docs, health and a POST-only route", async () => {
    await expect405(await gw.request("/v1/admin/instances", { method: "PUT", headers: adminHeaders() }), [
      "GET",
      "HEAD",
      "POST",
    ]);
    await expect405(await gw.request("/v1/openapi.json", { method: "POST" }), ["GET", "HEAD"]);
    await expect405(await gw.request("/healthz", { method: "DELETE" }), ["GET", "HEAD"]);
    await expect405(
      await gw.request(`/v1/instances/${instance.id}/messages/text`, {
        method: "GET",
        headers: tokenHeaders(instance.token),
      }),
      ["POST"],
    );
  });

  it("a fixed path that a parametric route of another method also matches (queue/pause, groups/join)", async () => {
    const headers = tokenHeaders(instance.token);
    // GET and DELETE /queue/{queueId} would take "pause" as a queue id
    // (and OPTIONS, which no route has: Allow names the fixed path's methods only)
    for (const method of ["GET", "DELETE", "OPTIONS"]) {
      await expect405(await gw.request(`/v1/instances/${instance.id}/queue/pause`, { method, headers }), ["POST"]);
    }
    for (const method of ["DELETE", "OPTIONS"]) {
      await expect405(await gw.request(`/v1/instances/${instance.id}/queue/settings`, { method, headers }), [
        "GET",
        "HEAD",
        "PATCH",
      ]);
    }
    for (const method of ["GET", "OPTIONS"]) {
      await expect405(await gw.request(`/v1/instances/${instance.id}/groups/join`, { method, headers }), ["POST"]);
    }
    // the parametric routes themselves still answer
    const queued = await gw.request(`/v1/instances/${instance.id}/queue/q_unknown`, { headers });
    expect(queued.status).not.toBe(405);
    await queued.arrayBuffer();
  });

  it("a trailing slash and a query string do not change the answer", async () => {
    const res = await gw.request(`/v1/instances/${instance.id}/settings/?x=1`, {
      method: "DELETE",
      headers: tokenHeaders(instance.token),
    });
    await expect405(res, ["PATCH"]);
  });

  it("declared methods are unchanged; an unknown path is still 404", async () => {
    const ok = await gw.request(`/v1/instances/${instance.id}`, { headers: tokenHeaders(instance.token) });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const unknown = await gw.request(`/v1/instances/${instance.id}/nothing-here`, {
      method: "DELETE",
      headers: tokenHeaders(instance.token),
    });
    expect(unknown.headers.get("allow")).toBeNull();
    await expectError(unknown, 404, "not_found");
  });
});
