import { ApiError } from "@gw/contracts";
import { TRPCError } from "@trpc/server";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ZodError } from "zod";
import { apiErrorOf } from "../trpc/init.ts";

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.retryAfter !== undefined) reply.header("retry-after", String(err.retryAfter));
  return reply.code(err.status).type("application/json; charset=utf-8").send(err.toBody());
}

/**
 * `details` of a 422: each wrong field mapped to its first message, under its own name
 * (`details.deviceName`, as clients look it up) and, when nested, under its full dotted path
 * too (`details["client.deviceName"]`), which stays unambiguous.
 */
export function validationDetails(error: ZodError): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    const text = issue.code === "invalid_type" && issue.input === undefined ? "campo obrigatório" : issue.message;
    const path = issue.path.map(String);
    const leaf = [...path].reverse().find((p) => !/^\d+$/.test(p));
    details[leaf ?? "body"] ??= text;
    if (path.length > 1) details[path.join(".")] ??= text;
  }
  return details;
}

/** Maps anything thrown while serving a request to the spec's error body. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  const api = apiErrorOf(err);
  if (api) return api;
  if (err instanceof TRPCError && err.cause instanceof ZodError && err.code === "BAD_REQUEST") {
    return new ApiError("validation_error", "Campos inválidos.", validationDetails(err.cause));
  }
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
  req.log.error({ err }, "unexpected error");
  return new ApiError("internal_error", undefined, { requestId: String(req.id) });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => sendError(reply, toApiError(err, req)));
  app.setNotFoundHandler((_req, reply) => sendError(reply, new ApiError("not_found", "Rota não encontrada.")));
}
