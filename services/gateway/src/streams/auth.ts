import { ApiError } from "@gw/contracts";
import { type Config, hashToken, type Platform } from "@gw/platform";
import type { FastifyRequest } from "fastify";
import { authenticateAdmin, authenticateInstance } from "../http/auth.ts";
import type { StreamTickets } from "./tickets.ts";

/**
 * The instance token's stored hash (the authorizer's auth hash, keys.ts `instanceAuth`): what a
 * ticket is bound to, and what an open stream re-reads to learn its token was rotated (revocation.ts).
 * Null when the instance is gone.
 */
export async function tokenFingerprint(platform: Platform, instanceId: string): Promise<string | null> {
  return platform.redis.hget(platform.keys.instanceAuth(instanceId), "tokenHash");
}

/**
 * The caller of an instance's stream routes: a ticket in `?ticket=` (browsers), else exactly the
 * instance routes' credentials — the shared {@link authenticateInstance}: the token in
 * `X-Instance-Token` or `Authorization: Bearer`, the account's Client-Token, the rate limit.
 * Answers the token fingerprint the stream was opened under.
 */
export async function authenticateInstanceStream(
  platform: Platform,
  tickets: StreamTickets,
  req: FastifyRequest,
  instanceId: string,
  ticket: string | undefined,
): Promise<string> {
  if (ticket === undefined) await authenticateInstance(platform, req, instanceId);
  const fingerprint = await tokenFingerprint(platform, instanceId);
  if (ticket !== undefined && (fingerprint === null || !tickets.verify(ticket, instanceId, fingerprint))) {
    throw new ApiError("invalid_token", "Ticket de stream inválido ou expirado: peça outro (POST …/stream-ticket).");
  }
  // Deleted between the check and this read: as a wrong token.
  if (fingerprint === null) throw new ApiError("invalid_token");
  return fingerprint;
}

/** The admin stream's caller: an admin ticket, else the admin token. */
export function authenticateAdminStream(
  config: Config,
  tickets: StreamTickets,
  req: FastifyRequest,
  ticket: string | undefined,
): void {
  if (ticket === undefined) {
    authenticateAdmin(req, config);
    return;
  }
  if (!tickets.verify(ticket, ADMIN_SCOPE, adminFingerprint(config))) {
    throw new ApiError(
      "invalid_token",
      "Ticket de stream inválido ou expirado: peça outro (POST /v1/admin/stream-ticket).",
    );
  }
}

export const ADMIN_SCOPE = "admin";

/** A changed ADMIN_TOKEN (a restart with another) voids the admin tickets minted before. */
export const adminFingerprint = (config: Config) => hashToken(config.ADMIN_TOKEN);
