import { ApiError } from "@gw/contracts";
import { type Config, type Platform, secretMatches } from "@gw/platform";
import type { FastifyRequest } from "fastify";
import type { Caller } from "../trpc/context.ts";

/**
 * The instance token: `X-Instance-Token`, or `Authorization: Bearer`. A request that carries an
 * `Authorization` header of another form, or two different tokens, is refused (401
 * `invalid_token`) rather than served on whichever header we happen to read first: a client
 * whose proxy rewrites one of them should learn it on the first call, not after a rotation.
 */
function presentedToken(req: FastifyRequest): string | undefined {
  const header = req.headers["x-instance-token"];
  const given = typeof header === "string" && header.length > 0 ? header : undefined;
  const bearerToken = bearer(req);
  if (given && bearerToken && bearerToken !== given) {
    throw new ApiError("invalid_token", "X-Instance-Token e Authorization trazem tokens diferentes.");
  }
  return given ?? bearerToken;
}

/** The token of `Authorization: Bearer <token>`; undefined without the header; 401 when malformed. */
export function bearer(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (auth === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!m?.[1]) throw new ApiError("invalid_token", "Cabeçalho Authorization malformado: use `Bearer <token>`.");
  return m[1];
}

/**
 * The caller of a route under `/v1/instances/{instanceId}`: the instance's token, the account's
 * Client-Token rule and the per-instance rate limit, all by the platform's one authorizer. The
 * REST binding and the MCP endpoint both call this: an instance has one way in.
 */
export async function authenticateInstance(
  platform: Platform,
  req: FastifyRequest,
  instanceId: string,
): Promise<Caller> {
  const token = presentedToken(req);
  if (!token) throw new ApiError("missing_token");
  const clientToken = req.headers["client-token"];
  const verdict = await platform.authorizer.authorize(
    instanceId,
    token,
    typeof clientToken === "string" ? clientToken : undefined,
  );
  if (verdict.ok) return { kind: "instance", instanceId };
  if (verdict.code === "rate_limited")
    throw new ApiError("rate_limited", undefined, undefined, verdict.retryAfterSeconds);
  throw new ApiError(verdict.code);
}

/** The operator's token (`Authorization: Bearer`): the admin REST routes and the admin stream. */
export function authenticateAdmin(req: FastifyRequest, config: Pick<Config, "ADMIN_TOKEN">): void {
  const token = bearer(req);
  if (!token) throw new ApiError("missing_token", "Token de administrador ausente (Authorization: Bearer).");
  if (!secretMatches(token, config.ADMIN_TOKEN))
    throw new ApiError("invalid_token", "Token de administrador inválido.");
}
