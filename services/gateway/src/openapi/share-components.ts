/**
 * A lean document ("The house, refined"): what many operations repeat is kept once in
 * `components` and referred to by `$ref` — the error responses (165 operations × ~10 statuses,
 * of which a few dozen distinct: half the document otherwise) and the answers several routes give
 * alike (`{success: true}`, an instance) in `components.responses`, the shared parameters
 * (`instanceId`, `Client-Token`, `X-Queue`, the webhooks' delivery headers…) in
 * `components.parameters`, and the request and response schemas several operations repeat (a chat
 * id, mentions, a send's answer…), and the plain values the components repeat (a date-time, an
 * integer), in `components.schemas`.
 *
 * Nothing a client generator reads changes: each operation still lists every status it can
 * answer, each response its examples; `inlineShared` undoes this pass, and
 * openapi/share-components.test.ts checks that it gives back the document as built.
 * A response, parameter or schema only one operation has stays where it is.
 */

type Json = Record<string, unknown>;
type Operation = { responses?: Record<string, Json>; parameters?: Json[]; requestBody?: Json; [k: string]: unknown };
type Doc = {
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; responses?: Json; parameters?: Json; [k: string]: unknown };
};

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** The operations of `paths` (the routes), or of `webhooks` (what a webhook receives). */
const operations = (doc: Doc, of: "paths" | "webhooks" = "paths"): [string, Operation][] =>
  Object.entries(doc[of] ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([, op]): [string, Operation] => [path, op]),
  );

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/** A free name in `taken`: `base`, else `base2`, `base3`… (`sep` before the number). */
function freeName(base: string, taken: Record<string, unknown>, sep = ""): string {
  if (!(base in taken)) return base;
  for (let n = 2; ; n++) if (!(`${base}${sep}${n}` in taken)) return `${base}${sep}${n}`;
}

/** Where a value sits: the object holding it and its key there. */
type Slot = { holder: Record<string, unknown> | unknown[]; key: string | number };

/** Keeps once, in `components[kind]`, every value met at two slots or more; the slots refer to it. */
function shareValues(
  doc: Doc,
  kind: "responses" | "parameters",
  slots: Slot[],
  nameOf: (value: Json) => string,
  sep: string,
): void {
  const byJson = new Map<string, { value: Json; slots: Slot[] }>();
  for (const slot of slots) {
    const value = (slot.holder as Record<string | number, Json>)[slot.key]!;
    if ("$ref" in value) continue;
    const json = JSON.stringify(value);
    const seen = byJson.get(json) ?? { value, slots: [] };
    seen.slots.push(slot);
    byJson.set(json, seen);
  }
  const components = { ...(doc.components?.[kind] as Json | undefined) };
  // The most used first, so that it gets the plain name.
  const shared = [...byJson.values()].filter((s) => s.slots.length > 1).sort((a, b) => b.slots.length - a.slots.length);
  for (const { value, slots: at } of shared) {
    const name = freeName(nameOf(value), components, sep);
    components[name] = value;
    for (const { holder, key } of at)
      (holder as Record<string | number, unknown>)[key] = { $ref: `#/components/${kind}/${name}` };
  }
  if (Object.keys(components).length > 0) doc.components = { ...doc.components, [kind]: components };
}

/**
 * Responses several operations answer alike: the error responses, named after their status (`401`,
 * its variants `401.2`…), the answers (`{success: true}`, an instance…) after the schema they
 * return (`SuccessResponse`, `InstanceResponse`) or their status (`Response200`), and what a
 * webhook answers (`Response2XX`).
 */
function shareResponses(doc: Doc): void {
  const slots: Slot[] = [];
  const statusOf = new Map<unknown, string>();
  for (const [, op] of [...operations(doc), ...operations(doc, "webhooks")]) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      statusOf.set(response, status);
      slots.push({ holder: op.responses!, key: status });
    }
  }
  const nameOf = (value: Json) => {
    const status = statusOf.get(value)!;
    if (Number(status) >= 400) return status;
    const media = (value.content as Record<string, { schema?: { $ref?: string } }> | undefined)?.["application/json"];
    return media?.schema?.$ref?.split("/").pop() ?? `Response${status}`;
  };
  shareValues(doc, "responses", slots, nameOf, ".");
}

/**
 * Parameters, named after themselves (`instanceId`, `Client-Token`; variants `instanceId.2`…): the
 * routes' and the webhooks' delivery headers (`X-Service-Signature` as `Signature`…).
 */
