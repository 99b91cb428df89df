// The published contract: /v1/openapi.json is a valid OpenAPI 3.1 document of every REST
// route with the one error body; `pnpm openapi` prints the same document; /docs serves
// Swagger UI from this process.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { CAPABILITIES, routeKey } from "@gw/contracts";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, ROOT, TSX } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";

type Response = {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string } }>;
};
type Operation = { responses: Record<string, Response> };
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, any>;
    securitySchemes: Record<string, unknown>;
    responses?: Record<string, Response>;
  };
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const EXPECTED: [string, string][] = [
  ["/instances/{instanceId}", "get"],
  ["/instances/{instanceId}/settings", "patch"],
  ["/admin/accounts", "post"],
  ["/admin/accounts", "get"],
  ["/admin/accounts/{accountId}", "get"],
  ["/admin/accounts/{accountId}/client-token", "post"],
  ["/admin/accounts/{accountId}/client-token", "patch"],
  ["/admin/accounts/{accountId}/client-token", "delete"],
  ["/admin/instances", "post"],
  ["/admin/instances/{instanceId}", "patch"],
  ["/admin/instances", "get"],
  ["/admin/instances/{instanceId}", "get"],
  ["/admin/instances/{instanceId}", "delete"],
  ["/admin/instances/{instanceId}/token", "post"],
  ["/admin/instances/{instanceId}/billing", "put"],
  ["/admin/instances/{instanceId}/provisioning", "put"],
  ["/admin/instances/{instanceId}/shard", "post"],
  ["/admin/shards", "get"],
  // Connection and pairing (spec 4.1, 4.2)
  ["/instances/{instanceId}/start", "post"],
  ["/instances/{instanceId}/stop", "post"],
  ["/instances/{instanceId}/restart", "post"],
  ["/instances/{instanceId}/logout", "post"],
  ["/instances/{instanceId}/qr-code", "get"],
  ["/instances/{instanceId}/pairing-code", "post"],
  ["/instances/{instanceId}/passkey/challenge", "get"],
  ["/instances/{instanceId}/passkey", "post"],
  ["/instances/{instanceId}/passkey/confirmation", "get"],
  ["/instances/{instanceId}/passkey/confirm", "post"],
  ["/instances/{instanceId}/me", "get"],
  ["/instances/{instanceId}/capping", "get"],
  ["/instances/{instanceId}/timelock", "get"],
  // Webhooks (spec 4.13) and recent events (4.14)
  ["/instances/{instanceId}/webhooks", "post"],
  ["/instances/{instanceId}/webhooks", "get"],
  ["/instances/{instanceId}/webhooks/{webhookId}", "get"],
  ["/instances/{instanceId}/webhooks/{webhookId}", "patch"],
  ["/instances/{instanceId}/webhooks/{webhookId}", "delete"],
  ["/instances/{instanceId}/webhooks/{webhookId}/rotate-secret", "post"],
  ["/instances/{instanceId}/webhooks/{webhookId}/test", "post"],
  ["/instances/{instanceId}/webhooks/{webhookId}/deliveries", "get"],
  ["/instances/{instanceId}/webhooks/{webhookId}/deliveries/{deliveryId}/retry", "post"],
  ["/instances/{instanceId}/events", "get"],
  ["/admin/webhook-deactivations", "get"],
  // First routes of spec 4.4 / 4.14
  ["/instances/{instanceId}/contacts/check-exists", "get"],
  ["/instances/{instanceId}/messages/new-id", "get"],
  ["/instances/{instanceId}/typing/start", "post"],
  ["/instances/{instanceId}/typing/stop", "post"],
  // Sending (spec 4.4)
  ...[
    "text",
    "image",
    "file",
    "voice",
    "video",
    "sticker",
    "link-preview",
    "list",
    "poll",
    "poll/vote",
    "location",
    "contact-vcard",
    "forward",
    "event",
    "template",
    "buttons",
    "seen",
  ].map((r): [string, string] => [`/instances/{instanceId}/messages/${r}`, "post"]),
  // Official gateway only (spec 4.11, 4.12, and the number's data of 4.14)
  ["/instances/{instanceId}/business-profile", "get"],
  ["/instances/{instanceId}/business-profile", "patch"],
  ["/instances/{instanceId}/business-profile/picture", "put"],
  ["/instances/{instanceId}/phone-number", "get"],
  ["/instances/{instanceId}/templates", "get"],
  ["/instances/{instanceId}/templates", "post"],
  ["/instances/{instanceId}/templates/{name}", "delete"],
  // Groups (spec 4.14)
  ["/instances/{instanceId}/groups", "post"],
  ["/instances/{instanceId}/groups", "get"],
  ["/instances/{instanceId}/groups/count", "get"],
  ["/instances/{instanceId}/groups/join", "post"],
  ["/instances/{instanceId}/groups/invite/{code}", "get"],
  ["/instances/{instanceId}/groups/{groupId}", "get"],
  ["/instances/{instanceId}/groups/{groupId}/leave", "post"],
  ["/instances/{instanceId}/groups/{groupId}/subject", "put"],
  ["/instances/{instanceId}/groups/{groupId}/description", "put"],
  ["/instances/{instanceId}/groups/{groupId}/picture", "put"],
  ["/instances/{instanceId}/groups/{groupId}/picture", "delete"],
  ["/instances/{instanceId}/groups/{groupId}/settings", "get"],
  ["/instances/{instanceId}/groups/{groupId}/settings", "patch"],
  ["/instances/{instanceId}/groups/{groupId}/participants", "get"],
  ["/instances/{instanceId}/groups/{groupId}/participants/add", "post"],
  ["/instances/{instanceId}/groups/{groupId}/participants/remove", "post"],
  ["/instances/{instanceId}/groups/{groupId}/participants/promote", "post"],
  ["/instances/{instanceId}/groups/{groupId}/participants/demote", "post"],
  ["/instances/{instanceId}/groups/{groupId}/invite", "get"],
  ["/instances/{instanceId}/groups/{groupId}/invite/revoke", "post"],
  ["/instances/{instanceId}/groups/{groupId}/requests", "get"],
  ["/instances/{instanceId}/groups/{groupId}/requests/approve", "post"],
  ["/instances/{instanceId}/groups/{groupId}/requests/reject", "post"],
  // LID mappings (spec 4.14)
  ["/instances/{instanceId}/lids", "get"],
  ["/instances/{instanceId}/lids/count", "get"],
  ["/instances/{instanceId}/lids/{lid}", "get"],
  ["/instances/{instanceId}/lids/pn/{phone}", "get"],
  ["/instances/{instanceId}/messages/reaction", "put"],
  // Queue (spec 4.10)
  ["/instances/{instanceId}/queue", "get"],
  ["/instances/{instanceId}/queue", "delete"],
  ["/instances/{instanceId}/queue/settings", "get"],
  ["/instances/{instanceId}/queue/settings", "patch"],
  ["/instances/{instanceId}/queue/pause", "post"],
  ["/instances/{instanceId}/queue/resume", "post"],
  ["/instances/{instanceId}/queue/{queueId}", "get"],
  ["/instances/{instanceId}/queue/{queueId}", "delete"],
  // Chats (spec 4.5)
  ["/instances/{instanceId}/chats", "get"],
  ["/instances/{instanceId}/chats/overview", "get"],
  ["/instances/{instanceId}/chats/overview", "post"],
  ["/instances/{instanceId}/chats/{chatId}/picture", "get"],
  ["/instances/{instanceId}/chats/{chatId}/messages", "get"],
  ["/instances/{instanceId}/chats/{chatId}/messages/read", "post"],
  ["/instances/{instanceId}/chats/{chatId}/messages/{messageId}", "get"],
  ["/instances/{instanceId}/chats/{chatId}/messages/{messageId}", "put"],
  ["/instances/{instanceId}/chats/{chatId}/messages/{messageId}", "delete"],
  ["/instances/{instanceId}/chats/{chatId}/unread", "post"],
  // Status posts (spec 4.8)
  ...["text", "image", "voice", "video", "delete"].map((r): [string, string] => [
    `/instances/{instanceId}/status/${r}`,
    "post",
  ]),
  ["/instances/{instanceId}/status/new-message-id", "get"],
  // Channels (spec 4.6)
  ["/instances/{instanceId}/channels", "get"],
  ["/instances/{instanceId}/channels", "post"],
  ["/instances/{instanceId}/channels/search/by-view", "post"],
  ["/instances/{instanceId}/channels/search/by-text", "post"],
  ["/instances/{instanceId}/channels/search/views", "get"],
  ["/instances/{instanceId}/channels/search/countries", "get"],
  ["/instances/{instanceId}/channels/search/categories", "get"],
  ["/instances/{instanceId}/channels/{channelId}", "get"],
  ["/instances/{instanceId}/channels/{channelId}/messages/preview", "get"],
  ...["follow", "unfollow", "mute", "unmute"].map((r): [string, string] => [
    `/instances/{instanceId}/channels/{channelId}/${r}`,
    "post",
  ]),
  // Calls (spec 4.14)
  ["/instances/{instanceId}/calls/{callId}/reject", "post"],
  // Media (spec 4.14)
  ["/instances/{instanceId}/media/convert/voice", "post"],
  ["/instances/{instanceId}/media/convert/video", "post"],
  // Apps (spec 2.10)
  ["/instances/{instanceId}/apps", "get"],
  ["/instances/{instanceId}/apps", "post"],
  ["/instances/{instanceId}/apps/{appId}", "get"],
  ["/instances/{instanceId}/apps/{appId}", "patch"],
  ["/instances/{instanceId}/apps/{appId}", "delete"],
  // Labels (spec 4.7)
  ["/instances/{instanceId}/labels", "get"],
  ["/instances/{instanceId}/labels", "post"],
  ["/instances/{instanceId}/labels/chats/{chatId}", "get"],
  ["/instances/{instanceId}/labels/chats/{chatId}", "put"],
  ["/instances/{instanceId}/labels/{labelId}", "put"],
  ["/instances/{instanceId}/labels/{labelId}", "delete"],
  ["/instances/{instanceId}/labels/{labelId}/chats", "get"],
  // Profile (spec 4.3) and presence (spec 4.9)
  ["/instances/{instanceId}/profile", "get"],
  ["/instances/{instanceId}/profile/name", "put"],
  ["/instances/{instanceId}/profile/status", "put"],
  ["/instances/{instanceId}/profile/picture", "put"],
  ["/instances/{instanceId}/profile/picture", "delete"],
  ["/instances/{instanceId}/presence", "post"],
  ["/instances/{instanceId}/presence", "get"],
  ["/instances/{instanceId}/presence/{chatId}", "get"],
  ["/instances/{instanceId}/presence/{chatId}/subscribe", "post"],
  // Contacts (spec 4.14; check-exists is listed above)
  ["/instances/{instanceId}/contacts", "get"],
  ["/instances/{instanceId}/contacts/count", "get"],
  ["/instances/{instanceId}/contacts/blocklist", "get"],
  ["/instances/{instanceId}/contacts/{contactId}", "get"],
  ["/instances/{instanceId}/contacts/{contactId}/picture", "get"],
  ["/instances/{instanceId}/contacts/{contactId}/about", "get"],
  ["/instances/{instanceId}/contacts/{contactId}/block", "post"],
  ["/instances/{instanceId}/contacts/{contactId}/unblock", "post"],
];

