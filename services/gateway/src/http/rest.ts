import {
  ACCOUNT_ID_RE,
  APP_ID_RE,
  ApiError,
  DELIVERY_ID_RE,
  INSTANCE_ID_RE,
  invalid,
  QUEUE_ID_RE,
  WEBHOOK_ID_RE,
} from "@gw/contracts";
import { type Config, compileProcedure, type Platform } from "@gw/platform";
import { IDEMPOTENCY_KEY_RE, type Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { appRouter } from "../routers/index.ts";
import { type Caller, type Context, requestContext } from "../trpc/context.ts";
import type { Meta } from "../trpc/meta.ts";
import { authenticateAdmin, authenticateInstance } from "./auth.ts";
import { registerShadowedMethods } from "./methods.ts";
import { coercedNumberFields, refuseEmptyNumbers } from "./query-numbers.ts";

/** A procedure called directly with its context: what tRPC's server-side caller does, minus its proxy. */
type ProcedureFn = (opts: {
  ctx: Context;
  getRawInput: () => Promise<unknown>;
  path: string;
  type: "query" | "mutation";
  signal: AbortSignal | undefined;
  batchIndex: number;
}) => Promise<unknown>;

/** Path ids of the wrong shape cannot name any resource: 404 before anything else. */
export const PATH_ID_PATTERNS: Record<string, RegExp> = {
  instanceId: INSTANCE_ID_RE,
  accountId: ACCOUNT_ID_RE,
  webhookId: WEBHOOK_ID_RE,
  deliveryId: DELIVERY_ID_RE,
  queueId: QUEUE_ID_RE,
  appId: APP_ID_RE,
};

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** Each procedure with OpenAPI meta, with its route path in Fastify's syntax. */
export function restProcedures() {
  return Object.entries(appRouter._def.procedures).flatMap(([path, procedure]) => {
    const def = (procedure as unknown as { _def: { meta?: Meta; type: "query" | "mutation" } })._def;
    const meta = def.meta;
    if (!meta?.openapi) return [];
    const url = `/v1${meta.openapi.path.replace(/\{(\w+)\}/g, ":$1")}`;
    return [
      { path, meta, method: meta.openapi.method, url, type: def.type, call: procedure as unknown as ProcedureFn },
    ];
  });
}

/**
 * `Idempotency-Key` as the document states it (1 to 255 visible ASCII characters): a header
 * that is sent is a key, so an empty or malformed one is refused, never taken as absent.
 */
function checkIdempotencyKey(req: FastifyRequest): void {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY_RE.test(key)) {
    throw invalid("Idempotency-Key", "de 1 a 255 caracteres ASCII visíveis");
  }
}

/**
 * Mounts every procedure as a native Fastify route (ARCHITECTURE.md: trpc-to-openapi's own
 * adapter cannot give per-route body limits, body-less POSTs or the spec's error bodies).
 * The procedure itself is the single definition: this is only the transport.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  platform: Platform,
  config: Config,
  sessions: SessionDirectory,
  sending: Sending,
): void {
  const authenticate = async (req: FastifyRequest, meta: Meta, params: Record<string, string>): Promise<Caller> => {
    if (meta.auth === "none") return { kind: "anonymous" };
    if (meta.auth === "admin") {
      authenticateAdmin(req, config);
      return { kind: "admin" };
    }
    return authenticateInstance(platform, req, params.instanceId ?? "");
  };

  app.decorateRequest("caller", null);
  const services = { platform, sessions, sending };
  const procedures = restProcedures();
  for (const { path, meta, method, url, call } of procedures) {
    // Compiled once: the same middlewares, parsers and errors as tRPC's call, without its per-call spreads.
    const invoke = compileProcedure<Context>(call, path);
    const numberFields = coercedNumberFields(call);
    const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
    // The route's path ids that have a shape to check, found once.
    const checkedIds = [...url.matchAll(/:(\w+)/g)].flatMap(([, name]) =>
      name && PATH_ID_PATTERNS[name] ? [[name, PATH_ID_PATTERNS[name]] as const] : [],
    );
    app.route({
      method,
      url,
      bodyLimit: meta.bodyLimit === "file" ? config.FILE_BODY_LIMIT : config.JSON_BODY_LIMIT,
      // Credentials are checked before the body is read: an anonymous caller gets 401, not 400/413.
      onRequest: async (req) => {
        const params = req.params as Record<string, string>;
        for (const [name, pattern] of checkedIds) {
          if (!pattern.test(params[name] ?? "")) throw new ApiError("not_found", "Recurso não encontrado.");
        }
        req.caller = await authenticate(req, meta, params);
      },
      handler: async (req, reply) => {
        const params = req.params as Record<string, string>;
        if (meta.queueable) checkIdempotencyKey(req);
        if (numberFields.length > 0) refuseEmptyNumbers(req.query as Record<string, unknown>, numberFields);
        let input: Record<string, unknown>;
        if (hasBody) {
          const body = req.body;
          // A JSON `null` is no object either (an absent or empty body is `undefined`).
          if (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body))) {
            throw new ApiError("bad_request", "O corpo deve ser um objeto JSON.");
          }
          // Some POST routes take query parameters too (spec 4.5 messages/read): the body wins.
          // Object.assign, not spreads: properties added to a spread copy are slow on Node 20.
          input = Object.assign({}, req.query as Record<string, unknown>, body as Record<string, unknown>, params);
        } else {
          input = Object.assign({}, req.query as Record<string, unknown>, params);
        }
        const ctx = requestContext(req, services, req.caller ?? { kind: "anonymous" });
        const output = await invoke(ctx, input);
        return reply.code(ctx.http.status ?? meta.successStatus ?? 200).send(output);
      },
    });
  }
  registerShadowedMethods(app, procedures);
}
