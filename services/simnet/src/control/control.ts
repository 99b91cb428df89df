// The control API (HTTP, Bearer ADMIN_TOKEN): what tests, demos and benchmarks use to act as the
// phones and as the network. Here: its JSON errors, the token check and health; the routes are in
// network.ts, phones.ts and groups.ts, and each feature area adds its own (areas/index.ts).

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SIMNET_AREAS } from "../areas/index.ts";
import { SimnetError } from "../errors.ts";
import { sameSecret } from "../ids.ts";
import type { SimnetState } from "../state/state.ts";
import { groupRoutes } from "./groups.ts";
import { type ControlHooks, networkRoutes } from "./network.ts";
import { phoneRoutes } from "./phones.ts";

export function registerControl(app: FastifyInstance, state: SimnetState, hooks: ControlHooks): void {
  app.setErrorHandler((err, req, reply: FastifyReply) => {
    if (err instanceof SimnetError) return reply.code(err.status).send(err.toBody());
    const fe = err as { statusCode?: number; message?: string };
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply
        .code(fe.statusCode)
        .send({ error: { code: fe.statusCode === 401 ? "unauthorized" : "bad_request", message: fe.message ?? "" } });
    }
    req.log.error({ err }, "simnet control error");
    return reply.code(500).send({ error: { code: "internal_error", message: "unexpected error" } });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: { code: "not_found", message: "no route" } }));

  app.addHook("onRequest", async (req: FastifyRequest) => {
    if (!req.url.startsWith("/simnet")) return;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!m?.[1] || !sameSecret(m[1], state.opts.adminToken))
      throw new SimnetError("unauthorized", "Authorization: Bearer <ADMIN_TOKEN> required");
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  networkRoutes(app, state, hooks);
  phoneRoutes(app, state);
  groupRoutes(app, state);

  // The feature areas' own routes (areas/index.ts).
  for (const area of SIMNET_AREAS) area.control?.(app, state);
}