let gw: TestGateway;
let doc: Doc;
beforeAll(async () => {
  gw = await startGateway();
  doc = await expectJson<Doc>(await gw.request("/v1/openapi.json"));
});
afterAll(() => gw?.close());

/** A response, through its `$ref` to the shared ones (components.responses). */
const resolved = (response: Response | undefined): Response | undefined =>
  response?.$ref ? doc.components.responses?.[response.$ref.replace("#/components/responses/", "")] : response;

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ path, method, op })),
  );

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const v = new Validator();
    const r = await v.validate(doc as unknown as Record<string, unknown>);
    expect(r.errors ?? []).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it("documents every route", () => {
    for (const [path, method] of EXPECTED) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    expect(operations()).toHaveLength(EXPECTED.length);
  });

  it("the capability table names exactly the instance routes, and each documents who serves it", () => {
    const routes = operations()
      .filter(({ path }) => path.startsWith("/instances/{instanceId}"))
      .map(({ path, method }) => routeKey(method, path)!);
    expect(new Set(routes)).toEqual(new Set(Object.keys(CAPABILITIES)));
    for (const { path, method, op } of operations()) {
      if (!path.startsWith("/instances/{instanceId}")) continue;
      expect((op as { description?: string }).description ?? "", `${method} ${path}`).toContain("**Instance kinds**");
      expect((op as { "x-capabilities"?: unknown })["x-capabilities"], `${method} ${path}`).toBeDefined();
    }
    // The 501 of a kind that lacks a route is documented with it.
    expect(doc.paths["/instances/{instanceId}/templates"]!.get!.responses["501"]).toBeDefined();
    expect(doc.paths["/instances/{instanceId}/qr-code"]!.get!.responses["501"]).toBeDefined();
  });

  it("docs/capabilities.md is the capability table as generated (pnpm --silent capabilities)", async () => {
    const { capabilitiesMarkdown } = await import("../../services/gateway/src/docs/capabilities.ts");
    expect(await readFile(`${ROOT}docs/capabilities.md`, "utf8")).toBe(capabilitiesMarkdown());
  });

  it("every operation has error responses referencing #/components/schemas/Error", () => {
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.schemas.Error.properties.error.required).toEqual(expect.arrayContaining(["code", "message"]));
    for (const { path, method, op } of operations()) {
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        expect(resolved(response)?.content?.["application/json"]?.schema?.$ref, `${method} ${path} ${status}`).toBe(
          "#/components/schemas/Error",
        );
      }
    }
  });

  it("instance routes document the auth errors; 429 documents Retry-After", () => {
    const get = doc.paths["/instances/{instanceId}"]!.get!;
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(["200", "401", "404", "429"]));
    expect(resolved(get.responses["429"])?.headers).toHaveProperty("Retry-After");
    const patch = doc.paths["/instances/{instanceId}/settings"]!.patch!;
    expect(Object.keys(patch.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "402", "409", "413", "422", "429"]),
    );
  });

  it("creations document 201 and no 200", () => {
    for (const path of ["/admin/instances", "/admin/accounts", "/admin/accounts/{accountId}/client-token"]) {
      const post = doc.paths[path]!.post!;
      expect(post.responses["201"], path).toBeDefined();
      expect(post.responses["200"], path).toBeUndefined();
    }
  });

  it("declares the auth schemes", () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining(["InstanceToken", "BearerInstanceToken", "AdminToken"]),
    );
  });
});

