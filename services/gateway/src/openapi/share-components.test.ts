// "A lean API document": the shared components (share-components.ts) keep the document small
// without taking anything from what a client generator, Swagger UI or the fuzz reads — every
// operation still answers the statuses and codes it did, with the same examples.
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document.ts";
import { inlineShared } from "./share-components.ts";

type Named = { summary?: string; value?: { error: { code: string } }; $ref?: string };
type Response = {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string }; examples?: Record<string, Named> }>;
};
type Operation = { responses: Record<string, Response>; "x-error-codes": string[]; parameters?: unknown[] };
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    responses?: Record<string, Response>;
    parameters?: Record<string, unknown>;
    examples?: Record<string, Named>;
  };
};

const BASE = "https://gateway.example.com";
const shared = buildOpenApiDocument(BASE) as unknown as Doc;
const plain = buildOpenApiDocument(BASE, { share: false }) as unknown as Doc;

/** The compact document's weight in bytes, as /v1/openapi.json sends it. */
const LIMIT = 500_000;

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

const component = <T>(doc: Doc, ref: string): T => {
  const [, , kind, name] = ref.split("/");
  const found = (doc.components as Record<string, Record<string, unknown> | undefined>)[kind!]?.[name!];
  if (found === undefined) throw new Error(`unresolved ${ref}`);
  return found as T;
};
const response = (doc: Doc, r: Response): Response => (r.$ref ? component<Response>(doc, r.$ref) : r);

/** Per operation: each status, and for an error status its codes (examples) and description. */
function answers(doc: Doc) {
  return Object.fromEntries(
    operations(doc).map(({ key, op }) => [
      key,
      {
        codes: op["x-error-codes"],
        statuses: Object.fromEntries(
          Object.entries(op.responses).map(([status, r]) => {
            const media = response(doc, r).content?.["application/json"];
            const examples = Object.entries(media?.examples ?? {}).map(([name, ex]) => {
              const value = (ex.$ref ? component<Named>(doc, ex.$ref) : ex).value;
              return `${name}:${JSON.stringify(value)}`;
            });
            return [status, { description: response(doc, r).description, examples }];
          }),
        ),
      },
    ]),
  );
}

describe("the lean OpenAPI document (shared components)", () => {
  it(`weighs at most ${LIMIT / 1000} kB compact, half of what it did`, () => {
    const size = Buffer.byteLength(JSON.stringify(shared));
    expect(size).toBeLessThanOrEqual(LIMIT);
    expect(size).toBeLessThan(Buffer.byteLength(JSON.stringify(plain)) / 1.8);
  });

  it("gives back the document as built once its $refs are put back in place", () => {
    expect(inlineShared(shared, Object.keys(plain.components.schemas))).toEqual(plain);
  });

  it("every operation still lists each status it answers, its codes and examples", () => {
    const before = answers(plain);
    const after = answers(shared);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    let errors = 0;
    for (const [key, { codes, statuses }] of Object.entries(after)) {
      expect(codes, key).toEqual(before[key]!.codes);
      expect(statuses, key).toEqual(before[key]!.statuses);
      // Each code it answers has its example under its status.
      for (const code of codes) {
        const found = Object.values(statuses).some((s) => s.examples.some((e) => e.startsWith(`${code}:`)));
        expect(found, `${key} ${code}`).toBe(true);
      }
      errors += Object.keys(statuses).filter((s) => Number(s) >= 400).length;
    }
    expect(errors).toBeGreaterThan(1000);
  });

  it("error responses are shared: a few dozen components, referred to by most operations", () => {
    // Named after their status (`401`, `422.2`); the answers shared too are named otherwise.
    const responses = Object.fromEntries(
      Object.entries(shared.components.responses ?? {}).filter(([name]) => Number(name.split(".")[0]) >= 400),
    );
    const refs = operations(shared).flatMap(({ op }) => Object.values(op.responses).filter((r) => r.$ref));
    expect(Object.keys(responses).length).toBeGreaterThan(10);
    expect(refs.length).toBeGreaterThan(1000);
    for (const [name, r] of Object.entries(responses)) {
      expect(r.content?.["application/json"]?.schema?.$ref, name).toBe("#/components/schemas/Error");
      expect(
        refs.filter((ref) => ref.$ref === `#/components/responses/${name}`).length,
        `${name} is shared`,
      ).toBeGreaterThan(1);
    }
    expect(Object.keys(shared.components.parameters ?? {})).toEqual(
      expect.arrayContaining(["instanceId", "Client-Token", "X-Queue", "Idempotency-Key"]),
    );
  });

  it("every $ref resolves, and the document is valid OpenAPI 3.1", async () => {
    const refs = [...JSON.stringify(shared).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(() => component(shared, ref), ref).not.toThrow();
    const r = await new Validator().validate(shared as unknown as Record<string, unknown>);
    expect(r.errors ?? []).toEqual([]);
    expect(r.valid).toBe(true);
  });
});
