// Spec section 8 at the edge: the 1 MB JSON body limit (1 MiB = 1,048,576 bytes, exact
// boundary, declared and chunked bodies) and the per-instance rate limit of 20/s, bursts of 40.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson, rawRequest, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

const LIMIT = 1_048_576;
const RATE = 20;
const BURST = 40;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

/** A settings patch padded with an unknown string field to exactly `size` bytes. */
function paddedBody(size: number, deviceName = "padded"): string {
  const head = `{"client":{"deviceName":"${deviceName}"},"padding":"`;
  const tail = `"}`;
  const body = head + "x".repeat(size - head.length - tail.length) + tail;
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

/**
 * Sends concurrent rounds of `round` requests until a round gets a 429 (at most `max` requests in
 * all). The bucket refills at RATE/s, so on a slow machine one round may be served entirely by
 * the burst plus the refill; the next rounds still find it empty. Answers every response and
 * the seconds from the first send to the last answer.
 */
async function sendUntilLimited(send: () => Promise<Response>, round: number, max = 600) {
  const responses: Response[] = [];
  const started = performance.now();
  while (responses.length < max && !responses.some((r) => r.status === 429)) {
    responses.push(...(await Promise.all(Array.from({ length: round }, () => send()))));
  }
  return { responses, elapsed: (performance.now() - started) / 1000 };
}

describe("JSON body limit", () => {
  it("the configured limit is 1,048,576 bytes", () => {
    expect(gw.config.JSON_BODY_LIMIT).toBe(LIMIT);
  });

  it("a body of exactly 1,048,576 bytes is accepted", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(`/v1/instances/${id}/settings`, {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: paddedBody(LIMIT, "at the limit"),
    });
    const body = await expectJson(res);
    expect(body.instance.settings.client.deviceName).toBe("at the limit");
  });

  it("a body of 1,048,577 bytes → 413 payload_too_large, nothing applied", async () => {
    const { id, token } = await gw.createInstance();
    const res = await gw.request(`/v1/instances/${id}/settings`, {
      method: "PATCH",
      headers: tokenHeaders(token, { "content-type": "application/json" }),
      body: paddedBody(LIMIT + 1, "over the limit"),
    });
    expect(res.headers.get("x-request-id")).toBeTruthy();
    await expectError(res, 413, "payload_too_large");
    const after = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    expect(after.instance.settings.client.deviceName).toBe("Messaging Gateway");
  });

  it("admin routes have the same limit", async () => {
    const res = await gw.request("/v1/admin/instances", {
      method: "POST",
      headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
      body: paddedBody(LIMIT + 1),
    });
    await expectError(res, 413, "payload_too_large");
  });

  it("a chunked body (no Content-Length) above the limit → 413 payload_too_large", async () => {
    const { id, token } = await gw.createInstance();
    const body = Buffer.from(paddedBody(LIMIT + 64 * 1024, "chunked"));
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += 16 * 1024) chunks.push(body.subarray(i, i + 16 * 1024));
    const res = await rawRequest(`${gw.url}/v1/instances/${id}/settings`, {
      method: "PATCH",
      headers: { ...tokenHeaders(token), "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks,
    });
    expect(res.status).toBe(413);
    expect(String(res.headers["content-type"])).toMatch(/^application\/json\b/);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "payload_too_large" } });
    expect(Object.keys(JSON.parse(res.body).error).sort()).toEqual(["code", "message"]);

    const after = await expectJson(await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }));
    expect(after.instance.settings.client.deviceName).toBe("Messaging Gateway");
  });

  it("a chunked body within the limit is accepted", async () => {
    const { id, token } = await gw.createInstance();
    const body = Buffer.from(paddedBody(LIMIT, "chunked ok"));
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += 64 * 1024) chunks.push(body.subarray(i, i + 64 * 1024));
    const res = await rawRequest(`${gw.url}/v1/instances/${id}/settings`, {
      method: "PATCH",
      headers: { ...tokenHeaders(token), "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks,
    });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).instance.settings.client.deviceName).toBe("chunked ok");
  });
});

