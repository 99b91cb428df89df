import { z } from "zod";

/**
 * Why an instance is not `WORKING`: on the instance (`statusReason`) and in `session.status`
 * (`reason`, `detail`, `retryAt`). `reason` is one of {@link STATUS_REASONS} (stable: switch on
 * it); `detail` is what the network or the provider said (diagnostics, may change); `retryAt` is
 * when the next connection attempt is due, while the instance tries again on its own.
 * docs/lifecycle.md "Reasons" lists them.
 */
export const STATUS_REASONS = {
  // STARTING: the instance tries again on its own (`retryAt`).
  network_unreachable: "the network cannot be reached from the session pod (DNS, refused or reset connections)",
  connection_lost: "the connection dropped or stopped answering; reconnecting",
  connection_closed: "the network closed the connection; reconnecting",
  network_unavailable: "the network answered that it is unavailable (its outage); reconnecting",
  stream_error: "the network ended the session's stream with an error; reconnecting",
  version_rejected: "the network refused the protocol version claimed; retrying with a fresh one",
  replaced: "the same device connected elsewhere; backing off before reconnecting",
  restart_required_loop: "the network asked for restarts in a loop; backing off",
  operator_unavailable: "official gateway: the operator is unreachable, failing or rate limiting; checking again",
  // FAILED: nothing reconnects until `POST /start` (or a new pairing).
  logged_out: "the phone removed the device, or the network logged it out: pair again",
  forbidden: "the network refused the number (banned or blocked)",
  replaced_by_another_connection: "another client keeps taking the device: stopped fighting over it",
  bad_session: "the session is refused on every connect: pair again",
  provider_unavailable: "the instance's provider is not available on this deployment",
  operator_auth: "the operator refused the official gateway's credentials",
  operator_refused: "the operator refused the number's credentials check (its 4xx)",
  missing_credentials: "official gateway: no operator credentials set (`cloud` on the admin route)",
  // STOPPED with a reason.
  qr_expired: "nobody scanned the QR code in time: start again for a new one",
  lease_lost: "the session pod lost the instance and no other took it while it was stopped",
  device_still_linked: "logged out here, but the device could not be removed on the network: remove it on the phone",
} as const;

export type StatusReasonCode = keyof typeof STATUS_REASONS;
export const statusReasonCodes = Object.keys(STATUS_REASONS) as [StatusReasonCode, ...StatusReasonCode[]];

export const statusReasonSchema = z
  .object({
    reason: z.string().meta({ description: "a code of docs/lifecycle.md 'Reasons' (network_unreachable, …)" }),
    detail: z.string().nullable().meta({ description: "what the network or the provider said; diagnostics" }),
    retryAt: z.iso.datetime().nullable().meta({ description: "when the instance tries again on its own" }),
  })
  .meta({ id: "StatusReason", description: "Why the instance is not WORKING; null while WORKING." });
export type StatusReason = z.infer<typeof statusReasonSchema>;

/** A provider's account of why: the reason code and, when known, what was said and when it retries (ms). */
export interface StatusCause {
  reason: StatusReasonCode;
  detail?: string | undefined;
  /** Epoch milliseconds of the next attempt. */
  retryAt?: number | undefined;
}

/** The instance's `statusReason` for a cause (null without one). */
export function statusReasonOf(cause: StatusCause | null | undefined): StatusReason | null {
  if (!cause) return null;
  return {
    reason: cause.reason,
    detail: cause.detail ?? null,
    retryAt: cause.retryAt !== undefined ? new Date(cause.retryAt).toISOString() : null,
  };
}

/**
 * A logout that could not reach the network: the pairing is wiped here, and the device stays in
 * the phone's "Linked devices" until removed there (docs/lifecycle.md "Logout").
 */
export function deviceStillLinked(why: string): StatusCause {
  return { reason: "device_still_linked", detail: `${why}; remove it on the phone (Linked devices)` };
}

/** Messages of network errors that mean it cannot be reached at all (not a refusal, not a slow answer). */
export const UNREACHABLE_RE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ECONNRESET)\b|socket hang up/i;
