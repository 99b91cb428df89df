import { ApiError, type App, INSTANCE_ID_RE, MCP_TOOL_NAMES, type McpToolName } from "@gw/contracts";
import { type Config, compileProcedure, type Platform } from "@gw/platform";
import type { Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { authenticateInstance } from "../http/auth.ts";
import { coercedNumberFields } from "../http/query-numbers.ts";
import { restProcedures } from "../http/rest.ts";
import { type Context, requestContext } from "../trpc/context.ts";
import { procedureInputSchema } from "./schemas.ts";
import { createMcpServer, type McpTool } from "./server.ts";
import { MCP_TOOLS } from "./tools.ts";

/** Every tool, its REST procedure compiled once (as the REST binding compiles it). */
function compileTools(): McpTool[] {
  const procedures = new Map(restProcedures().map((p) => [p.path, p]));
  return MCP_TOOL_NAMES.map((name) => {
    const spec = MCP_TOOLS[name];
    const procedure = procedures.get(spec.procedure);
    if (!procedure) throw new Error(`MCP tool ${name}: no REST procedure ${spec.procedure}`);
    return {
      name,
      spec,
      inputSchema: procedureInputSchema(procedure.call),
      invoke: compileProcedure<Context>(procedure.call, procedure.path),
      numberFields: coercedNumberFields(procedure.call),
    };
  });
}

/**
 * The tools the instance's enabled `mcp` app offers (its `tools`; empty or absent: all), or null
 * without one. Several records (made before the app was one per instance) offer their union.
 */
export function offeredTools(apps: readonly App[], tools: readonly McpTool[]): McpTool[] | null {
  const enabled = apps.filter((a) => a.app === "mcp" && a.enabled);
  if (enabled.length === 0) return null;
  const picked = new Set<string>();
  for (const app of enabled) {
    const names = (app.config as { tools?: McpToolName[] }).tools;
    if (!names || names.length === 0) return [...tools];
    for (const name of names) picked.add(name);
  }
  return tools.filter((t) => picked.has(t.name));
}

/** The request as the SDK's web-standard transport reads it (the body is given parsed). */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of ["accept", "content-type", "mcp-protocol-version", "mcp-session-id"]) {
    const value = req.headers[name];
    if (typeof value === "string") headers.set(name, value);
  }
  return new Request(`http://gateway${req.url}`, { method: req.method, headers });
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const body = await response.text();
  return reply.send(body.length > 0 ? body : undefined);
}

/**
 * The instance's MCP server (docs/mcp.md) at `/v1/instances/{instanceId}/mcp`: Streamable HTTP,
 * POST only (GET and DELETE answer 405 with `Allow: POST`, from the server's 405 handling).
 *
 * Stateless: a new server and transport per request (`sessionIdGenerator: undefined`), answered
 * with JSON rather than an SSE stream. Every call is one request/response, so any replica of a
 * horizontally scaled gateway serves any request: no session to pin to a pod, nothing to share
 * in Redis, nothing to expire. The cost is what a session would add (server-initiated messages,
 * resumable streams), which these tools do not use.
 *
 * Authenticated as every instance route (X-Instance-Token or `Authorization: Bearer`, the
 * account's Client-Token, the rate limit: the one authorizer), and served only while the
 * instance has an enabled `mcp` app (404 otherwise).
 */
export function registerMcp(
  app: FastifyInstance,
  platform: Platform,
  config: Config,
  sessions: SessionDirectory,
  sending: Sending,
): void {
  const tools = compileTools();
  const offered = new WeakMap<FastifyRequest, McpTool[]>();
  app.route({
    method: "POST",
    url: "/v1/instances/:instanceId/mcp",
    bodyLimit: config.JSON_BODY_LIMIT,
    // Credentials before the body is read, as in REST: an anonymous caller gets 401, not 400/413.
    onRequest: async (req) => {
      const { instanceId } = req.params as { instanceId: string };
      if (!INSTANCE_ID_RE.test(instanceId)) throw new ApiError("not_found", "Recurso não encontrado.");
      req.caller = await authenticateInstance(platform, req, instanceId);
      const picked = offeredTools(await platform.apps.list(instanceId), tools);
      if (!picked) {
        throw new ApiError("not_found", "Servidor MCP desligado: a instância não tem um app mcp habilitado.");
      }
      offered.set(req, picked);
    },
    handler: async (req, reply) => {
      const { instanceId } = req.params as { instanceId: string };
      // Absent, or not JSON (text/plain is parsed as a string): the API's 400, as on the REST routes.
      if (typeof req.body !== "object" || req.body === null) {
        throw new ApiError("bad_request", "O corpo deve ser uma mensagem JSON-RPC em JSON (application/json).");
      }
      const caller = req.caller ?? { kind: "anonymous" };
      // No X-Queue or Idempotency-Key from the MCP request: a send follows the instance's queue mode.
      const context = (): Context => requestContext(req, { platform, sessions, sending }, caller, {});
      const server = createMcpServer(offered.get(req) ?? [], context, instanceId);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(webRequest(req), { parsedBody: req.body });
        return await sendResponse(reply, response);
      } finally {
        await server.close();
      }
    },
  });
}
