// The check of a value against a JSON Schema the OpenAPI document renders (the subset of JSON Schema
// it uses), for the tests: the examples must satisfy it (examples.test.ts), the values the
// validation refuses must not (doc-constraints.test.ts). No JSON Schema library is a dependency.

/** The JSON Schema keywords the document uses. */
export interface Schema {
  $ref?: string;
  not?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  contains?: Schema;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
}
const typeOf = (v: unknown) =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number" && Number.isInteger(v)
        ? "integer"
        : typeof v;

/**
 * The problems of `value` against a rendered JSON Schema (the subset the document uses). Objects
 * with `properties` and `type: object` are closed here (an example shows only documented fields);
 * a fragment of an `allOf`/`oneOf` (properties without a type) constrains the fields it names only.
 */
export function schemaChecker(components: Record<string, Schema>) {
  return function schemaProblems(value: unknown, schema: Schema, at = "$"): string[] {
    if (schema.$ref) {
      const name = String(schema.$ref).replace("#/components/schemas/", "");
      const target = components[name];
      if (!target) return [`${at}: unknown ${schema.$ref}`];
      return schemaProblems(value, target, at);
    }
    const out: string[] = [];
    if (schema.not && schemaProblems(value, schema.not, at).length === 0)
      out.push(`${at}: matches what "not" excludes`);
    for (const sub of schema.allOf ?? []) out.push(...schemaProblems(value, sub, at));
    if (schema.anyOf && !schema.anyOf.some((s) => schemaProblems(value, s, at).length === 0)) {
      out.push(`${at}: matches none of anyOf (${schema.anyOf.map((s) => schemaProblems(value, s, at)).join(" / ")})`);
    }
    if (schema.oneOf) {
      const matches = schema.oneOf.filter((s) => schemaProblems(value, s, at).length === 0).length;
      if (matches !== 1) out.push(`${at}: matches ${matches} of oneOf`);
    }
    if (schema.type !== undefined) {
      const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
      const t = typeOf(value);
      if (!types.includes(t) && !(t === "integer" && types.includes("number"))) {
        return [...out, `${at}: ${JSON.stringify(value)} is not ${types.join("|")}`];
      }
    }
    if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) {
      out.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
    }
    if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) out.push(`${at}: not the const`);
    if (typeof value === "string") {
      const length = [...value].length;
      if (schema.minLength !== undefined && length < schema.minLength)
        out.push(`${at}: shorter than ${schema.minLength}`);
      if (schema.maxLength !== undefined && length > schema.maxLength)
        out.push(`${at}: longer than ${schema.maxLength}`);
      if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) {
        out.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
      }
      if (schema.format === "date-time" && Number.isNaN(Date.parse(value))) out.push(`${at}: not a date-time`);
    }
    if (typeof value === "number") {
      if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: below ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: above ${schema.maximum}`);
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push(`${at}: too small`);
      if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push(`${at}: too large`);
    }
    if (Array.isArray(value)) {
      if (schema.minItems !== undefined && value.length < schema.minItems)
        out.push(`${at}: under ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        out.push(`${at}: over ${schema.maxItems} items`);
      const items = schema.items;
      if (items) for (const [i, v] of value.entries()) out.push(...schemaProblems(v, items, `${at}[${i}]`));
      const contains = schema.contains;
      if (contains && !value.some((v, i) => schemaProblems(v, contains, `${at}[${i}]`).length === 0)) {
        out.push(`${at}: no item matches "contains"`);
      }
    }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const obj = value as Record<string, unknown>;
      for (const key of schema.required ?? []) if (!(key in obj)) out.push(`${at}: lacks ${key}`);
      const props: Record<string, Schema> | undefined = schema.properties;
      for (const [key, v] of Object.entries(obj)) {
        if (props?.[key]) out.push(...schemaProblems(v, props[key], `${at}.${key}`));
        else if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
          out.push(...schemaProblems(v, schema.additionalProperties, `${at}.${key}`));
        } else if (props && schema.type === "object") out.push(`${at}.${key}: not a documented field`);
      }
    }
    return out;
  };
}
