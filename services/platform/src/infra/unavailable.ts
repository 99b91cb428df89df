import { ApiError } from "@gw/contracts";

// Errors that say a dependency (Redis, Temporal) cannot be reached right now — killed,
// restarting, still loading its data — rather than that the request is wrong or the code is.
// Spec 7: `503 network_unavailable` with Retry-After is the answer a client retries; a 500
// told it nothing (issue 19 §3: the chaos bench saw 500s while Redis restarted from its AOF).
const NAMES = new Set([
  "MaxRetriesPerRequestError", // ioredis: the command failed on every reconnection
  "ClientClosedError", // node-redis (redis-om)
  "ClientOfflineError",
  "SocketClosedUnexpectedlyError",
  "ConnectionTimeoutError",
  "ReconnectStrategyError",
  "TransportError", // Temporal client
  "InstanceMovingError", // its keys being copied to another shard (infra/shards/move.ts)
]);
const MESSAGES = [
  /^Connection is closed\.?$/, // ioredis, offline queue off or connection gone
  /^Stream isn't writeable/,
  /^The client is (closed|offline)/,
  /^Socket closed unexpectedly/,
  /^(LOADING|MASTERDOWN|TRYAGAIN) /, // Redis replaying its AOF, or a replica without master
];
const CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"]);
/** gRPC status codes of a Temporal ServiceError that mean "not reachable now". */
const GRPC_UNAVAILABLE = new Set([4, 14]); // DEADLINE_EXCEEDED, UNAVAILABLE

/** Whether `err` (or its cause) says Redis or Temporal cannot be reached right now. */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.name === "string" && NAMES.has(e.name)) return true;
  if (typeof e.message === "string" && MESSAGES.some((re) => re.test(e.message as string))) return true;
  if (typeof e.code === "string" && CODES.has(e.code)) return true;
  // A gRPC status (the cause of Temporal's ServiceError) carries its metadata.
  if (typeof e.code === "number" && GRPC_UNAVAILABLE.has(e.code) && "metadata" in e) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isUnavailable(x, depth + 1))) return true; // AggregateError
  return isUnavailable(e.cause, depth + 1);
}

/** `503 network_unavailable` (Retry-After 2 s) for an unreachable dependency; else undefined. */
export function unavailableError(err: unknown): ApiError | undefined {
  return isUnavailable(err) ? new ApiError("network_unavailable", undefined, undefined, 2) : undefined;
}
