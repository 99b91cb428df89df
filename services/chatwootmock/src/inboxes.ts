// An inbox (`GET /api/v1/accounts/:accountId/inboxes/:id`) and Chatwoot's unauthenticated `GET /api`
// (its version and service health, what a health check of the connector calls).
import type { FastifyInstance } from "fastify";
import { access, idParam } from "./auth.ts";
import { notFound } from "./errors.ts";
import type { ChatwootMockState } from "./state.ts";
import { inboxView } from "./views.ts";

export const MOCK_VERSION = "4.0.0-mock";

export function registerInboxes(app: FastifyInstance, state: ChatwootMockState): void {
  app.get("/api", async () => ({
    version: MOCK_VERSION,
    timestamp: new Date().toISOString().replace("T", " ").slice(0, 19),
    queue_services: "ok",
    data_services: "ok",
  }));

  app.get("/api/v1/accounts/:accountId/inboxes", async (req) => {
    const { account } = access(state, req);
    return { payload: [...state.inboxes.values()].filter((i) => i.accountId === account.id).map(inboxView) };
  });

  app.get("/api/v1/accounts/:accountId/inboxes/:id", async (req) => {
    const { account } = access(state, req);
    const inbox = state.inboxes.get(idParam(req, "id"));
    if (!inbox || inbox.accountId !== account.id) throw notFound();
    return inboxView(inbox);
  });
}
