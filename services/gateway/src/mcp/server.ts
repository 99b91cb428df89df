import { ApiError, type McpToolName } from "@gw/contracts";
import { apiErrorOf, type InvokeProcedure } from "@gw/platform";
// The low-level Server, not McpServer: McpServer validates arguments with its own zod pass and
// answers its own errors; here the REST procedure validates them, so a tool refuses exactly what
// the API refuses, with the API's error (and the schemas are JSON Schema already, not zod shapes).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { refuseEmptyNumbers } from "../http/query-numbers.ts";
import type { Context } from "../trpc/context.ts";
import type { ToolInputSchema } from "./schemas.ts";
import type { ToolSpec } from "./tools.ts";

/** A tool ready to serve: its spec, its input schema and its REST procedure, compiled once. */
export interface McpTool {
  name: McpToolName;
  spec: ToolSpec;
  inputSchema: ToolInputSchema;
  invoke: InvokeProcedure<Context>;
  /** Coerced number fields of the input (query parameters): an empty string is refused, as in REST. */
  numberFields: string[];
}

/** The tool as `tools/list` shows it. */
function listed(tool: McpTool): Tool {
  return {
    name: tool.name,
    description: tool.spec.description,
    inputSchema: tool.inputSchema,
    annotations: tool.spec.readOnly
      ? { readOnlyHint: true, openWorldHint: true }
      : { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  };
}

const text = (value: unknown) => [{ type: "text" as const, text: JSON.stringify(value) }];

/**
 * One tool call: the REST procedure with the instance as caller. A refusal is a tool result
 * with `isError` whose text is the API's error body (`{"error":{code,message,details}}`), so
 * the model reads what a REST client would.
 */
async function call(tool: McpTool, ctx: Context, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    if (ctx.caller.kind !== "instance") throw new ApiError("invalid_token");
    if (tool.numberFields.length > 0) refuseEmptyNumbers(args, tool.numberFields);
    // The URL's instance, whatever the arguments say (the schema does not list instanceId).
    const output = await tool.invoke(ctx, Object.assign({}, args, { instanceId: ctx.caller.instanceId }));
    return { content: text(output ?? null) };
  } catch (err) {
    let api = apiErrorOf(err);
    if (!api) {
      ctx.log.error({ err, requestId: ctx.requestId, tool: tool.name }, "unexpected error in an MCP tool");
      api = new ApiError("internal_error", undefined, { requestId: ctx.requestId });
    }
    return { isError: true, content: text(api.toBody()) };
  }
}

/**
 * An MCP server offering `tools` to one caller; `context` makes each call's Context (a fresh
 * one per call: a procedure may set `ctx.http.status`).
 */
export function createMcpServer(tools: readonly McpTool[], context: () => Context, instanceId: string): Server {
  const server = new Server(
    { name: "messaging-gateway", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions:
        `Tools of the messaging instance ${instanceId}: send messages, read chats and messages, check numbers. ` +
        "Each tool is one REST operation of the gateway's API; an error result carries the API's error body.",
    },
  );
  const byName = new Map(tools.map((t) => [t.name as string, t]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return call(tool, context(), request.params.arguments ?? {});
  });
  return server;
}
