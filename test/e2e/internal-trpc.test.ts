// The internal port: the same procedures over tRPC for other services (shared secret), the
// Prometheus metrics; and the health probes. None of it is reachable on the public port.
import { createInternalClient } from "@gw/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson, tokenHeaders } from "../support/e2e-helpers.ts";
import { INTERNAL_SECRET, startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

type ErrorData = {
  code?: string;
  httpStatus?: number;
  api?: { code: string; message: string; details?: Record<string, string> };
};

type ClientError = Error & { data: ErrorData };

/** The TRPCClientError a call fails with (@trpc/client is not a dependency of the tests). */
async function trpcError(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (err) {
    expect((err as Error).name).toBe("TRPCClientError");
    return err as ClientError;
  }
  throw new Error("the call succeeded");
}

const client = () => createInternalClient({ url: gw.internalUrl, secret: INTERNAL_SECRET, service: "test" });

describe("internal tRPC", () => {
  it("reads an instance and creates one as a trusted service", async () => {
    const { id } = await gw.createInstance({ name: "made over REST" });
    const internal = client();
    const read = await internal.instances.get.query({ instanceId: id });
    expect(read.instance.id).toBe(id);
    expect(read.instance.name).toBe("made over REST");

    const created = await internal.admin.instances.create.mutate({ name: "made over tRPC", kind: "official" });
    expect(created.instance.provider).toBe("cloud");
    expect(created.instance.billingStatus).toBe("trialing");
    // The token it returned works on the public REST edge.
    const viaRest = await expectJson(
      await gw.request(`/v1/instances/${created.instance.id}`, { headers: tokenHeaders(created.token) }),
    );
    expect(viaRest.instance).toEqual(created.instance);
  });

  it("batches several calls and updates settings", async () => {
    const { id } = await gw.createInstance();
    const internal = client();
    const [a, b] = await Promise.all([
      internal.instances.updateSettings.mutate({ instanceId: id, ignore: { groups: true } }),
      internal.admin.instances.get.query({ instanceId: id }),
    ]);
    expect(a.instance.settings.ignore.groups).toBe(true);
    expect(b.instance.id).toBe(id);
  });

  it("a wrong secret is refused (UNAUTHORIZED)", async () => {
    const { id } = await gw.createInstance();
    const bad = createInternalClient({ url: gw.internalUrl, secret: "wrong-secret-0123456789", service: "test" });
    const err = await trpcError(bad.instances.get.query({ instanceId: id }));
    expect(err.data?.code).toBe("UNAUTHORIZED");
    expect(err.data?.httpStatus).toBe(401);
    const err2 = await trpcError(bad.admin.instances.create.mutate({ name: "x", kind: "standard" }));
    expect(err2.data?.code).toBe("UNAUTHORIZED");

    // Without the secret header at all.
    const res = await fetch(
      `${gw.internalUrl}/trpc/instances.get?input=${encodeURIComponent(JSON.stringify({ instanceId: id }))}`,
    );
    expect(res.status).toBe(401);
  });

  it("errors carry the public error code in data.api", async () => {
    const internal = client();
    let err = await trpcError(internal.instances.get.query({ instanceId: "i0000000000000000000000000" }));
    expect(err.data.api?.code).toBe("not_found");
    expect(err.data.api?.message).toBeTruthy();
    // The tRPC code and status follow the public error, so internal metrics count a 404 as 404.
    expect(err.data.code).toBe("NOT_FOUND");
    expect(err.data.httpStatus).toBe(404);

    const { id } = await gw.createInstance();
    await expectJson(await gw.admin("PUT", `/v1/admin/instances/${id}/billing`, { billingStatus: "suspended" }));
    err = await trpcError(internal.instances.updateSettings.mutate({ instanceId: id, ignore: { groups: true } }));
    expect(err.data.api?.code).toBe("payment_required");
    expect(err.data.httpStatus).toBe(402);
  });

  it("validation errors carry validation_error with details in data.api, as on REST", async () => {
    const { id } = await gw.createInstance();
    const err = await trpcError(
      client().instances.updateSettings.mutate({ instanceId: id, client: { deviceName: "x".repeat(41) } }),
    );
    expect(err.data.code).toBe("UNPROCESSABLE_CONTENT");
    expect(err.data.httpStatus).toBe(422);
    expect(err.data.api?.code).toBe("validation_error");
    expect(err.data.api?.details?.deviceName).toBeTruthy();
  });

  it("the public port does not serve /trpc", async () => {
    const { id } = await gw.createInstance();
    const input = encodeURIComponent(JSON.stringify({ instanceId: id }));
    await expectError(
      await gw.request(`/trpc/instances.get?input=${input}`, { headers: { "x-internal-secret": INTERNAL_SECRET } }),
      404,
      "not_found",
    );
    await expectError(
      await gw.request("/trpc/admin.instances.create", {
        method: "POST",
        headers: { "x-internal-secret": INTERNAL_SECRET },
        json: { name: "x", kind: "standard" },
      }),
      404,
      "not_found",
    );
    const viaPublic = createInternalClient({ url: gw.url, secret: INTERNAL_SECRET, service: "test" });
    const err = await trpcError(viaPublic.instances.get.query({ instanceId: id }));
    expect(err.data?.code ?? err.message).not.toBe(undefined);
    expect(err.data?.api).toBeUndefined();
  });
});

describe("metrics", () => {
  it("GET {internal}/metrics is Prometheus text with request counts by route template", async () => {
    const { id, token } = await gw.createInstance();
    expect((await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })).status).toBe(200);
    await (await gw.request("/v1/nope")).arrayBuffer();

    const res = await fetch(`${gw.internalUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain("# TYPE gateway_http_requests_total counter");
    const line = text
      .split("\n")
      .find(
        (l) =>
          l.startsWith("gateway_http_requests_total{") &&
          l.includes('route="/v1/instances/:instanceId"') &&
          l.includes('method="GET"') &&
          l.includes('status="200"'),
      );
    expect(line, text).toBeDefined();
    expect(Number(line!.split(" ").pop())).toBeGreaterThanOrEqual(1);
    expect(text).toContain('route="/v1/admin/instances"');
    expect(text).toContain("gateway_http_request_duration_seconds_bucket");
    // Raw URLs never become labels.
    expect(text).not.toContain(id);
    expect(text).not.toContain("/v1/nope");
  });

  it("is not served on the public port", async () => {
    await expectError(await gw.request("/metrics"), 404, "not_found");
  });
});

describe("health", () => {
  it("/healthz and /readyz answer 200 on the public port", async () => {
    expect(await expectJson(await gw.request("/healthz"))).toEqual({ status: "ok" });
    const ready = await expectJson(await gw.request("/readyz"));
    expect(ready).toEqual({ status: "ready", checks: { redis: "ok", temporal: "ok" } });
  });

  it("and on the internal port", async () => {
    expect((await fetch(`${gw.internalUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${gw.internalUrl}/readyz`)).status).toBe(200);
  });
});
