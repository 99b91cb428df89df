import { z } from "zod";

/** Every public error code of spec section 7 with its HTTP status. `code` is the contract. */
export const ERROR_STATUS = {
  bad_request: 400,
  url_not_allowed: 400,
  missing_token: 401,
  invalid_token: 401,
  invalid_client_token: 401,
  payment_required: 402,
  not_found: 404,
  instance_not_provisioned: 409,
  payload_too_large: 413,
  validation_error: 422,
  instance_not_connected: 422,
  network_rejected: 422,
  rate_limited: 429,
  trial_limit_reached: 429,
  queue_full: 429,
  too_many_attempts: 429,
  internal_error: 500,
  not_supported_by_provider: 501,
  official_api_only: 501,
  not_supported: 501,
  network_error: 502,
  network_unavailable: 503,
  network_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const errorCodes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Default Portuguese messages; a thrower may give a more precise one. */
export const ERROR_MESSAGES: Record<ErrorCode, string> = {
  bad_request: "Requisição inválida.",
  url_not_allowed: "URL não permitida: endereço interno ou porta diferente de 80/443.",
  missing_token: "Token da instância ausente. Envie o cabeçalho X-Instance-Token.",
  invalid_token: "Token da instância inválido.",
  invalid_client_token: "Client-Token ausente ou inválido.",
  payment_required: "Instância sem assinatura ativa.",
  not_found: "Recurso não encontrado.",
  instance_not_provisioned: "Instância ainda não provisionada.",
  payload_too_large: "Corpo da requisição acima do limite. Envie arquivos grandes por URL.",
  validation_error: "Campo inválido.",
  instance_not_connected: "Número não conectado. Verifique o connectionStatus.",
  network_rejected: "A rede de mensagens recusou a operação.",
  rate_limited: "Muitas requisições. Aguarde o tempo indicado em Retry-After.",
  trial_limit_reached: "Limite diário de mensagens do período de teste atingido.",
  queue_full: "A fila já contém 10.000 mensagens pendentes.",
  too_many_attempts: "Muitas tentativas de código de pareamento. Aguarde alguns minutos.",
  internal_error: "Erro interno. Informe o requestId ao suporte.",
  not_supported_by_provider: "Rota indisponível em instâncias do gateway oficial.",
  official_api_only: "Rota disponível apenas em instâncias do gateway oficial.",
  not_supported: "Recurso indisponível em instâncias padrão.",
  network_error: "Erro da rede de mensagens ao processar a operação.",
  network_unavailable: "Serviço temporariamente indisponível. Tente novamente após Retry-After.",
  network_timeout: "A rede de mensagens demorou demais para responder.",
};

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(errorCodes),
      message: z.string(),
      details: z.record(z.string(), z.string()).optional(),
    }),
  })
  .meta({ id: "Error", description: "Every error body. Handle errors by `code`." });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The one error type thrown anywhere below the HTTP edge. Transports turn it into the spec
 * body (REST) or into error data (internal tRPC) without losing `code`.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, string>,
    /** Seconds for the Retry-After header (429, 502, 503). */
    readonly retryAfter?: number,
  ) {
    super(message ?? ERROR_MESSAGES[code]);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/**
 * `422 validation_error` naming the wrong field (spec 7: `details` maps the field to a text). The
 * one way to say a request is invalid; `message` defaults to the code's generic one.
 */
export function invalid(field: string, text: string, message = "Campos inválidos."): ApiError {
  return new ApiError("validation_error", message, { [field]: text });
}

/** {@link invalid} for several fields at once (or details built elsewhere, e.g. from a zod error). */
export function invalidFields(details: Record<string, string> | undefined, message = "Campos inválidos."): ApiError {
  return new ApiError("validation_error", message, details);
}
