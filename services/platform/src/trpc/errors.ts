// In platform, not the gateway's trpc/: services/session (role.ts) uses these too, and session sits below the gateway.
import { ApiError, invalidFields } from "@gw/contracts";
import { TRPCError } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { unavailableError } from "../infra/unavailable.ts";

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

/**
 * The public error behind anything a procedure threw: its ApiError, a failed input validation,
 * or `503 network_unavailable` when Redis or Temporal could not be reached (infra/unavailable.ts).
 */
export function apiErrorOf(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof TRPCError) {
    if (err.cause instanceof ApiError) return err.cause;
    if (err.code === "BAD_REQUEST" && err.cause instanceof ZodError) {
      return invalidFields(validationDetails(err.cause));
    }
  }
  return unavailableError(err);
}

const TRPC_CODE_OF_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  501: "NOT_IMPLEMENTED",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

/**
 * tRPC `errorFormatter` for our internal transports: the public error travels in `data.api`,
 * and the tRPC code and status follow it (a 404 is NOT_FOUND, not a 500).
 */
export function formatTrpcError<S extends { code: number; message: string; data: object }>(
  shape: S,
  error: unknown,
): S {
  const api = apiErrorOf(error);
  if (!api) return { ...shape, data: { ...shape.data, stack: undefined } };
  const key = TRPC_CODE_OF_STATUS[api.status] ?? "INTERNAL_SERVER_ERROR";
  return {
    ...shape,
    code: TRPC_ERROR_CODES_BY_KEY[key],
    message: api.message,
    data: { ...shape.data, stack: undefined, code: key, httpStatus: api.status, api: api.toBody().error },
  };
}

/** tRPC adapter `responseMeta`: the HTTP status of a failed call is its public error's. */
export function statusOfErrors({ errors }: { errors: readonly unknown[] }): { status?: number } {
  const api = errors.length > 0 ? apiErrorOf(errors[0]) : undefined;
  return api ? { status: api.status } : {};
}
