import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import { ApiError } from "@gw/contracts";
import type { Config, Logger, Platform } from "@gw/platform";
import { apiErrorOf, compileProcedure, type InvokeProcedure, secretMatches } from "@gw/platform";
import { contextFromTraceparent, inSpan, SpanKind, SpanStatusCode, tracingEnabled } from "@gw/platform/telemetry";
import Fastify from "fastify";
import {
  type AnswerFrame,
  type CallFrame,
  CHANNEL_PATH,
  CHANNEL_PROTOCOL,
  FrameWriter,
  readFrames,
} from "./channel.ts";
import { INTERNAL_SECRET_HEADER, type RpcErrorBody } from "./client.ts";
import { SessionManager } from "./manager.ts";
import { createSessionMetrics, timePublishes } from "./metrics.ts";
import { NotHeldHere } from "./not-held.ts";
import { createBaileysProvider, parseBaileysVersion } from "./providers/baileys/index.ts";
import { createCloudProvider } from "./providers/cloud/index.ts";
import type { ProviderFactory } from "./providers/contract.ts";
import { createSimProvider } from "./providers/sim/index.ts";
import { sessionRouter } from "./rpc.ts";

/** An operation's answer; `code`: the error's, for the metrics (none for a success, nor for "not held here": routing, not failure). */
type Answer = { status: number; body: unknown; code?: string };

/**
 * The session role: a pod that holds network connections under leases and serves their
 * operations (the session router's procedures, `POST /rpc/<op>`) on SESSION_PORT.
 */
