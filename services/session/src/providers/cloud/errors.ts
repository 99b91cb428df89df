import { ApiError, type FailureKind, failure } from "@gw/contracts";
import { GraphError } from "./graph.ts";

/**
 * The operator's error codes (reference cloud-api.md §2.2) → the spec's (section 7), with the
 * operator's code and message kept in `details` (`operatorCode`, `operatorMessage`). docs/official.md
 * has the table.
 */

interface Mapping {
  /** Its class in the failure table (contracts failures.ts): the code, whether to retry, Retry-After. */
  kind: FailureKind;
  /** The request field the error is about, when there is one. */
  field?: string;
  text: string;
  /** Seconds to wait, when the operator's code says more than its class. */
  retryAfter?: number;
}

const WINDOW_TEXT =
  "fora da janela de 24 h da conversa: o cliente não escreveu nas últimas 24 h; use /messages/template";

export const GRAPH_ERRORS: Record<number, Mapping> = {
  // Credentials and permissions
  0: { kind: "operator_auth", text: "O operador não autenticou as credenciais." },
  190: { kind: "operator_auth", text: "O token de acesso do operador é inválido ou expirou." },
  10: { kind: "operator_auth", text: "O token do operador não tem permissão para esta operação." },
  200: { kind: "operator_auth", text: "O token do operador não tem permissão para esta operação." },
  3: { kind: "operator_auth", text: "O aplicativo do operador não tem esta capacidade." },
  133010: { kind: "operator_auth", text: "O número não está registrado na API do operador." },
  // Rate limits
  4: { kind: "operator_rate_limited", text: "Limite de chamadas do aplicativo no operador atingido.", retryAfter: 60 },
  80007: {
    kind: "operator_rate_limited",
    text: "Limite de chamadas da conta (WABA) no operador atingido.",
    retryAfter: 60,
  },
  130429: { kind: "operator_rate_limited", text: "Limite de envios por segundo do número atingido.", retryAfter: 1 },
  131056: {
    kind: "operator_rate_limited",
    field: "chatId",
    text: "Muitas mensagens para este contato em pouco tempo (limite por par do operador).",
    retryAfter: 6,
  },
  131048: { kind: "operator_refused", text: "Envio bloqueado pelo operador: limite de spam (qualidade)." },
  // The conversation and the recipient
  131047: { kind: "operator_refused", field: "chatId", text: WINDOW_TEXT },
  131026: {
    kind: "operator_refused",
    field: "chatId",
    text: "mensagem não entregável: o número não tem conta, não aceitou os termos ou usa um app antigo",
  },
  131049: {
    kind: "operator_refused",
    field: "chatId",
    text: "não entregue para manter o engajamento do ecossistema (limite de marketing por usuário)",
  },
  131050: { kind: "operator_refused", field: "chatId", text: "o cliente pediu para não receber marketing" },
  131021: { kind: "validation", field: "chatId", text: "o destinatário não pode ser o próprio número" },
  131062: { kind: "validation", field: "chatId", text: "este envio não aceita um id de usuário (BSUID)" },
  // Policy
  368: { kind: "operator_refused", text: "A conta está temporariamente bloqueada por violação de políticas." },
  131031: { kind: "operator_refused", text: "A conta do operador está bloqueada." },
  131042: { kind: "operator_refused", text: "Problema de elegibilidade ou pagamento da conta no operador." },
  131005: { kind: "operator_refused", text: "Acesso negado pelo operador." },
  // The request
  100: { kind: "validation", field: "body", text: "parâmetro inválido para o operador" },
  131008: { kind: "validation", field: "body", text: "parâmetro obrigatório ausente" },
  131009: { kind: "validation", field: "body", text: "valor de parâmetro inválido" },
  131051: { kind: "validation", field: "body", text: "tipo de mensagem não suportado" },
  131053: { kind: "validation", field: "file", text: "o operador não aceitou a mídia (tipo, tamanho ou link)" },
  132000: { kind: "validation", field: "template", text: "o número de parâmetros não confere com o template" },
  132001: {
    kind: "validation",
    field: "template.name",
    text: "template inexistente ou não aprovado neste idioma",
  },
  132005: { kind: "validation", field: "template", text: "o texto do template com os parâmetros é longo demais" },
  132007: { kind: "validation", field: "template", text: "o conteúdo viola as políticas de templates" },
  132012: { kind: "validation", field: "template", text: "formato de parâmetro incompatível com o template" },
  132015: { kind: "operator_refused", field: "template.name", text: "template pausado pela qualidade baixa" },
  132016: { kind: "operator_refused", field: "template.name", text: "template desativado" },
  135000: { kind: "validation", field: "body", text: "erro genérico do operador sobre a requisição" },
  // The operator itself
  131000: { kind: "operator_error", text: "Erro desconhecido no operador.", retryAfter: 5 },
  131016: { kind: "operator_unavailable", text: "O operador está indisponível.", retryAfter: 30 },
  131057: { kind: "operator_unavailable", text: "O número está em manutenção no operador.", retryAfter: 60 },
  2: { kind: "operator_unavailable", text: "O operador está indisponível.", retryAfter: 30 },
  1: { kind: "operator_error", text: "Erro desconhecido no operador.", retryAfter: 5 },
};

