import { randomBytes } from "node:crypto";

/**
 * The operator's error answers (reference cloud-api.md §2.1):
 * `{error: {message: "(#<code>) <title>", type, code, error_data?, error_subcode?, fbtrace_id}}`.
 * The HTTP status of each code follows the older error table the reference mirrors (§2.2).
 */
export const GRAPH_CODES: Record<number, { status: number; title: string; type?: string }> = {
  0: { status: 401, title: "AuthException", type: "OAuthException" },
  4: { status: 400, title: "Application request limit reached" },
  10: { status: 403, title: "Permission denied", type: "OAuthException" },
  100: { status: 400, title: "Invalid parameter" },
  190: { status: 401, title: "Access token has expired", type: "OAuthException" },
  200: { status: 403, title: "Permission denied", type: "OAuthException" },
  368: { status: 403, title: "Temporarily blocked for policies violations" },
  80007: { status: 400, title: "Rate limit issues" },
  130429: { status: 400, title: "Rate limit hit" },
  131000: { status: 500, title: "Something went wrong" },
  131005: { status: 403, title: "Access denied" },
  131008: { status: 400, title: "Required parameter is missing" },
  131009: { status: 400, title: "Parameter value is not valid" },
  131016: { status: 500, title: "Service unavailable" },
  131021: { status: 400, title: "Recipient cannot be sender" },
  131026: { status: 400, title: "Message Undeliverable" },
  131031: { status: 403, title: "Account has been locked" },
  131042: { status: 400, title: "Business eligibility payment issue" },
  131047: { status: 400, title: "Re-engagement message" },
  131048: { status: 400, title: "Spam rate limit hit" },
  131051: { status: 400, title: "Unsupported message type" },
  131053: { status: 400, title: "Media upload error" },
  131056: { status: 400, title: "(Business Account, Consumer Account) pair rate limit hit" },
  131057: { status: 500, title: "Account in maintenance mode" },
  132000: { status: 400, title: "Number of parameters does not match the expected number of params" },
  132001: { status: 404, title: "Template name does not exist in the translation" },
  132015: { status: 400, title: "Template is Paused" },
  132016: { status: 400, title: "Template is Disabled" },
  133010: { status: 400, title: "Phone number not registered" },
};

export class GraphFault extends Error {
  readonly status: number;
  constructor(
    readonly code: number,
    readonly details?: string,
    opts: { status?: number; subcode?: number; title?: string } = {},
  ) {
    const known = GRAPH_CODES[code];
    super(opts.title ?? known?.title ?? "Error");
    this.status = opts.status ?? known?.status ?? 400;
    this.subcode = opts.subcode;
  }
  readonly subcode: number | undefined;

  body() {
    const known = GRAPH_CODES[this.code];
    return {
      error: {
        message: `(#${this.code}) ${this.message}`,
        type: known?.type ?? "OAuthException",
        code: this.code,
        ...(this.details ? { error_data: { messaging_product: "whatsapp", details: this.details } } : {}),
        ...(this.subcode !== undefined ? { error_subcode: this.subcode } : {}),
        fbtrace_id: randomBytes(9).toString("base64url"),
      },
    };
  }
}

/** Asynchronous failures (a `failed` status webhook's `errors[0]`). */
export function webhookError(code: number, details: string) {
  const title = GRAPH_CODES[code]?.title ?? "Error";
  return {
    code,
    title,
    message: title,
    error_data: { details },
    href: "/documentation/business-messaging/whatsapp/support/error-codes",
  };
}

/** Errors of the control API (ours, not the operator's). */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
