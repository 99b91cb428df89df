import type { Platform } from "@gw/platform";
import type { Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import type { FastifyBaseLogger } from "fastify";

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
