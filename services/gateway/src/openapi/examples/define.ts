import type { ErrorCode } from "@gw/contracts";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../routers/index.ts";

/**
 * The examples of one operation of the OpenAPI document (openapi/apply-examples.ts puts them on
 * the operation). Keyed by procedure, typed by the procedure's own input and output, and checked
 * against its zod schemas and the rendered JSON Schema by openapi/examples.test.ts: an example
 * cannot drift from the contract.
 */
export interface OperationExample<I = Record<string, unknown>, O = unknown> {
  /** The JSON body, on operations that take one (its fields only). */
  body?: Fields<I>;
  /** Query parameters, as their values (shown on each parameter). */
  query?: Fields<I>;
  /** Path parameters beyond the shared ones of PATH_EXAMPLES, or in their place. */
  path?: Record<string, string>;
  /** The success answer (201/200 as the route answers). */
  response: O;
  /** What the example shows, when the request alone does not say it (ends the operation's description). */
  summary?: string;
  /**
   * Error bodies for some of the route's codes, as the route really answers them (its message
   * and `details`); the others get the code's default Portuguese message.
   */
  errors?: Partial<Record<ErrorCode, ErrorExample>>;
}

export interface ErrorExample {
  message: string;
  details?: Record<string, string>;
}

/**
 * A request's fields: the procedure's input where it is typed (each known field keeps its type),
 * open to the rest (the send routes share one typed shape; openapi/examples.test.ts rejects an
 * unknown field at run time).
 */
type Fields<I> = { [K in keyof I]?: I[K] } & Record<string, unknown>;

type In = inferRouterInputs<AppRouter>;
type Out = inferRouterOutputs<AppRouter>;

type ExamplesOf<I, O> = { [K in keyof I & keyof O]?: OperationExample<I[K], O[K]> };

const prefixed = (prefix: string, examples: object): Record<string, OperationExample> =>
  Object.fromEntries(Object.entries(examples).map(([name, ex]) => [`${prefix}.${name}`, ex as OperationExample]));

/** Examples of instance routes (procedures `instances.<name>`). */
export const instanceExamples = (examples: ExamplesOf<In["instances"], Out["instances"]>) =>
  prefixed("instances", examples);

/** Examples of control-plane routes (procedures `admin.<group>.<name>`). */
export const adminExamples = <G extends keyof In["admin"] & keyof Out["admin"]>(
  group: G,
  examples: ExamplesOf<In["admin"][G], Out["admin"][G]>,
) => prefixed(`admin.${group}`, examples);
