import { invalid } from "@gw/contracts";
import type { z } from "zod";

type Schema = z.core.$ZodType;

/** The schema under `.default()`, `.optional()`, `.nullable()` and `.catch()`. */
function unwrap(schema: Schema): Schema {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: Schema };
    if (!def.innerType || !["default", "prefault", "optional", "nullable", "catch"].includes(def.type)) return s;
    s = def.innerType;
  }
}

/**
 * The input fields of a procedure that are coerced numbers (`z.coerce.number()`: query
 * parameters such as `limit` and `offset`). Coercion reads `?offset=` as `Number("") = 0`, a
 * value the client never sent; the REST binding refuses an empty one instead (422), as the
 * document's `type: integer` says.
 */
export function coercedNumberFields(procedure: unknown): string[] {
  const inputs = (procedure as { _def: { inputs?: Schema[] } })._def.inputs ?? [];
  const fields: string[] = [];
  for (const input of inputs) {
    const shape = (input._zod.def as { shape?: Record<string, Schema> }).shape;
    for (const [name, field] of Object.entries(shape ?? {})) {
      const def = unwrap(field)._zod.def as { type: string; coerce?: boolean };
      if (def.type === "number" && def.coerce) fields.push(name);
    }
  }
  return fields;
}

/** 422 when one of `fields` is given in the query string as an empty (or blank) value. */
export function refuseEmptyNumbers(query: Record<string, unknown>, fields: readonly string[]): void {
  for (const name of fields) {
    const value = query[name];
    if (typeof value === "string" && value.trim() === "") throw invalid(name, "informe um número (vazio não é número)");
  }
}