function shareParameters(doc: Doc): void {
  const slots: Slot[] = [];
  for (const [, op] of [...operations(doc), ...operations(doc, "webhooks")])
    for (const [i] of (op.parameters ?? []).entries()) slots.push({ holder: op.parameters!, key: i });
  // The delivery headers by their own name (`X-Service-Signature`: `Signature`).
  const nameOf = (p: Json) =>
    String(p.name ?? "parameter")
      .replace(/^X-Service-/, "")
      .replace(/[^A-Za-z0-9._-]/g, "_");
  shareValues(doc, "parameters", slots, nameOf, ".");
}

/** A schema node met in the operations (or inside a component), with a name for it from where it sits. */
type SchemaSlot = Slot & { name: string; path: string; inComponent?: boolean };

/** A value with nothing of a model of its own (a date-time, an integer; or null): all a component shares. */
function plainValue(node: Json): boolean {
  if (Object.keys(node).every((k) => ["type", "format", "pattern", "minimum", "maximum"].includes(k))) return true;
  const options = node.anyOf;
  return (
    Object.keys(node).length === 1 &&
    Array.isArray(options) &&
    options.every((o: Json) => typeof o.$ref === "string" || plainValue(o))
  );
}

/**
 * Every subschema of the operations' parameters, bodies and answers (not their examples), and of
 * the components' schemas (not a component itself): a date-time or an integer many models repeat.
 */
function schemaSlots(doc: Doc): SchemaSlot[] {
  const out: SchemaSlot[] = [];
  const visit = (slot: Omit<SchemaSlot, "holder" | "key">, holder: SchemaSlot["holder"], key: string | number) => {
    const node = (holder as Record<string | number, unknown>)[key];
    if (!node || typeof node !== "object" || Array.isArray(node)) return;
    out.push({ ...slot, holder, key });
    within(slot, node as Json);
  };
  const within = (slot: Omit<SchemaSlot, "holder" | "key">, schema: Json) => {
    for (const [prop, sub] of Object.entries((schema.properties as Json | undefined) ?? {})) {
      if (sub) visit({ ...slot, name: pascal(prop) }, schema.properties as Json, prop);
    }
    if (schema.items) visit({ ...slot, name: `${slot.name}Item` }, schema, "items");
    if (schema.additionalProperties) visit({ ...slot, name: `${slot.name}Value` }, schema, "additionalProperties");
    if (schema.not) visit({ ...slot, name: `${slot.name}Not` }, schema, "not");
    for (const k of ["anyOf", "oneOf", "allOf", "prefixItems"] as const) {
      const list = schema[k];
      if (Array.isArray(list))
        for (const [i] of list.entries()) visit({ ...slot, name: `${slot.name}Option` }, list, i);
    }
  };
  for (const [path, op] of operations(doc)) {
    for (const p of op.parameters ?? []) {
      if (p.schema) visit({ name: pascal(String(p.name ?? "Parameter")), path }, p, "schema");
    }
    const body = op.requestBody as { content?: Record<string, Json> } | undefined;
    for (const media of Object.values(body?.content ?? {}))
      if (media.schema) visit({ name: "Request", path }, media, "schema");
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      const content = (response as { content?: Record<string, Json> }).content;
      for (const media of Object.values(content ?? {})) {
        if (media.schema) visit({ name: Number(status) < 300 ? "Response" : "ErrorResponse", path }, media, "schema");
      }
    }
  }
  for (const [name, schema] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>)) {
    within({ name, path: "", inComponent: true }, schema);
  }
  return out;
}

/** The name of a request or response schema several routes share: after their common path. */
function commonName(slots: SchemaSlot[], schema: Json): string {
  const first = slots[0]!;
  // An alternative of an anyOf that is a formatted string: after its format (`DateTime`); a bare
  // value met under several names, after its format or type (`DateTime`, `Integer`).
  if (first.name.endsWith("Option") && typeof schema.format === "string") return pascal(schema.format);
  const bare = Object.keys(schema).every((k) => ["type", "format", "pattern", "minimum", "maximum"].includes(k));
  if (bare && slots.some((s) => s.name !== first.name) && typeof schema.type === "string") {
    return pascal(typeof schema.format === "string" ? schema.format : schema.type);
  }
  if (first.name !== "Request" && first.name !== "Response") return first.name;
  // A body of one field: after it (`{participants}`: `GroupsParticipantsRequest`).
  const props = Object.keys((schema.properties as Json | undefined) ?? {});
  const field = props.length === 1 ? pascal(props[0]!) : "";
  const parts = slots.map((s) => s.path.split("/").filter((p) => p && !p.startsWith("{")));
  const common: string[] = [];
  for (const [i, part] of parts[0]!.entries()) {
    if (parts.every((p) => p[i] === part)) common.push(part);
    else break;
  }
  const stem = pascal(common.filter((p) => p !== "instances" && p !== "admin").join("-"));
  return `${stem}${field}${first.name}`.replace(/^(Request|Response)$/, "Shared$1");
}

