import type { z } from "zod";

/**
 * Session operations beyond the core of the provider contract: each feature area (labels,
 * groups, templates, …) declares its operations here as zod input/output pairs, a provider
 * implements the ones it can (an object of handlers per area module), and the gateway calls
 * them on the instance's owner through one generic `op` call. Adding an area adds files, not
 * methods to every layer.
 */
export interface OpDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}

export type OpTable = Record<string, OpDef>;

/** Keeps the literal keys and schemas of an area's table. */
export const defineOps = <T extends OpTable>(ops: T): T => ops;

/** What a caller passes, what a handler receives (parsed), what it answers. */
export type OpCallInput<T extends OpTable, N extends keyof T> = z.input<T[N]["input"]>;
export type OpHandlerInput<T extends OpTable, N extends keyof T> = z.output<T[N]["input"]>;
export type OpOutput<T extends OpTable, N extends keyof T> = z.output<T[N]["output"]>;

/** A provider's implementation of some of a table's operations. */
export type OpHandlers<T extends OpTable> = {
  [N in keyof T]?: (input: OpHandlerInput<T, N>) => Promise<OpOutput<T, N>>;
};
