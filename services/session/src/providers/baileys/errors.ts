import { ApiError, failure } from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import { DisconnectReason } from "@whiskeysockets/baileys";
import { describeDisconnectError } from "./connection/policy.ts";

/**
 * A failed messaging call (send, number check, receipts, presence) as its class in the failure
 * table (contracts failures.ts). Baileys fails in two ways: Boom errors of its own (`Timed Out`
 * 408, `Connection Closed` 428, …) and the server's `<error code text>` nodes, which
 * `assertNodeErrorFree` turns into a Boom with the server's code in `data` and the default status
 * 500. Both are read here.
 *
 * | error                                                         | class (code)             |
 * |---------------------------------------------------------------|--------------------------|
 * | `ApiError`                                                    | as it is                 |
 * | lease lost (`StaleLeaseError`)                                | lease_lost (503)         |
 * | `Connection Closed`/`Terminated`/`was lost`, 428              | connection_closed (503): nothing reached the network; it reconnects |
 * | 408 / `Timed Out`; a query nobody answered (`Invalid … response` without a response node) | network_timeout (504) |
 * | 429 / `rate-overlimit`                                        | network_rate_limited (502, Retry-After 5) |
 * | other 4xx (status or server code), `not-authorized`, `forbidden`, `item-not-found`, `not-acceptable`, `bad-request` | network_refused (422) |
 * | anything else                                                 | network_error (502)      |
 */
export function mapNetworkError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StaleLeaseError) return failure("lease_lost");
  const e = (typeof err === "object" && err !== null ? err : {}) as BoomLike;
  const message = typeof e.message === "string" ? e.message : String(err);
  const status = typeof e.output?.statusCode === "number" ? e.output.statusCode : undefined;
  const serverCode = typeof e.data === "number" && Number.isFinite(e.data) ? e.data : undefined;

  if (CLOSED_RE.test(message) || status === DisconnectReason.connectionClosed) {
    return failure("connection_closed", "A conexão com a rede caiu antes da operação; a instância está reconectando.");
  }
  // Baileys' `query()` resolves `undefined` when no answer came within `defaultQueryTimeoutMs`;
  // the group metadata parser then fails on the missing node (no `data`: there was no response).
  const unanswered = NO_ANSWER_RE.test(message) && (e.data === undefined || e.data === null);
  if (status === DisconnectReason.timedOut || serverCode === 408 || /timed out/i.test(message) || unanswered) {
    return failure("network_timeout");
  }
  if (status === 429 || serverCode === 429 || /rate-overlimit/i.test(message)) {
    return failure("network_rate_limited", "A rede de mensagens limitou as requisições. Tente novamente em instantes.");
  }
  const code = serverCode ?? status;
  if ((code !== undefined && code >= 400 && code < 500) || REJECTED_RE.test(message)) {
    const reason = message && message !== "Unknown error" ? ` (${message.slice(0, 80)})` : "";
    return failure("network_refused", `A rede de mensagens recusou a operação${reason}.`);
  }
  return failure("network_error");
}

/**
 * A failed pairing-code request or account query (capping, timelock) as its class: timeouts and
 * closed connections by their status, anything else `network_error`.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const { statusCode } = describeDisconnectError(err);
  if (statusCode === 408) return failure("network_timeout");
  if (statusCode === 428) return failure("connection_closed");
  return failure("network_error");
}

/**
 * The code of a failed query: the server's `<error code>` (in the Boom's `data`; its status is then
 * the default 500), else Baileys' own status. `undefined` for anything that is not such an error.
 */
export function networkCodeOf(err: unknown): number | undefined {
  const e = (typeof err === "object" && err !== null ? err : {}) as BoomLike;
  if (typeof e.data === "number" && Number.isFinite(e.data)) return e.data;
  return typeof e.output?.statusCode === "number" ? e.output.statusCode : undefined;
}

interface BoomLike {
  message?: unknown;
  output?: { statusCode?: unknown };
  data?: unknown;
}

const NO_ANSWER_RE = /^Invalid .*response/i;
const CLOSED_RE = /^Connection (Closed|Terminated|was lost)/i;
const REJECTED_RE = /\b(not-authorized|forbidden|item-not-found|not-acceptable|bad-request)\b/i;
