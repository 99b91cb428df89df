// The Graph side's common steps: who is calling (the Bearer token of a number), the request log,
// errors on demand, and the operator's error body for every failure.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GraphFault } from "./graph-errors.ts";
import type { BusinessNumber, CloudMockState } from "./state.ts";

/**
 * Whose request it is: the number of `:pnid`, a number of `:waba`, the number a token belongs to,
 * or (`node`) the owner of `:id` (a number, its media, its app's upload) among the token's numbers.
 */
export type Scope = "pnid" | "waba" | "token" | "node";

export interface GraphAuth {
  /** The number a request is for (its `:pnid`, `:waba` or the token alone), checking the token. */
  resolve(req: FastifyRequest, scope: Scope): BusinessNumber;
}

function presentedToken(req: FastifyRequest): string | null {
  const h = /^(?:Bearer|OAuth)\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ""));
  if (h?.[1]) return h[1];
  const q = (req.query as Record<string, string | undefined>).access_token;
  return typeof q === "string" && q ? q : null;
}

export function createAuth(state: CloudMockState): GraphAuth {
  const denied = () =>
    new GraphFault(190, undefined, { title: "Invalid OAuth access token - Cannot parse access token" });
  const check = (n: BusinessNumber, token: string | null) => {
    if (token !== n.accessToken) throw denied();
    if (n.tokenExpired) {
      throw new GraphFault(190, undefined, {
        subcode: 463,
        title: "Error validating access token: Session has expired on Tuesday, 24-Nov-26 10:00:00 PST.",
      });
    }
    return n;
  };
  return {
    resolve(req, scope) {
      const token = presentedToken(req);
      const params = req.params as Record<string, string | undefined>;
      if (scope === "pnid") {
        const n = state.numbers.get(params.pnid ?? "");
        if (!n) {
          throw new GraphFault(100, undefined, {
            title: `Unsupported request - Object with ID '${params.pnid}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
          });
        }
        return check(n, token);
      }
      if (scope === "node") {
        const id = params.id ?? "";
        const owner =
          state.numbers.get(id) ??
          state.numbers.get(state.media.get(id)?.phoneNumberId ?? "") ??
          [...state.numbers.values()].find((n) => n.accessToken === token && state.uploads.get(id)?.appId === n.appId);
        if (owner) return check(owner, token);
      }
      const candidates = [...state.numbers.values()].filter((n) =>
        scope === "waba" ? n.wabaId === params.waba : n.accessToken === token,
      );
      if (candidates.length === 0) {
        throw scope === "waba"
          ? new GraphFault(100, undefined, {
              title: `Unsupported request - Object with ID '${params.waba}' does not exist`,
            })
          : denied();
      }
      return check(candidates.find((n) => n.accessToken === token) ?? candidates[0]!, token);
    },
  };
}

export function sendFault(reply: FastifyReply, err: GraphFault) {
  return reply.code(err.status).send(err.body());
}

/** One Graph route: resolved number, logged request, errors on demand, the operator's error body. */
export function graphRoute(
  app: FastifyInstance,
  state: CloudMockState,
  auth: GraphAuth,
  method: "GET" | "POST" | "DELETE",
  url: string,
  op: string,
  handler: (req: FastifyRequest, n: BusinessNumber) => Promise<unknown>,
  scope: Scope = "pnid",
): void {
  app.route({
    method,
    url,
    handler: async (req, reply) => {
      let n: BusinessNumber | null = null;
      try {
        n = auth.resolve(req, scope);
        const body = Buffer.isBuffer(req.body)
          ? String(req.headers["content-type"] ?? "").startsWith("multipart/")
            ? { multipart: true, bytes: req.body.length }
            : { bytes: req.body.length }
          : (req.body ?? null);
        state.requests.push({
          seq: state.next(),
          phoneNumberId: n.phoneNumberId,
          method,
          path: req.url.split("?")[0]!,
          query: req.query as Record<string, string>,
          body,
          at: Date.now(),
        });
        if (state.requests.length > 20_000) state.requests.shift();
        const injected = state.takeError(n.phoneNumberId, op);
        if (injected?.body !== undefined) {
          // Not the operator speaking: a proxy's or load balancer's own page, as given.
          return reply
            .code(injected.status ?? 502)
            .type(injected.contentType ?? "text/html; charset=utf-8")
            .send(injected.body);
        }
        if (injected) {
          throw new GraphFault(injected.code ?? 131000, injected.details, {
            ...(injected.status !== undefined ? { status: injected.status } : {}),
            ...(injected.subcode !== undefined ? { subcode: injected.subcode } : {}),
            ...(injected.title !== undefined ? { title: injected.title } : {}),
          });
        }
        return await handler(req, n);
      } catch (err) {
        if (err instanceof GraphFault) return sendFault(reply, err);
        throw err;
      }
    },
  });
}
