/** Error codes simnet answers with, on the wire (`response.error.code`) and in the control API. */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_error: 400,
  unauthorized: 401,
  network_rejected: 403,
  restricted: 403,
  /** A personal account asked for what only business accounts have (labels). */
  not_business: 403,
  blocked: 403,
  not_found: 404,
  not_on_network: 404,
  invalid_qr: 404,
  invalid_code: 404,
  invalid_target: 404,
  not_pairing: 409,
  not_open: 409,
  wrong_number: 409,
  invalid_passkey: 400,
  code_expired: 410,
  too_many_attempts: 429,
  rate_overlimit: 429,
  unknown_op: 400,
  internal_error: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class SimnetError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
  toBody() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}
