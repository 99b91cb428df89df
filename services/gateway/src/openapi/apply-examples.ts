import { ERROR_MESSAGES, type ErrorBody, type ErrorCode } from "@gw/contracts";
import { validationDetails } from "@gw/platform";
import { ZodError, type z } from "zod";
import { PATH_ID_PATTERNS } from "../http/rest.ts";
import type { Meta } from "../trpc/meta.ts";
import type { ErrorExample, OperationExample } from "./examples/define.ts";
import { EXAMPLES, PATH_EXAMPLES } from "./examples/index.ts";
import { queuedItem } from "./examples/samples.ts";

/**
 * Examples in the OpenAPI document (issue 18): every operation shows a request and its answer.
 *
 * One mechanism: a table of examples per procedure (openapi/examples/<area>.ts, typed by the
 * procedure's own input and output), kept out of the routers so that a route's code and its
 * documentation samples change independently. This module puts them where OpenAPI 3.1 and Swagger
 * UI read them: the body on the request media type's `example`, path and query values on each
 * parameter's `example`, the answer on the success response's `example`, a 202 queue item on
 * queued sends, and on every error response one named example per code it can answer (the
 * route's own message and `details` where the table gives them, else the code's default
 * Portuguese message; a 422 shows the `details` the route answers to an empty request or to a
 * malformed path parameter).
 * openapi/examples.test.ts fails when an operation lacks one or an example does not validate
 * against the procedure's zod schemas and the rendered JSON Schema.
 */

type Parser = z.ZodType;
type MediaType = { schema?: unknown; example?: unknown; examples?: Record<string, unknown> };
type Parameter = { in: string; name: string; example?: unknown };
type Operation = {
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description?: string; content?: Record<string, MediaType> }>;
};

/** A procedure's zod input parsers (tRPC merges their results) and output parser. */
export function procedureSchemas(procedure: unknown): { inputs: Parser[]; output: Parser | undefined } {
  const def = (procedure as { _def: { inputs?: Parser[]; output?: Parser } })._def;
  return { inputs: def.inputs ?? [], output: def.output };
}

/** The procedure's examples, or undefined when it has none (the test names it). */
export function examplesOf(path: string): OperationExample | undefined {
  return EXAMPLES[path];
}

