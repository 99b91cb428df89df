import type { Platform } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";
import type { SessionDirectory } from "../sessions.ts";

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
}
