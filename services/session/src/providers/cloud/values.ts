/**
 * Loose readers of the operator's JSON (webhooks, Graph answers), shared by the inbound mapping
 * (inbound.ts, inbound-fields.ts) and the processor (process.ts): a value that is not of the
 * shape asked for reads as empty, never as an error (the operator adds and omits fields).
 */

export type Obj = Record<string, unknown>;

/** An object, or `{}` for anything else (arrays included). */
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** An array, or `[]` for anything else. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
