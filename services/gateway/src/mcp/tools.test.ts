import { APP_CONFIGS, type App, MCP_TOOL_NAMES } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { restProcedures } from "../http/rest.ts";
import { offeredTools } from "./route.ts";
import { procedureInputSchema } from "./schemas.ts";
import type { McpTool } from "./server.ts";
import { MCP_TOOLS } from "./tools.ts";

const procedures = new Map(restProcedures().map((p) => [p.path, p]));
const schemaOf = (path: string) => procedureInputSchema(procedures.get(path)?.call);

describe("the tools table", () => {
  it("maps every tool name of the contracts to an instance route, reads to GET", () => {
    expect(Object.keys(MCP_TOOLS).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const [name, spec] of Object.entries(MCP_TOOLS)) {
      const procedure = procedures.get(spec.procedure);
      expect(procedure, name).toBeDefined();
      expect(procedure?.meta.auth, name).toBe("instance");
      expect(procedure?.method === "GET", name).toBe(spec.readOnly);
    }
  });

  it("input schemas are the REST inputs as JSON Schema objects, without instanceId or doc-only keys", () => {
    for (const [name, spec] of Object.entries(MCP_TOOLS)) {
      const schema = schemaOf(spec.procedure);
      const text = JSON.stringify(schema);
      expect(schema.type, name).toBe("object");
      expect(schema.properties, name).not.toHaveProperty("instanceId");
      expect(schema.required ?? [], name).not.toContain("instanceId");
      expect(text, name).not.toMatch(/"override"|"example"/);
      expect(schema, name).not.toHaveProperty("anyOf");
    }
    const location = schemaOf(MCP_TOOLS.send_location.procedure);
    expect(location.required).toEqual(["latitude", "longitude", "title"]);
    // documented() patterns render as in the OpenAPI document
    expect(schemaOf(MCP_TOOLS.check_number.procedure).properties.phone).toMatchObject({
      type: "string",
      pattern: "^\\+?[0-9]{8,15}$",
    });
  });
});

describe("the mcp app's config", () => {
  it("tools: names of the table only", () => {
    expect(APP_CONFIGS.mcp.safeParse({ tools: ["send_text", "queue_status"] }).success).toBe(true);
    expect(APP_CONFIGS.mcp.safeParse({}).success).toBe(true);
    expect(APP_CONFIGS.mcp.safeParse({ tools: ["send_txt"] }).success).toBe(false);
  });

  it("offers the configured tools of the enabled apps; none or empty means all; no app, none", () => {
    const tools = MCP_TOOL_NAMES.map((name) => ({ name }) as McpTool);
    const app = (config: Record<string, unknown>, enabled = true) =>
      ({ id: "app_x", app: "mcp", config, enabled, createdAt: "", updatedAt: "" }) as App;
    const names = (apps: App[]) => offeredTools(apps, tools)?.map((t) => t.name) ?? null;
    expect(names([])).toBeNull();
    expect(names([app({}, false)])).toBeNull();
    expect(names([app({})])).toHaveLength(MCP_TOOL_NAMES.length);
    expect(names([app({ tools: [] })])).toHaveLength(MCP_TOOL_NAMES.length);
    expect(names([app({ tools: ["queue_status", "send_text"] })])).toEqual(["send_text", "queue_status"]);
    expect(names([app({ tools: ["send_text"] }), app({ tools: ["get_profile"] }, false)])).toEqual(["send_text"]);
  });
});
