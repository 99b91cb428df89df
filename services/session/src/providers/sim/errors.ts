import { type ApiError, type FailureKind, failure } from "@gw/contracts";

/** simnet error codes → their class in the failure table (contracts failures.ts). */
const KIND: Record<string, FailureKind> = {
  too_many_attempts: "pairing_limited",
  not_pairing: "not_connected",
  // The connection simnet knows is not open yet: the instance is reconnecting.
  not_open: "reconnecting",
  invalid_passkey: "validation",
  not_on_network: "network_refused",
  network_rejected: "network_refused",
  restricted: "network_refused",
  blocked: "network_refused",
  invalid_target: "network_refused",
  not_found: "network_refused",
  wrong_number: "network_refused",
  bad_request: "validation",
  validation_error: "validation",
  rate_overlimit: "network_rate_limited",
};

/** The request field a refusal is about, by the operation and the content it carried. */
function fieldOf(op: string, args: unknown, code: string): string {
  const content = (args as { message?: { type?: string } } | undefined)?.message;
  if (op === "send" && (code === "invalid_target" || code === "validation_error")) {
    switch (content?.type) {
      case "reaction":
      case "edit":
      case "revoke":
        return "messageId";
      case "poll_vote":
        return code === "invalid_target" ? "pollMessageId" : "votes";
      case "event_response":
        return "eventId";
    }
  }
  if (op === "pairing-code") return "phone";
  if (op === "passkey" || op === "passkey-confirmation" || op === "passkey-confirm") return "passkey";
  return "chatId";
}

/** Portuguese texts of simnet's refusals (spec 7: `message` in Portuguese, `details` per field). */
const TEXT: Record<string, [message: string, detail: string]> = {
  not_on_network: ["O número não tem conta na rede de mensagens.", "número sem conta na rede"],
  network_rejected: ["A rede de mensagens recusou: sem permissão nesta conversa.", "sem permissão (grupo ou conversa)"],
  restricted: [
    "A conta não pode iniciar novas conversas agora (restrição da rede: limite ou bloqueio temporário).",
    "novas conversas restritas; veja GET /capping e GET /timelock",
  ],
  blocked: ["Você bloqueou este contato: desbloqueie para enviar.", "contato bloqueado por esta conta"],
  invalid_target: ["A mensagem indicada não existe para a rede.", "mensagem desconhecida ou não pertence a você"],
  not_found: ["A rede não encontrou o destino.", "destino desconhecido"],
  wrong_number: [
    "O número não é o registrado na rede (tente sem o nono dígito).",
    "use o número como registrado na rede",
  ],
  validation_error: ["A rede recusou o conteúdo.", "conteúdo inválido para a rede"],
  bad_request: ["A rede recusou a requisição.", "valor inválido"],
  invalid_passkey: ["Passkey inválida.", "asserção inválida"],
  too_many_attempts: ["Muitas tentativas de código de pareamento. Aguarde alguns minutos.", "tente mais tarde"],
  not_pairing: ["A instância não está aguardando pareamento.", "sem pareamento em andamento"],
  not_open: ["A instância não está conectada à rede.", "desconectada"],
  rate_overlimit: ["A rede de mensagens limitou as requisições. Tente novamente em instantes.", "tente mais tarde"],
};

/** A simnet refusal as the spec's error; simnet's own (English) text goes to the logs only. */
export function simError(op: string, args: unknown, code: string | undefined): ApiError {
  const c = code ?? "";
  const kind = KIND[c] ?? "network_error";
  const text = TEXT[c];
  if (!text) return failure(kind);
  // No field is wrong in what is transient or about the instance itself.
  const fieldless = kind !== "network_refused" && kind !== "validation";
  return failure(kind, text[0], fieldless ? {} : { details: { [fieldOf(op, args, c)]: text[1] } });
}
