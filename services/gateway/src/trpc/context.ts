import type { Platform } from "@gw/platform";
import type { Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";

/** Who is calling, as established by the transport (REST edge or internal tRPC). */
export type Caller =
  | { kind: "instance"; instanceId: string }
  | { kind: "admin" }
  | { kind: "internal"; service: string }
  | { kind: "anonymous" };

export interface Context {
  caller: Caller;
  requestId: string;
  log: FastifyBaseLogger;
  platform: Platform;
  sessions: SessionDirectory;
  sending: Sending;
  /** The HTTP exchange, when the call came through REST: request headers, and a status the procedure chose (202 for queued sends). */
  http: { headers: Record<string, string | string[] | undefined>; status?: number };
}

/** The gateway's services every request's Context carries. */
export interface Services {
  platform: Platform;
  sessions: SessionDirectory;
  sending: Sending;
}

/**
 * The Context of one HTTP request (REST, internal tRPC, MCP). `headers`: what a procedure may read
 * of the request (X-Queue, Idempotency-Key); the request's own unless the transport says otherwise.
 */
export function requestContext(
  req: FastifyRequest,
  { platform, sessions, sending }: Services,
  caller: Caller,
  headers: Context["http"]["headers"] = req.headers,
): Context {
  return { caller, requestId: String(req.id), log: req.log, platform, sessions, sending, http: { headers } };
}
