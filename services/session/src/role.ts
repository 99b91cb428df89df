import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ApiError } from "@gw/contracts";
import type { Config, Logger, Platform } from "@gw/platform";
import { apiErrorOf, secretMatches } from "@gw/platform";
import Fastify from "fastify";
import { INTERNAL_SECRET_HEADER } from "./client.ts";
import { SessionManager } from "./manager.ts";
import { createBaileysProvider, parseBaileysVersion } from "./providers/baileys/index.ts";
import type { ProviderFactory } from "./providers/contract.ts";
import { createSimProvider } from "./providers/sim.ts";
import { sessionRouter } from "./rpc.ts";

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
  };

  // Sends carry their media inline (base64): up to the file routes' limit, plus the envelope.
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: Math.ceil(Math.max(config.FILE_BODY_LIMIT, config.MEDIA_MAX_BYTES) * 1.4) + 1_048_576,
  });
  let manager: SessionManager | undefined;
  app.get("/healthz", async () => ({ status: "ok", podId, instances: manager?.size ?? 0 }));
  // `POST /rpc/<op>` calls the session router's procedure directly (a thin binding, like the
  // public REST one): tRPC's fetch adapter built a WHATWG Request and streams per call, ~25 % of
  // the pod's CPU per send in `pnpm bench send`.
  const caller = () => {
    if (!manager) throw new ApiError("network_unavailable", "Servidor de sessão iniciando.", undefined, 1);
    callerOf ??= sessionRouter.createCaller({ api: manager });
    return callerOf;
  };
  let callerOf: ReturnType<typeof sessionRouter.createCaller> | undefined;
  app.post("/rpc/:op", async (req, reply) => {
    const presented = req.headers[INTERNAL_SECRET_HEADER];
    if (typeof presented !== "string" || !secretMatches(presented, config.INTERNAL_SECRET)) {
      return reply.code(401).send({ api: { code: "invalid_token", message: "internal secret missing or wrong" } });
    }
    const op = (req.params as { op: string }).op as keyof typeof sessionRouter._def.procedures;
    if (!Object.hasOwn(sessionRouter._def.procedures, op)) return reply.code(404).send({});
    try {
      const fn = caller()[op] as (input: unknown) => Promise<unknown>;
      return reply.send({ result: (await fn(req.body)) ?? null });
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) {
        log.error({ err, op }, "session rpc failed");
        return reply.code(500).send({ api: { code: "internal_error", message: "Erro interno." } });
      }
      return reply.code(api.status).send({
        api: { code: api.code, message: api.message, details: api.details, retryAfter: api.retryAfter },
      });
    }
  });
  const address = await app.listen({ port: config.SESSION_PORT, host: config.SESSION_HOST });
  const port = new URL(address).port;
  const url = config.SESSION_ADVERTISE_URL ?? `http://${config.SESSION_HOST}:${port}`;

  manager = new SessionManager(platform, {
    podId,
    url,
    capacity: config.SESSION_CAPACITY,
    authStateKey: config.AUTH_STATE_KEY,
    providers,
    log: log.child({ role: "session", podId }),
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
      await app.close();
    },
  };
}
export type SessionRole = Awaited<ReturnType<typeof startSessionRole>>;
