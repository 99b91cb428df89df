// Who is calling the Application API, checked in Chatwoot's order: the `api_access_token` header
// (none: Devise's 401; unknown: 401 "Invalid Access Token"), then the account (404), then the token
// owner's membership of it (401). Also the gate every request passes: the per-route counters and,
// during an outage, a 503 from the "proxy in front".
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ChatwootError, notFound } from "./errors.ts";
import type { Account, User } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";

export interface Access {
  account: Account;
  user: User;
}

/** A path id: Chatwoot's ids are integers; anything else finds nothing. */
export function idParam(req: FastifyRequest, name: string): number {
  const raw = (req.params as Record<string, string | undefined>)[name] ?? "";
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

export function access(state: ChatwootMockState, req: FastifyRequest): Access {
  // Rack reads `api_access_token` and `api-access-token` alike (both become HTTP_API_ACCESS_TOKEN).
  const header = req.headers.api_access_token ?? req.headers["api-access-token"];
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) throw new ChatwootError(401, { errors: ["You need to sign in or sign up before continuing."] });
  const user = state.userByToken(token);
  if (!user) throw new ChatwootError(401, { error: "Invalid Access Token" });
  const account = state.accounts.get(idParam(req, "accountId"));
  if (!account) throw notFound();
  if (!user.accountIds.has(account.id)) {
    throw new ChatwootError(401, { error: "You are not authorized to access this account" });
  }
  return { account, user };
}

const OUTAGE_PAGE =
  "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n" +
  "<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/** Counts every request by route; during an outage the Application API and file links answer 503. */
export function registerGate(app: FastifyInstance, state: ChatwootMockState): void {
  app.addHook("onRequest", async (req, reply) => {
    const key = `${req.method} ${req.routeOptions.url ?? "(no route)"}`;
    state.requestCounts.set(key, (state.requestCounts.get(key) ?? 0) + 1);
    if (state.outageUntil <= Date.now()) return;
    if (!req.url.startsWith("/api") && !req.url.startsWith("/rails/")) return;
    return reply.code(503).type("text/html").send(OUTAGE_PAGE);
  });
  // A message made, its answer lost on the way back (a proxy's timeout): what a client's retry must not double.
  app.addHook("onSend", async (req, reply, payload) => {
    if (state.loseAnswers <= 0 || req.method !== "POST" || !req.routeOptions.url?.endsWith("/messages")) return payload;
    if (reply.statusCode !== 200) return payload;
    state.loseAnswers--;
    reply.code(502).type("text/html");
    return "<html><body><center><h1>502 Bad Gateway</h1></center></body></html>";
  });
}