describe("rate limit (in process)", () => {
  it("60 concurrent GETs: the burst passes, the excess gets 429 rate_limited with Retry-After", async () => {
    const { id, token } = await gw.createInstance();
    const other = await gw.createInstance();

    // Rounds of 60 until one is refused: the burst and the refill cover at most
    // BURST + RATE × elapsed of them, whatever the machine's speed.
    const { responses, elapsed } = await sendUntilLimited(
      () => gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }),
      60,
    );

    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(responses.length);
    expect(ok.length).toBeGreaterThanOrEqual(BURST);
    expect(ok.length).toBeLessThanOrEqual(BURST + RATE * elapsed + 2);
    expect(limited.length).toBeGreaterThan(0);
    for (const res of limited) {
      const retryAfter = res.headers.get("retry-after");
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      await expectError(res, 429, "rate_limited");
    }
    for (const res of ok) await res.arrayBuffer();

    // Another instance has its own bucket.
    const others = await Promise.all(
      Array.from({ length: 10 }, () => gw.request(`/v1/instances/${other.id}`, { headers: tokenHeaders(other.token) })),
    );
    expect(others.map((r) => r.status)).toEqual(Array(10).fill(200));
  });

  it("the limit covers every route of the instance, PATCH included", async () => {
    const { id, token } = await gw.createInstance();
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 2
          ? gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })
          : gw.request(`/v1/instances/${id}/settings`, { method: "PATCH", headers: tokenHeaders(token), json: {} }),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const ok = responses.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(BURST);
    expect(ok).toBeLessThanOrEqual(BURST + RATE * elapsed + 2);
    expect(responses.filter((r) => r.status === 429).length).toBe(60 - ok);
  });

  it("requests with a wrong token do not consume the instance's budget", async () => {
    const { id, token } = await gw.createInstance();
    const wrong = await Promise.all(
      Array.from({ length: 100 }, () => gw.request(`/v1/instances/${id}`, { headers: tokenHeaders("gwt_wrong") })),
    );
    for (const res of wrong) await expectError(res, 401, "invalid_token");

    // The whole burst is still there.
    const valid = await Promise.all(
      Array.from({ length: BURST }, () => gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })),
    );
    expect(valid.map((r) => r.status)).toEqual(Array(BURST).fill(200));
  });

  it("the bucket refills: after the Retry-After wait the instance is served again", async () => {
    const { id, token } = await gw.createInstance();
    const { responses: burst } = await sendUntilLimited(
      () => gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) }),
      BURST + 10,
    );
    const limited = burst.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    for (const res of burst) if (res !== limited) await res.arrayBuffer();
    const wait = Number(limited!.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, wait * 1000));
    expect((await gw.request(`/v1/instances/${id}`, { headers: tokenHeaders(token) })).status).toBe(200);
  });
});

describe("file body limit (send routes that carry file.data)", () => {
  const FILE_LIMIT = 70 * 1_048_576;
  /** An image send whose base64 `file.data` pads the body to exactly `size` bytes. */
  const imageBody = (size: number) => {
    const head = '{"phone":"5511999990000","file":{"mimetype":"image/png","data":"';
    const tail = '"}}';
    return head + "A".repeat(size - head.length - tail.length) + tail;
  };

  it("the configured limit is 70 MiB", () => {
    expect(gw.config.FILE_BODY_LIMIT).toBe(FILE_LIMIT);
  });

  it("a body of exactly 70 MiB is read (answered by what follows: this instance is not connected); one byte more → 413", async () => {
    const { id, token } = await gw.createInstance();
    const post = (body: string) =>
      gw.request(`/v1/instances/${id}/messages/image`, {
        method: "POST",
        headers: tokenHeaders(token, { "content-type": "application/json" }),
        body,
      });
    await expectError(await post(imageBody(FILE_LIMIT)), 422, "instance_not_connected");
    await expectError(await post(imageBody(FILE_LIMIT + 1)), 413, "payload_too_large");
  }, 60_000);
});
