import { randomBytes } from "node:crypto";
import { registerConsole } from "@gw/console";
import { ApiError } from "@gw/contracts";
import type { Config, Platform } from "@gw/platform";
import { createSending, lazyTemporalClient } from "@gw/sending";
import { SessionDirectory, type SessionManager } from "@gw/session";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import { registerDocs } from "./http/docs.ts";
import { registerErrorHandling, sendError } from "./http/errors.ts";
import { registerSignedFiles } from "./http/files.ts";
import { registerHealth, temporalProbe } from "./http/health.ts";
import { registerHelpdeskHook } from "./http/helpdesk-hook.ts";
import { registerInternalTrpc } from "./http/internal.ts";
import { createMetrics } from "./http/metrics.ts";
import { registerOfficialWebhook } from "./http/official-webhook.ts";
import { registerRestRoutes } from "./http/rest.ts";
import { traceRequests } from "./http/tracing.ts";
import { registerMcp } from "./mcp/route.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { registerStreams } from "./streams/routes.ts";

// Request ids: a random per-process prefix and a counter (no entropy needed per request).
const ID_PREFIX = `req_${randomBytes(4).toString("hex")}`;
let requestCounter = 0;
const newRequestId = () => `${ID_PREFIX}${(++requestCounter).toString(36)}`;

const requestLogging = (level: string) => level === "info" || level === "debug" || level === "trace";

function serverOptions(config: Config, name: string): FastifyServerOptions {
  return {
    logger: { level: config.LOG_LEVEL, base: { pid: process.pid, server: name } },
    // A child logger per request only pays off when request lines are logged (info and below):
    // above that, requests share the server's logger and errors carry their requestId
    // themselves (measured: ~10 % of the request path's CPU in `pnpm bench gateway`).
    childLoggerFactory: (logger, bindings, opts) =>
      requestLogging(config.LOG_LEVEL) ? logger.child(bindings, opts) : logger,
    logController: new LogController({ disableRequestLogging: !requestLogging(config.LOG_LEVEL) }),
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && /^[\w.-]{1,64}$/.test(given) ? given : newRequestId();
    },
    bodyLimit: config.JSON_BODY_LIMIT,
    // Path parameters up to 1 KiB reach the routes' own validation (a 300-character messageId is
    // its schema's 422); longer ones, and malformed escapes, answer the spec's 400 body below.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    frameworkErrors: (err, _req, reply) => {
      const message =
        err.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? "Parâmetro de caminho longo demais."
          : "URL inválida: um componente do caminho não pôde ser lido.";
      void sendError(reply, new ApiError("bad_request", message));
    },
    forceCloseConnections: false,
    return503OnClosing: true,
  };
}

/** JSON bodies; an empty body with a JSON content type is taken as no body (spec: body-less POSTs). */
function acceptEmptyJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    parseJson(req, text, done);
  });
}

/**
 * The gateway role: the public server (REST at /v1, docs, health) and the internal server
 * (tRPC, metrics, health) on its own port.
 */
export async function buildGateway(config: Config, platform: Platform, opts: { localSession?: SessionManager } = {}) {
  const metrics = createMetrics();
  const sessions = new SessionDirectory(platform, config, opts.localSession);
  const temporal = temporalProbe(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  const temporalClient = lazyTemporalClient(config);
  const sending = createSending(platform, config, sessions, temporalClient.get);
  sending.queue.onStartFailure = (instanceId, err) =>
    pub.log.warn({ err, instanceId }, "queue workflow not started now; the worker's reconciler will");

  const pub = Fastify(serverOptions(config, "public"));
  pub.addHook("onRequest", (req, reply, done) => {
    reply.header("x-request-id", req.id);
    done();
  });
  acceptEmptyJson(pub);
  registerErrorHandling(pub);
  metrics.instrument(pub);
  traceRequests(pub);
  registerHealth(pub, platform, temporal);
  let openapi: unknown;
  registerDocs(pub, () => (openapi ??= buildOpenApiDocument(config.PUBLIC_BASE_URL)));
  registerRestRoutes(pub, platform, config, sessions, sending);
  registerMcp(pub, platform, config, sessions, sending);
  await registerStreams(pub, platform, config);
  registerSignedFiles(pub, platform, sessions);
  registerOfficialWebhook(pub, platform, config, metrics.officialChanges);
  registerHelpdeskHook(pub, platform, config, temporalClient.get);
  registerConsole(pub, { temporalNamespace: config.TEMPORAL_NAMESPACE });

  const internal = Fastify(serverOptions(config, "internal"));
  metrics.instrument(internal);
  registerHealth(internal, platform, temporal);
  internal.get("/metrics", async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  await registerInternalTrpc(internal, platform, config.INTERNAL_SECRET, sessions, sending);

  return {
    public: pub,
    internal,
    async listen(): Promise<{ publicUrl: string; internalUrl: string }> {
      const publicUrl = await pub.listen({ port: config.PORT, host: config.HOST });
      const internalUrl = await internal.listen({ port: config.INTERNAL_PORT, host: config.INTERNAL_HOST });
      return { publicUrl, internalUrl };
    },
    /** Stops accepting connections and waits for requests in flight to finish. */
    async close(): Promise<void> {
      await Promise.all([pub.close(), internal.close()]);
      await temporal.close();
      await temporalClient.close();
    },
  };
}
export type Gateway = Awaited<ReturnType<typeof buildGateway>>;