describe("pnpm openapi (services/gateway/src/openapi/print.ts)", () => {
  it("prints the same document as the running service", async () => {
    const { stdout } = await promisify(execFile)(TSX, ["services/gateway/src/openapi/print.ts"], {
      cwd: ROOT,
      env: { ...process.env, PUBLIC_BASE_URL: gw.config.PUBLIC_BASE_URL },
      maxBuffer: 16 * 1024 * 1024,
    });
    const printed = JSON.parse(stdout) as Doc;
    expect(Object.keys(printed.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    for (const [path, method] of EXPECTED) expect(printed.paths[path]?.[method]).toBeDefined();
    expect(printed).toEqual(doc);
  });
});

describe("GET /docs", () => {
  it("serves Swagger UI with its assets from this process", async () => {
    const res = await gw.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("/v1/openapi.json");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.includes("swagger-ui-bundle.js"))).toBe(true);
    expect(assets.some((a) => a.includes("swagger-ui.css"))).toBe(true);
    for (const asset of assets) {
      expect(asset.startsWith("/"), `${asset} is served locally`).toBe(true);
      const r = await gw.request(asset);
      expect(r.status, asset).toBe(200);
      expect(r.headers.get("content-type"), asset).toMatch(asset.endsWith(".css") ? /^text\/css/ : /javascript/);
      expect((await r.arrayBuffer()).byteLength, asset).toBeGreaterThan(1000);
    }
  });

  it("unknown doc assets are 404 not_found", async () => {
    const res = await gw.request("/docs/package.json");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });
});