/** Codes that mean the credentials themselves no longer work: the instance is FAILED. */
const AUTH_CODES = new Set([0, 102, 190]);

/**
 * The credentials were refused: the operator's auth codes; or, when the answer carried no
 * operator error body (a proxy's page, an empty answer), only an HTTP 401 says so.
 */
export function isAuthFailure(err: unknown): err is GraphError {
  if (!(err instanceof GraphError) || err.transport) return false;
  return err.code === null ? err.status === 401 : AUTH_CODES.has(err.code);
}

/**
 * An answer without the operator's error body: what its HTTP status says. A 5xx or 429 from the
 * operator or a proxy in front of it is transient (tried again after Retry-After); a 401 is an
 * authentication failure (handled by {@link isAuthFailure}); a 404 usually means a wrong
 * `apiBaseUrl`.
 */
function statusMapping(status: number): Mapping {
  const http = `HTTP ${status}`;
  if (status === 502 || status === 503 || status === 504) {
    return { kind: "operator_unavailable", text: `O operador está indisponível (${http}).`, retryAfter: 5 };
  }
  if (status >= 500) return { kind: "operator_error", text: `Erro no operador (${http}).` };
  if (status === 429) {
    return { kind: "operator_rate_limited", text: `Limite de chamadas no operador atingido (${http}).` };
  }
  if (status === 408) {
    return { kind: "operator_unavailable", text: `O operador não respondeu a tempo (${http}).`, retryAfter: 5 };
  }
  if (status === 401) return { kind: "operator_auth", text: `O operador recusou as credenciais (${http}).` };
  if (status === 403) return { kind: "operator_auth", text: `Acesso negado no operador (${http}).` };
  if (status === 404) {
    return { kind: "operator_auth", text: `Endereço inexistente no operador (${http}); confira cloud.apiBaseUrl.` };
  }
  return { kind: "operator_refused", text: `O operador recusou a requisição (${http}).` };
}

function mappingOf(code: number): Mapping | undefined {
  if (GRAPH_ERRORS[code]) return GRAPH_ERRORS[code];
  if (code >= 200 && code < 300) return GRAPH_ERRORS[200];
  return undefined;
}

/** `err` as the spec's error, the operator's code and message in `details`. */
export function apiErrorOfGraph(err: unknown, fieldHint?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (!(err instanceof GraphError)) return failure("operator_error", String((err as Error)?.message ?? err));
  if (err.transport) {
    return err.message === "timeout"
      ? failure("network_timeout")
      : failure("operator_unavailable", "O operador não respondeu; tente de novo.", { retryAfter: 5 });
  }
  if (err.code === null) {
    // Not the operator's error body: the HTTP status is all there is (kept as operatorStatus).
    const m = statusMapping(err.status);
    return failure(m.kind, m.text, {
      details: { operatorStatus: String(err.status) },
      ...retryOf(err.retryAfter ?? m.retryAfter),
    });
  }
  const m = mappingOf(err.code);
  const operator = {
    operatorCode: String(err.code),
    operatorMessage: err.details ? `${err.message} — ${err.details}` : err.message,
  };
  if (!m) {
    return failure(err.status >= 500 ? "operator_error" : "operator_refused", `O operador recusou: ${err.message}`, {
      details: operator,
    });
  }
  const field = m.field === "body" ? (fieldHint ?? "body") : m.field;
  const details = field ? { [field]: m.text, ...operator } : operator;
  const message = m.field ? (m.kind === "validation" ? "Campos inválidos." : `O operador recusou: ${m.text}.`) : m.text;
  return failure(m.kind, message, { details, ...retryOf(err.retryAfter ?? m.retryAfter) });
}

/** The operator's own Retry-After (or the code's) over the class's. */
const retryOf = (seconds: number | undefined) => (seconds !== undefined ? { retryAfter: seconds } : {});

/**
 * A failure worth trying again later (the operator unreachable, failing on its side, or rate
 * limiting): at start the instance stays STARTING and checks again instead of turning FAILED.
 */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof GraphError)) return false;
  if (err.transport) return true;
  const mapped = apiErrorOfGraph(err);
  return mapped.code === "rate_limited" || mapped.code === "network_unavailable" || err.status >= 500;
}

/** An async failure of a status webhook (`errors[0]`) → the ack's error (spec 2.9 `{code, message}`). */
export function ackErrorOf(e: { code?: number; title?: string; message?: string; error_data?: { details?: string } }) {
  const m = typeof e.code === "number" ? mappingOf(e.code) : undefined;
  const own = e.error_data?.details ?? e.message ?? e.title ?? "falha no envio";
  return { ...(typeof e.code === "number" ? { code: e.code } : {}), message: m ? `${m.text} (${own})` : own };
}
