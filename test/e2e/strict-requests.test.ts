// Requests the OpenAPI document forbids are refused, never served as if valid: each case is one
// schemathesis' negative_data_rejection found accepted (`node scripts/fuzz.mjs --quick`), and
// where the server was right the document now says so. Real HTTP.
import { DOC_PATTERNS } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, tokenHeaders } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let instance: { id: string; token: string };
beforeAll(async () => {
  gw = await startGateway();
  instance = await gw.createInstance();
});
afterAll(() => gw?.close());

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  gw.request(`/v1/instances/${instance.id}${path}`, {
    ...init,
    headers: { ...tokenHeaders(instance.token), ...(init.headers as Record<string, string> | undefined) },
  });

describe("a JSON null body is no object", () => {
  it("PATCH settings, queue settings and POST status/delete with `null` → 400 bad_request", async () => {
    for (const [method, path] of [
      ["PATCH", "/settings"],
      ["PATCH", "/queue/settings"],
      ["POST", "/status/delete"],
    ] as const) {
      const res = await api(path, { method, headers: { "content-type": "application/json" }, body: "null" });
      const body = await expectError(res, 400, "bad_request");
      expect(body.error.message, path).toBe("O corpo deve ser um objeto JSON.");
    }
  });

  it("an empty body is still no body (body-less POSTs)", async () => {
    const res = await api("/settings", { method: "PATCH", headers: { "content-type": "application/json" }, body: "" });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});

describe("Idempotency-Key as documented (1 to 255 visible ASCII characters)", () => {
  it("an empty, too long or non-visible key → 422 details.Idempotency-Key, before anything is sent", async () => {
    for (const key of ["", "x".repeat(256), "a b"]) {
      const res = await api("/messages/text", {
        method: "POST",
        json: { phone: "5511999990000", text: "oi" },
        headers: { "idempotency-key": key },
      });
      const body = await expectError(res, 422, "validation_error");
      expect(body.error.details, JSON.stringify(key)).toEqual({
        "Idempotency-Key": "de 1 a 255 caracteres ASCII visíveis",
      });
    }
  });

  it("a valid key passes the check (the send then answers as without one)", async () => {
    const res = await api("/messages/text", {
      method: "POST",
      json: { phone: "5511999990000", text: "oi" },
      headers: { "idempotency-key": "pedido-42" },
    });
    // a created, never started instance: not connected — the key itself was accepted
    const body = await expectError(res, 422, "instance_not_connected");
    expect(body.error.details?.["Idempotency-Key"]).toBeUndefined();
  });
});

describe("query and body fields", () => {
  it("GET /events?kind= (no kind) → 422, not every kind", async () => {
    await expectError(await api("/events?kind="), 422, "validation_error");
    const ok = await api("/events?kind=message");
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it("POST /chats/overview: pagination.offset and limit are JSON numbers (null, text, booleans → 422)", async () => {
    for (const pagination of [{ offset: null }, { offset: "5" }, { offset: true }, { limit: null }, { limit: "10" }]) {
      const res = await api("/chats/overview", { method: "POST", json: { pagination } });
      const body = await expectError(res, 422, "validation_error");
      expect(Object.keys(body.error.details ?? {}).join(), JSON.stringify(pagination)).toMatch(/offset|limit/);
    }
  });
});

describe("the document where the server is right", () => {
  it("chatId/phone of a body admit the empty string (an empty field names nothing: its alias is taken)", async () => {
    expect(new RegExp(DOC_PATTERNS.chatField).test("")).toBe(true);
    expect(new RegExp(DOC_PATTERNS.chatField).test("5511999990000")).toBe(true);
    expect(new RegExp(DOC_PATTERNS.chatField).test("abc")).toBe(false);
    const doc = await (await gw.request("/v1/openapi.json")).text();
    expect(doc).toContain(JSON.stringify(DOC_PATTERNS.chatField));
  });
});