/** The path parameters of an example: the shared ones, with the example's own in their place. */
export function pathValues(openapiPath: string, ex: OperationExample | undefined): Record<string, string> {
  const names = [...openapiPath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return Object.fromEntries(names.map((n) => [n, ex?.path?.[n] ?? PATH_EXAMPLES[n] ?? ""]));
}

/** The 422's `details` the route answers to `input`, if it refuses it (tRPC stops at the first parser). */
function detailsFor(inputs: Parser[], input: Record<string, string>): Record<string, string> | undefined {
  for (const parser of inputs) {
    const r = parser.safeParse(input);
    if (!r.success && r.error instanceof ZodError) return validationDetails(r.error);
  }
  return undefined;
}

/**
 * A 422 the route really answers, found by asking its schemas: a request without body or query
 * (the required fields), else one whose path parameter is malformed (ids the REST edge checks
 * answer 404 instead).
 */
function validationExample(inputs: Parser[], path: Record<string, string>): Record<string, string> | undefined {
  const empty = detailsFor(inputs, path);
  if (empty) return empty;
  for (const name of Object.keys(path)) {
    if (name in PATH_ID_PATTERNS) continue;
    const details = detailsFor(inputs, { ...path, [name]: "@" });
    if (details) return details;
  }
  return undefined;
}

const errorBody = (code: ErrorCode, e: ErrorExample | undefined): ErrorBody => ({
  error: { code, message: e?.message ?? ERROR_MESSAGES[code], ...(e?.details ? { details: e.details } : {}) },
});

/** Messages of codes whose wording depends on the kind of route, not on the route itself. */
export interface ErrorContext {
  auth: Meta["auth"];
  /** The 501 messages of the capability table for this route. */
  capability: Partial<Record<ErrorCode, string>>;
}

function contextual(code: ErrorCode, ctx: ErrorContext, details422: Record<string, string> | undefined) {
  if (ctx.auth === "admin" && code === "missing_token") {
    return { message: "Token de administrador ausente (Authorization: Bearer)." };
  }
  if (ctx.auth === "admin" && code === "invalid_token") return { message: "Token de administrador inválido." };
  const cap = ctx.capability[code];
  if (cap) return { message: cap };
  switch (code) {
    case "validation_error":
      return details422 ? { message: "Campos inválidos.", details: details422 } : undefined;
    case "instance_not_connected":
      return { message: ERROR_MESSAGES[code], details: { connectionStatus: "esperado WORKING, atual STOPPED" } };
    case "internal_error":
      return { message: ERROR_MESSAGES[code], details: { requestId: "req_9f3a1c7e2kq" } };
    default:
      return undefined;
  }
}

type NamedExample = { value: ErrorBody } | { $ref: string };

/**
 * One named example per error code of a response (`examples`, as Swagger UI lists them): named
 * after the code, which is what a `summary` would repeat.
 */
export function errorExamples(
  codes: ErrorCode[],
  ex: OperationExample | undefined,
  ctx: ErrorContext,
  procedure: unknown,
  openapiPath: string,
): Record<string, NamedExample> {
  const details422 = codes.includes("validation_error")
    ? validationExample(procedureSchemas(procedure).inputs, pathValues(openapiPath, ex))
    : undefined;
  return Object.fromEntries(
    codes.map((code) => [code, { value: errorBody(code, ex?.errors?.[code] ?? contextual(code, ctx, details422)) }]),
  );
}

/**
 * Error bodies that several operations share (most: the code's default message) are kept once in
 * `components.examples` and referred to (a sixth of the document otherwise). Each code's default
 * body is named after the code, its other shared bodies `<code>.2`, `<code>.3`…
 */
export function shareErrorExamples(document: object): void {
  const doc = document as {
    paths?: Record<string, Record<string, Operation>>;
    components?: { examples?: Record<string, unknown> };
  };
  const uses = new Map<string, { named: { value: ErrorBody }; refs: Record<string, NamedExample>[] }>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const examples = Number(status) >= 400 ? response.content?.["application/json"]?.examples : undefined;
        for (const named of Object.values(examples ?? {}) as NamedExample[]) {
          if (!("value" in named)) continue;
          const key = JSON.stringify(named.value);
          const seen = uses.get(key) ?? { named, refs: [] };
          seen.refs.push(examples as Record<string, NamedExample>);
          uses.set(key, seen);
        }
      }
    }
  }
  const shared: Record<string, { value: ErrorBody }> = {};
  const variants = new Map<ErrorCode, number>();
  // A code's default body first, so that it gets the code's own name.
  const isDefault = ({ error }: ErrorBody) => error.message === ERROR_MESSAGES[error.code] && !error.details;
  const ordered = [...uses.values()].sort(
    (a, b) => Number(isDefault(b.named.value)) - Number(isDefault(a.named.value)),
  );
  for (const { named, refs } of ordered) {
    if (refs.length < 2) continue;
    const code = named.value.error.code;
    const n = (variants.get(code) ?? 0) + 1;
    variants.set(code, n);
    const name = n === 1 ? code : `${code}.${n}`;
    shared[name] = named;
    for (const examples of refs) examples[code] = { $ref: `#/components/examples/${name}` };
  }
  doc.components = { ...doc.components, examples: { ...doc.components?.examples, ...shared } };
}

/** Puts an operation's examples on its parameters, request body and success responses. */
export function applyExamples(operation: object, ex: OperationExample, openapiPath: string, meta: Meta): void {
  const op = operation as Operation;
  const path = pathValues(openapiPath, ex);
  for (const p of op.parameters ?? []) {
    if (p.in === "path" && path[p.name]) p.example = path[p.name];
    if (p.in === "query" && ex.query && ex.query[p.name] !== undefined) p.example = ex.query[p.name];
  }
  const body = op.requestBody?.content["application/json"];
  if (body && ex.body) body.example = ex.body;
  if (ex.summary) op.description = `${op.description ?? ""}${op.description ? "\n\n" : ""}**Example:** ${ex.summary}.`;
  const success = op.responses[String(meta.successStatus ?? 200)]?.content?.["application/json"];
  if (success) success.example = ex.response;
  const queued = op.responses["202"]?.content?.["application/json"];
  if (queued && meta.queueable) {
    // The chat the immediate answer names: the queue item shows it the same way.
    const chatId = (ex.response as { chatId?: unknown } | null)?.chatId;
    const route = `POST ${openapiPath.replace("/instances/{instanceId}", "")}`;
    queued.example = queuedItem(route, typeof chatId === "string" ? chatId : undefined);
  }
}