export async function startSessionRole(config: Config, platform: Platform, log: Logger) {
  if (!config.AUTH_STATE_KEY) throw new Error("AUTH_STATE_KEY is required where the session role runs");
  const podId = config.POD_ID ?? `${hostname()}-${randomBytes(3).toString("hex")}`;
  const providers: Record<string, ProviderFactory> = {
    sim: createSimProvider(config.SIMNET_URL),
    baileys: createBaileysProvider({ version: parseBaileysVersion(config.BAILEYS_VERSION) }),
    cloud: createCloudProvider(platform, { timeoutMs: config.CLOUD_API_TIMEOUT_MS }),
  };

  // Sends carry their media inline (base64): up to the file routes' limit, plus the envelope.
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: Math.ceil(Math.max(config.FILE_BODY_LIMIT, config.MEDIA_MAX_BYTES) * 1.4) + 1_048_576,
  });
  let manager: SessionManager | undefined;
  app.get("/healthz", async () => ({ status: "ok", podId, instances: manager?.size ?? 0 }));
  const metrics = createSessionMetrics({
    podId,
    held: () => manager?.size ?? 0,
    connections: () => manager?.connections() ?? [],
    ops: Object.keys(sessionRouter._def.procedures),
    pingRedis: () => platform.ping(),
  });
  timePublishes(platform, metrics);
  // Unauthenticated like the gateway's internal /metrics: the port is the release's only
  // (NetworkPolicy), and Prometheus (networkPolicy.metricsFrom) scrapes it.
  app.get("/metrics", async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  // `POST /rpc/<op>` calls the session router's procedure directly (a thin binding, like the
  // public REST one): tRPC's fetch adapter built a WHATWG Request and streams per call, ~25 % of
  // the pod's CPU per send in `pnpm bench send`.
  // Each procedure compiled once (platform/trpc-invoke.ts): tRPC's caller proxy and its per-call
  // spreads were a few per cent of the pod's CPU per send.
  const procedures = new Map<string, InvokeProcedure<{ api: SessionManager }>>(
    Object.entries(sessionRouter._def.procedures).map(([op, p]) => [op, compileProcedure(p, op)]),
  );
  let ctx: { api: SessionManager } | undefined;
  const authorized = (presented: string | string[] | undefined) =>
    typeof presented === "string" && secretMatches(presented, config.INTERNAL_SECRET);
  /**
   * One operation: the status and body of its answer, the same over HTTP and the channel. Traced
   * as a child of the caller's span when the call carries its `traceparent` (client.ts).
   */
  const run = async (op: string, input: unknown, traceparent: unknown): Promise<Answer> => {
    const started = performance.now();
    const answer = tracingEnabled() ? await traced(op, input, traceparent) : await answerOf(op, input);
    metrics.observe(op, answer.status, (performance.now() - started) / 1000, answer.code);
    return answer;
  };
  const traced = (op: string, input: unknown, traceparent: unknown): Promise<Answer> =>
    inSpan(
      `session ${op}`,
      { kind: SpanKind.SERVER, attributes: { "rpc.system": "gw-rpc", "rpc.method": op } },
      async (span) => {
        const a = await answerOf(op, input);
        span?.setAttribute("gw.rpc.status", a.status);
        if (a.code) span?.setAttribute("gw.error.code", a.code);
        // A refusal (4xx) is the caller's business; the pod failed only on a 5xx.
        if (a.status >= 500) span?.setStatus({ code: SpanStatusCode.ERROR, message: a.code ?? String(a.status) });
        return a;
      },
      contextFromTraceparent(traceparent),
    );
  const answerOf = async (op: string, input: unknown): Promise<Answer> => {
    const invoke = procedures.get(op);
    if (!invoke) return { status: 404, body: {} };
    try {
      if (!manager) throw new ApiError("network_unavailable", "Servidor de sessão iniciando.", undefined, 1);
      ctx ??= { api: manager };
      return { status: 200, body: { result: (await invoke(ctx, input)) ?? null } };
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) {
        log.error({ err, op }, "session rpc failed");
        return {
          status: 500,
          body: { api: { code: "internal_error", message: "Erro interno." } },
          code: "internal_error",
        };
      }
      const body: RpcErrorBody = {
        api: { code: api.code, message: api.message, details: api.details, retryAfter: api.retryAfter },
      };
      if (api instanceof NotHeldHere) {
        body.notHeld = true;
        return { status: api.status, body };
      }
      return { status: api.status, body, code: api.code };
    }
  };
  app.post("/rpc/:op", async (req, reply) => {
    if (!authorized(req.headers[INTERNAL_SECRET_HEADER])) {
      return reply.code(401).send({ api: { code: "invalid_token", message: "internal secret missing or wrong" } });
    }
    const { status, body } = await run((req.params as { op: string }).op, req.body, req.headers.traceparent);
    return reply.code(status).send(body);
  });
  // The multiplexed channel (channel.ts): many calls over one connection, frames batched per turn.
  const channels = new Set<Duplex>();
  app.server.on("upgrade", (req, socket, head) => {
    if (req.url !== CHANNEL_PATH || req.headers.upgrade !== CHANNEL_PROTOCOL) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    if (!authorized(req.headers[INTERNAL_SECRET_HEADER])) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${CHANNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`);
    (socket as Socket).setNoDelay(true);
    channels.add(socket);
    socket.on("close", () => channels.delete(socket));
    socket.on("error", () => {}); // a gateway that went away: its calls have nobody to answer
    const out = new FrameWriter(socket);
    readFrames(socket, head, (frame) => {
      const { i, op, input, t } = frame as CallFrame;
      void run(String(op), input, t).then(({ status, body }) => {
        out.send(JSON.stringify({ i, s: status, b: body } satisfies AnswerFrame));
      });
    });
  });
  const address = await app.listen({ port: config.SESSION_PORT, host: config.SESSION_HOST });
  const port = new URL(address).port;
  const url = config.SESSION_ADVERTISE_URL ?? `http://${config.SESSION_HOST}:${port}`;

  manager = new SessionManager(platform, {
    podId,
    url,
    capacity: config.SESSION_CAPACITY,
    handoverSendWaitMs: config.HANDOVER_SEND_WAIT_MS,
    authStateKey: config.AUTH_STATE_KEY,
    providers,
    log: log.child({ role: "session", podId }),
    observer: metrics.observer,
  });
  await manager.start();
  log.info({ podId, url }, "session pod started");

  const m = manager;
  return {
    podId,
    url,
    manager: m,
    async close() {
      await m.close();
      for (const socket of channels) socket.end();
      await app.close();
    },
  };
}
export type SessionRole = Awaited<ReturnType<typeof startSessionRole>>;
