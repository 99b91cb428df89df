// The `mcp` app's MCP server end to end (docs/mcp.md): the SDK's own client over real HTTP
// (Streamable HTTP, stateless) against the gateway, a paired sim instance and simnet's phones.
import { MCP_TOOL_NAMES } from "@gw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962250001" };
const other = { id: "", token: "" };
const CONTACT = "5531962250002";

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const mcpUrl = () => new URL(`${c.url}/v1/instances/${a.id}/mcp`);

/** An SDK client connected to instance a's MCP server with `headers`. */
async function connect(headers: Record<string, string> = { "X-Instance-Token": a.token }): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers } }));
  return client;
}

async function withClient<T>(fn: (client: Client) => Promise<T>, headers?: Record<string, string>): Promise<T> {
  const client = await connect(headers);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** A JSON-RPC initialize posted by hand: for the HTTP answers the SDK client only reports as text. */
const initialize = (headers: Record<string, string> = { "x-instance-token": a.token }) =>
  c.request(`/v1/instances/${a.id}/mcp`, {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", ...headers },
    json: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
  });

/** The tool result's text, parsed (the tools answer JSON). */
const parsed = <T = Record<string, any>>(result: unknown): T =>
  JSON.parse((result as CallToolResult).content.map((p) => (p.type === "text" ? p.text : "")).join("")) as T;

type App = { id: string; config: Record<string, unknown>; enabled: boolean };
let mcpApp: App;

beforeAll(async () => {
  c = await startCluster();
  await c.sim("POST", "/simnet/phones", { phone: CONTACT });
  Object.assign(a, await c.createInstance());
  Object.assign(other, await c.createInstance());
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

describe("without an enabled mcp app", () => {
  it("404 with the error body; GET and DELETE are 405 with Allow: POST", async () => {
    await expectError(await initialize(), 404, "not_found");
    await expect(connect()).rejects.toThrow(/404|not_found/);
    for (const method of ["GET", "DELETE"]) {
      const res = await api("/mcp", { method });
      expect(res.headers.get("allow")).toBe("POST");
      await expectError(res, 405, "bad_request");
    }
  });
});

describe("with the mcp app", () => {
  beforeAll(async () => {
    mcpApp = await expectJson<App>(await api("/apps", { method: "POST", json: { app: "mcp" } }), 201);
  });

  it("lists every tool, with schemas from the REST contracts and annotations", async () => {
    const { tools } = await withClient((client) => client.listTools());
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    const sendText = tools.find((t) => t.name === "send_text");
    expect(sendText?.inputSchema.required).toEqual(["text"]);
    expect(sendText?.inputSchema.properties).toHaveProperty("chatId");
    expect(sendText?.inputSchema.properties).not.toHaveProperty("instanceId");
    expect(sendText?.annotations).toMatchObject({ destructiveHint: false, openWorldHint: true });
    expect(tools.find((t) => t.name === "list_chats")?.annotations?.readOnlyHint).toBe(true);
  });

  it("send_text reaches the phone on simnet", async () => {
    const result = await withClient((client) =>
      client.callTool({ name: "send_text", arguments: { chatId: CONTACT, text: "olá pelo MCP" } }),
    );
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(parsed(result)).toMatchObject({ chatId: `${CONTACT}@c.us`, status: "sent" });
    await expect
      .poll(
        async () => {
          const inbox = await expectJson<{ messages: { message: { text?: string } }[] }>(
            await c.sim("GET", `/simnet/phones/${CONTACT}/inbox`),
          );
          return inbox.messages.map((m) => m.message.text);
        },
        { timeout: 15_000 },
      )
      .toContain("olá pelo MCP");
  });

  it("read tools: check_number and list_chats", async () => {
    await withClient(async (client) => {
      const check = await client.callTool({ name: "check_number", arguments: { phone: CONTACT } });
      expect(check.isError, JSON.stringify(check)).toBeFalsy();
      expect(parsed(check)).toMatchObject({ exists: true, chatId: `${CONTACT}@c.us` });
      const chats = await client.callTool({ name: "list_chats", arguments: { limit: 10 } });
      expect(chats.isError, JSON.stringify(chats)).toBeFalsy();
      expect(Array.isArray(parsed(chats))).toBe(true);
    });
  });

  it("a refused call is an isError result carrying the API's error body", async () => {
    await withClient(async (client) => {
      const bad = await client.callTool({ name: "send_text", arguments: { chatId: "not a chat", text: "x" } });
      expect(bad.isError).toBe(true);
      const body = parsed<{ error: { code: string; message: string; details?: Record<string, string> } }>(bad);
      expect(body.error.code).toBe("validation_error");
      expect(body.error.details).toHaveProperty("chatId");
      // Empty number fields are refused as in REST, not read as 0.
      const empty = await client.callTool({ name: "list_chats", arguments: { limit: "" } });
      expect(parsed<{ error: { code: string } }>(empty).error.code).toBe("validation_error");
    });
  });

  it("Authorization: Bearer works; another instance's token is 401 invalid_token", async () => {
    const { tools } = await withClient((client) => client.listTools(), { Authorization: `Bearer ${a.token}` });
    expect(tools.length).toBe(MCP_TOOL_NAMES.length);
    await expectError(await initialize({ "x-instance-token": other.token }), 401, "invalid_token");
    await expectError(await initialize({ authorization: `Bearer ${other.token}` }), 401, "invalid_token");
    await expectError(await initialize({}), 401, "missing_token");
    await expect(connect({ "X-Instance-Token": other.token })).rejects.toThrow(/401|invalid_token/);
  });

  it("config.tools picks the tools; unknown names are refused; a tool not offered is not callable", async () => {
    const refused = await expectError(
      await api(`/apps/${mcpApp.id}`, { method: "PATCH", json: { config: { tools: ["send_text", "rm_rf"] } } }),
      422,
      "validation_error",
    );
    expect(refused.error.details).toHaveProperty(["config.tools"]);
    await expectError(await api("/apps", { method: "POST", json: { app: "mcp" } }), 422, "validation_error"); // one mcp app per instance
    await expectJson(
      await api(`/apps/${mcpApp.id}`, { method: "PATCH", json: { config: { tools: ["send_text", "check_number"] } } }),
    );
    await withClient(async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["check_number", "send_text"]);
      await expect(client.callTool({ name: "list_chats", arguments: {} })).rejects.toThrow(/Unknown tool/);
    });
  });

  it("HTTP-level refusals: the API's error body; the SDK's JSON-RPC answers for protocol errors", async () => {
    const post = (init: RequestInit & { json?: unknown }) =>
      api("/mcp", {
        method: "POST",
        ...init,
        headers: { accept: "application/json, text/event-stream", ...init.headers },
      });
    await expectError(await post({ headers: { "content-type": "application/json" } }), 400, "bad_request");
    await expectError(await post({ headers: { "content-type": "text/plain" }, body: "{}" }), 400, "bad_request");
    const notRpc = await post({ json: { hello: "world" } });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const noAccept = await api("/mcp", { method: "POST", json: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(noAccept.status).toBe(406);
  });

  it("disabled, the server is gone (404)", async () => {
    await expectJson(await api(`/apps/${mcpApp.id}`, { method: "PATCH", json: { enabled: false } }));
    await expectError(await initialize(), 404, "not_found");
    await expect(connect()).rejects.toThrow(/404|not_found/);
  });
});
