// In platform, not the gateway's trpc/: services/session (role.ts) uses these too, and session sits below the gateway.
import { getTRPCErrorFromUnknown, TRPCError } from "@trpc/server";
import { getParseFn, isObject, middlewareMarker } from "@trpc/server/unstable-core-do-not-import";

/**
 * A tRPC procedure compiled once into a plain function of (ctx, raw input), for the transports
 * that call procedures directly (the public REST binding, the session pod's `/rpc` and channel).
 *
 * tRPC's own call (`createCaller`'s proxy, then `callRecursive`) builds per middleware a fresh
 * options object by spreading the previous one (twice: its own and the `next` one), a `next`
 * closure and a result object, and wraps every level in try/catch: ~8 % of the send path's
 * process in `pnpm bench send`'s profiles. Here the middlewares are sorted once into what they
 * are: tRPC's input parsers (the procedure's `.input()` schemas, parsed and merged as tRPC does),
 * its output parser, the resolver, and the procedure's own middlewares (`.use()`), which alone
 * get tRPC's `next` protocol (a result object, never a throw). Errors leave as tRPC's do: the
 * `TRPCError` of `getTRPCErrorFromUnknown` (BAD_REQUEST for input, INTERNAL_SERVER_ERROR
 * "Output validation failed" for output). A procedure with anything else (error formatter
 * middlewares, a caller override, parsers that do not line up) keeps tRPC's own path.
 */
export type InvokeProcedure<Ctx> = (ctx: Ctx, rawInput: unknown) => Promise<unknown>;

type Parse = (value: unknown) => unknown;
type Opts = Record<string, unknown> & { ctx: object; input: unknown; getRawInput: () => Promise<unknown> };
type MiddlewareFn = ((opts: Opts) => Promise<unknown>) & { _type?: string };
interface MiddlewareResult {
  ok: boolean;
  data?: unknown;
  error?: unknown;
  ctx?: unknown;
  marker: string;
}
/** What is read of a procedure's definition (tRPC 11's `_def`). */
interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  meta?: unknown;
  inputs: unknown[];
  output?: unknown;
  middlewares: MiddlewareFn[];
  resolver?: (opts: Record<string, unknown>) => unknown;
  caller?: unknown;
}
type Step =
  | { kind: "input"; parse: Parse }
  | { kind: "output"; parse: Parse }
  | { kind: "use"; fn: MiddlewareFn }
  | { kind: "resolve"; fn: (opts: Record<string, unknown>) => unknown };

/** The procedure's steps, or null when it is not one this module reproduces exactly. */
function stepsOf(def: ProcedureDef): Step[] | null {
  if (def.caller || def.type === "subscription" || !def.resolver) return null;
  const mws = def.middlewares;
  const last = mws[mws.length - 1];
  if (last?.name !== "resolveMiddleware") return null;
  const steps: Step[] = [];
  let inputs = 0;
  let outputs = 0;
  for (let i = 0; i < mws.length - 1; i++) {
    const fn = mws[i] as MiddlewareFn;
    if (fn._type === "input") {
      // Each `.input()` added its schema and its middleware together: the n-th of each pair up.
      const schema = def.inputs[inputs++];
      if (schema === undefined) return null;
      steps.push({ kind: "input", parse: getParseFn(schema as Parameters<typeof getParseFn>[0]) as Parse });
    } else if (fn._type === "output") {
      if (def.output === undefined || outputs++ > 0) return null;
      steps.push({ kind: "output", parse: getParseFn(def.output as Parameters<typeof getParseFn>[0]) as Parse });
    } else if (fn._type === undefined) {
      steps.push({ kind: "use", fn });
    } else {
      return null; // "errors" (and anything newer): tRPC's own path
    }
  }
  if (inputs !== def.inputs.length || (def.output !== undefined && outputs !== 1)) return null;
  steps.push({ kind: "resolve", fn: def.resolver });
  return steps;
}

/**
 * `procedure` (a tRPC procedure) as a function of its context and raw input that resolves to its
 * output or rejects with the `TRPCError` tRPC's caller would have thrown.
 */
export function compileProcedure<Ctx extends object>(procedure: unknown, path: string): InvokeProcedure<Ctx> {
  const def = (procedure as { _def: ProcedureDef })._def;
  const { type, meta } = def;
  const steps = stepsOf(def);
  if (!steps) {
    const call = procedure as (opts: Record<string, unknown>) => Promise<unknown>;
    return (ctx, rawInput) =>
      call({ ctx, getRawInput: async () => rawInput, path, type, signal: undefined, batchIndex: 0 });
  }

  const run = async (i: number, ctx: object, input: unknown, getRawInput: () => Promise<unknown>): Promise<unknown> => {
    const step = steps[i] as Step;
    switch (step.kind) {
      case "input": {
        const raw = await getRawInput();
        let parsed: unknown;
        try {
          parsed = await step.parse(raw);
        } catch (cause) {
          throw new TRPCError({ code: "BAD_REQUEST", cause });
        }
        // As tRPC's input middleware: objects of successive inputs merge, the later one winning.
        const combined = isObject(input) && isObject(parsed) ? Object.assign({}, input, parsed) : parsed;
        return run(i + 1, ctx, combined, getRawInput);
      }
      case "output": {
        const data = await run(i + 1, ctx, input, getRawInput);
        try {
          return await step.parse(data);
        } catch (cause) {
          throw new TRPCError({ message: "Output validation failed", code: "INTERNAL_SERVER_ERROR", cause });
        }
      }
      case "resolve":
        return step.fn({ ctx, input, getRawInput, path, type, signal: undefined, batchIndex: 0, meta });
      case "use": {
        const result = (await step.fn({
          ctx,
          input,
          getRawInput,
          path,
          type,
          signal: undefined,
          batchIndex: 0,
          meta,
          // tRPC's `next`: the rest of the chain as a result object, never a throw.
          next: async (nextOpts?: { ctx?: object; input?: unknown; getRawInput?: () => Promise<unknown> }) => {
            const nextCtx = nextOpts?.ctx ? Object.assign({}, ctx, nextOpts.ctx) : ctx;
            const nextInput = nextOpts && "input" in nextOpts ? nextOpts.input : input;
            try {
              const data = await run(i + 1, nextCtx, nextInput, nextOpts?.getRawInput ?? getRawInput);
              return { marker: middlewareMarker, ok: true, data, ctx: nextCtx } satisfies MiddlewareResult;
            } catch (cause) {
              return { marker: middlewareMarker, ok: false, error: getTRPCErrorFromUnknown(cause) };
            }
          },
        })) as MiddlewareResult | undefined;
        if (!result) {
          throw new TRPCError({
            code: "INTERNAL_SERVER_ERROR",
            message: "No result from middlewares - did you forget to `return next()`?",
          });
        }
        if (!result.ok) throw result.error;
        return result.data;
      }
    }
  };

  return async (ctx, rawInput) => {
    try {
      return await run(0, ctx, undefined, async () => rawInput);
    } catch (cause) {
      throw getTRPCErrorFromUnknown(cause);
    }
  };
}
