import { type ApiError, failure } from "@gw/contracts";

/**
 * A send already handed to the network when the connection dropped: whether the network took it
 * is unknown, so the answer is the spec's "timeout on a send" (`504 network_timeout`: check the
 * events before sending again; a retry under the same Idempotency-Key or body `id` is delivered
 * once), never `422 instance_not_connected`, which tells a client the message was not sent
 * (spec 7: a 4xx is not repeated). The chaos bench found such 422s on the contact's phone after
 * a pod fenced itself mid-send. Calls not yet written to the connection stay 422.
 */
export function sendInFlightLost(): ApiError {
  return failure(
    "send_outcome_unknown",
    "A conexão caiu com o envio em andamento: a mensagem pode ter sido enviada. Confira os eventos antes de repetir.",
  );
}
