import { ApiError, ERROR_STATUS, type ErrorCode } from "./errors.ts";
import type { ConnectionStatus } from "./instance.ts";
import type { StatusReason } from "./status-reasons.ts";

/**
 * Every way an operation can fail, as the client must read it (spec 7): the code and status it
 * answers, whether repeating the same request can succeed, and the `Retry-After` it carries. A
 * transient condition answers `503 network_unavailable` (or `504 network_timeout` when a send's
 * outcome is unknown) with `Retry-After`; a 4xx only for what repeating cannot fix. Every provider
 * maps its errors into this table (services/session/src/providers/…/errors.ts), and
 * docs/api.md "Failures" lists it.
 */
export interface FailureClass {
  code: ErrorCode;
  /** Repeating the same request later can succeed (the client should, after `retryAfter`). */
  retryable: boolean;
  /** Seconds for `Retry-After` (retryable classes). */
  retryAfter?: number;
  /** What happened, for the docs. */
  what: string;
}

export const FAILURES = {
  // The instance's connection, on our side.
  lease_lost: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 2,
    what: "the session pod lost the instance's lease (fenced, or letting go of it); another takes it within seconds",
  },
  owner_missing: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 2,
    what: "no session pod holds the instance right now (a takeover under way)",
  },
  connection_closed: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 2,
    what: "the connection to the network closed before the operation reached it; the instance reconnects",
  },
  reconnecting: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 5,
    what: "the instance is STARTING (connecting or reconnecting); `statusReason` says why and when it tries again",
  },
  send_outcome_unknown: {
    code: "network_timeout",
    retryable: true,
    retryAfter: 2,
    what: "the connection dropped with the send on its way: check the events before repeating (or repeat with the same Idempotency-Key)",
  },
  // The network.
  network_timeout: {
    code: "network_timeout",
    retryable: true,
    retryAfter: 5,
    what: "the network did not answer in time",
  },
  network_unreachable: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 10,
    what: "the network cannot be reached (DNS, refused connections, its outage)",
  },
  network_rate_limited: {
    code: "network_error",
    retryable: true,
    retryAfter: 5,
    what: "the network limited the account's requests (`rate-overlimit`)",
  },
  network_error: {
    code: "network_error",
    retryable: true,
    retryAfter: 5,
    what: "the network failed while processing (its 5xx, an answer we cannot read)",
  },
  network_refused: {
    code: "network_rejected",
    retryable: false,
    what: "the network refused the operation (a permission, a number without an account, an invalid target)",
  },
  // The official gateway's operator.
  operator_auth: {
    code: "network_error",
    retryable: true,
    retryAfter: 60,
    what: "the operator refused the instance's credentials or permissions: fix them (PATCH the instance's cloud settings), then repeat",
  },
  operator_refused: {
    code: "network_rejected",
    retryable: false,
    what: "the operator refused the request (its 4xx: policy, window closed, invalid parameter)",
  },
  operator_rate_limited: {
    code: "rate_limited",
    retryable: true,
    retryAfter: 60,
    what: "the operator's rate or pair-rate limit for the number",
  },
  operator_error: {
    code: "network_error",
    retryable: true,
    retryAfter: 5,
    what: "the operator failed (its 5xx, an unknown error)",
  },
  operator_unavailable: {
    code: "network_unavailable",
    retryable: true,
    retryAfter: 30,
    what: "the operator is temporarily unavailable",
  },
  // The request and the instance.
  not_connected: {
    code: "instance_not_connected",
    retryable: false,
    what: "the instance is STOPPED, FAILED, logged out or waiting for a QR scan: someone must act (start, pair)",
  },
  validation: {
    code: "validation_error",
    retryable: false,
    what: "a field is invalid (`details` says which)",
  },
  rate_limited: {
    code: "rate_limited",
    retryable: true,
    retryAfter: 1,
    what: "the instance's request rate (spec 8)",
  },
  pairing_limited: {
    code: "too_many_attempts",
    retryable: true,
    retryAfter: 120,
    what: "too many pairing codes asked for the number in the last minutes",
  },
} as const satisfies Record<string, FailureClass>;

export type FailureKind = keyof typeof FAILURES;

/** The status a class answers with. */
export const failureStatus = (kind: FailureKind): number => ERROR_STATUS[FAILURES[kind].code];

/** An error of a class: its code and `Retry-After`, the message given or the code's own. */
export function failure(
  kind: FailureKind,
  message?: string,
  opts: { details?: Record<string, string>; retryAfter?: number } = {},
): ApiError {
  const c: FailureClass = FAILURES[kind];
  const retryAfter = opts.retryAfter ?? c.retryAfter;
  return new ApiError(c.code, message, opts.details, c.retryable ? retryAfter : undefined);
}

/**
 * The answer for an instance that is not where an operation needs it: while it is STARTING it
 * gets somewhere on its own, so `503 network_unavailable` with `Retry-After` (its next attempt
 * when known); otherwise someone must act (start, pair): `422 instance_not_connected`. Either
 * way the message says why (`statusReason`, docs/lifecycle.md "Reasons").
 */
export function notInStatus(
  instance: { connectionStatus: ConnectionStatus; statusReason?: StatusReason | null | undefined },
  what: string,
  details: Record<string, string>,
  now = Date.now(),
): ApiError {
  const r = instance.statusReason;
  const why = r ? ` (${r.reason}${r.detail ? `: ${r.detail}` : ""})` : "";
  const message = `${what}; estado atual: ${instance.connectionStatus}${why}.`;
  if (instance.connectionStatus !== "STARTING") return failure("not_connected", message, { details });
  const retryAt = r?.retryAt ? Date.parse(r.retryAt) : Number.NaN;
  const wait = Number.isFinite(retryAt) ? Math.max(1, Math.ceil((retryAt - now) / 1000)) : undefined;
  const next = wait !== undefined ? ` Nova tentativa em ${wait} s.` : "";
  return failure("reconnecting", `${message}${next}`, { details, ...(wait !== undefined ? { retryAfter: wait } : {}) });
}

/** `notInStatus` unless the instance is WORKING (spec 3.1): what every network operation needs. */
export function requireWorking(instance: Parameters<typeof notInStatus>[0]): void {
  if (instance.connectionStatus === "WORKING") return;
  throw notInStatus(instance, "Número não conectado", {
    connectionStatus: `esperado WORKING, atual ${instance.connectionStatus}`,
  });
}