/** A subschema is shared when its copies weigh more than this (bytes of JSON, beyond the first). */
const SCHEMA_SAVING = 200;
/** …and each copy weighs at least this: small ones (`{type: string}`) are clearer inline. */
const SCHEMA_MIN = 60;

/**
 * Repeated subschemas: the one whose copies weigh most goes to `components.schemas` (named after
 * the property it is, or the routes it serves), then again on the document so changed.
 */
function shareSchemas(doc: Doc): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (;;) {
    const byJson = new Map<string, SchemaSlot[]>();
    for (const slot of schemaSlots(doc)) {
      const node = (slot.holder as Record<string | number, Json>)[slot.key]!;
      if ("$ref" in node || (slot.inComponent && !plainValue(node))) continue;
      const json = JSON.stringify(node);
      if (json.length < SCHEMA_MIN) continue;
      byJson.set(json, [...(byJson.get(json) ?? []), slot]);
    }
    let best: [string, SchemaSlot[]] | undefined;
    let bestSaving = SCHEMA_SAVING;
    for (const [json, slots] of byJson) {
      const saving = (slots.length - 1) * json.length;
      if (slots.length > 1 && saving > bestSaving) [best, bestSaving] = [[json, slots], saving];
    }
    if (!best) break;
    const [json, slots] = best;
    const name = freeName(commonName(slots, JSON.parse(json)), components);
    components[name] = JSON.parse(json);
    for (const { holder, key } of slots)
      (holder as Record<string | number, unknown>)[key] = { $ref: `#/components/schemas/${name}` };
  }
  doc.components = { ...doc.components, schemas: components };
}

/**
 * The security most operations state becomes the document's (OpenAPI's default for an operation
 * that states none); the others keep their own.
 */
function shareSecurity(doc: Doc & { security?: unknown }): void {
  const counts = new Map<string, number>();
  for (const [, op] of operations(doc)) {
    if (op.security !== undefined)
      counts.set(JSON.stringify(op.security), (counts.get(JSON.stringify(op.security)) ?? 0) + 1);
  }
  const [json, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!json || !n || n < 2 || doc.security !== undefined) return;
  const ordered: Record<string, unknown> = {};
  // Before `paths`, where OpenAPI lists it.
  for (const [k, v] of Object.entries(doc)) {
    if (k === "paths") ordered.security = JSON.parse(json);
    ordered[k] = v;
  }
  for (const k of Object.keys(doc)) delete (doc as Record<string, unknown>)[k];
  Object.assign(doc, ordered);
  for (const [, op] of operations(doc)) if (JSON.stringify(op.security) === json) delete op.security;
}

/** Shares what the operations repeat (see the top of this module); changes and returns `document`. */
export function shareComponents<T extends object>(document: T): T {
  const doc = document as Doc;
  shareSchemas(doc);
  shareParameters(doc);
  shareResponses(doc);
  shareSecurity(doc);
  return document;
}

/**
 * The document with the `$ref`s to what `shareComponents` added put back in place (a deep copy):
 * components.responses and components.parameters, and the schemas not in `keepSchemas`.
 */
export function inlineShared<T extends object>(document: T, keepSchemas: Iterable<string>): T {
  const doc = structuredClone(document) as Doc & { security?: unknown };
  const keep = new Set(keepSchemas);
  if (doc.security !== undefined) {
    for (const [, op] of operations(doc)) op.security ??= structuredClone(doc.security);
    delete doc.security;
  }
  const components = doc.components ?? {};
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== "object") return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && Object.keys(node).length === 1) {
      const [, , kind, name] = ref.split("/");
      const table = components[kind as keyof typeof components] as Json | undefined;
      const inline = kind === "responses" || kind === "parameters" || (kind === "schemas" && !keep.has(name!));
      if (inline && table?.[name!] !== undefined) return resolve(structuredClone(table[name!]));
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  doc.paths = resolve(doc.paths) as Doc["paths"];
  if (doc.webhooks) doc.webhooks = resolve(doc.webhooks) as Doc["webhooks"];
  const schemas = Object.fromEntries(
    Object.entries(components.schemas ?? {})
      .filter(([name]) => keep.has(name))
      .map(([name, s]) => [name, resolve(s)]),
  );
  const { responses: _r, parameters: _p, ...rest } = components;
  doc.components = { ...rest, schemas };
  return doc as T;
}
