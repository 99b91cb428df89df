import { ApiError } from "@gw/contracts";
import { apiErrorOf } from "@gw/platform";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { registerMethodNotAllowed } from "./methods.ts";

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.retryAfter !== undefined) reply.header("retry-after", String(err.retryAfter));
  return reply.code(err.status).type("application/json; charset=utf-8").send(err.toBody());
}

/** Maps anything thrown while serving a request to the spec's error body. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  const api = apiErrorOf(err);
  if (api) return api;
  const fe = err as Partial<FastifyError>;
  switch (fe.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError("payload_too_large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError("bad_request", "Content-Type não suportado: envie application/json.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError("bad_request", "Content-Length não confere com o corpo enviado.");
  }
  if (fe.statusCode === 400 || err instanceof SyntaxError) {
    return new ApiError("bad_request", "JSON inválido no corpo da requisição.");
  }
  if (fe.statusCode === 413) return new ApiError("payload_too_large");
  req.log.error({ err, requestId: req.id }, "unexpected error");
  return new ApiError("internal_error", undefined, { requestId: String(req.id) });
}

/** The error body for everything thrown; 405 for a known path's other methods; 404 for the rest. Before the routes. */
export function registerErrorHandling(app: FastifyInstance): void {
  registerMethodNotAllowed(app);
  app.setErrorHandler((err, req, reply) => sendError(reply, toApiError(err, req)));
  app.setNotFoundHandler((_req, reply) => sendError(reply, new ApiError("not_found", "Rota não encontrada.")));
}
