// Issue 18: every operation of the OpenAPI document shows realistic examples that cannot drift
// from the contract. Each example is parsed by the procedure's own zod schemas (the request with
// its path parameters by the input, the answers by the output) and checked against the JSON Schema
// the document renders (its patterns, enums, required fields; no field it does not document).
import { ERROR_STATUS, type ErrorCode } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { restProcedures } from "../http/rest.ts";
import { examplesOf, pathValues, procedureSchemas } from "./apply-examples.ts";
import { buildOpenApiDocument } from "./document.ts";
import { type Schema, schemaChecker } from "./schema-check.ts";
import { inlineShared } from "./share-components.ts";

type Named = { summary?: string; value?: unknown; $ref?: string };
type Media = { schema: Schema; example?: unknown; examples?: Record<string, Named> };
type Operation = {
  parameters?: { in: string; name: string; required?: boolean; schema: Schema; example?: unknown }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
  "x-error-codes": ErrorCode[];
};

// The served document with its shared responses and parameters in place (share-components.ts);
// its schemas' $refs are followed by the schema check.
const served = buildOpenApiDocument("https://gateway.example.com") as { components?: { schemas?: object } };
const doc = inlineShared(served, Object.keys(served.components?.schemas ?? {})) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; examples: Record<string, Named> };
};

const schemaProblems = schemaChecker(doc.components.schemas);

/** A named example's value, through its `$ref` to `components.examples`. */
const exampleValue = (named: Named | undefined): unknown =>
  named?.$ref ? doc.components.examples[named.$ref.replace("#/components/examples/", "")]?.value : named?.value;

const zodProblems = (parser: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown) => {
  const r = parser.safeParse(value);
  return r.success ? [] : [String(r.error)];
};

describe("OpenAPI examples", () => {
  const routes = restProcedures();

  it("the schema check finds what it should (closed objects, patterns, oneOf)", () => {
    const schema = {
      type: "object",
      properties: { chatId: { type: "string", pattern: "^\\d+@c\\.us$" }, n: { type: "integer" } },
      required: ["chatId"],
      oneOf: [{ required: ["n"] }, { required: ["x"] }],
    };
    expect(schemaProblems({ chatId: "5511988887777@c.us", n: 1 }, schema)).toEqual([]);
    expect(schemaProblems({ chatId: "maria", n: 1.5, extra: true }, schema)).toEqual([
      '$.chatId: "maria" does not match ^\\d+@c\\.us$',
      "$.n: 1.5 is not integer",
      "$.extra: not a documented field",
    ]);
    expect(schemaProblems({ chatId: "5511988887777@c.us" }, schema)).toEqual(["$: matches 0 of oneOf"]);
  });

  for (const { path, meta, method, call } of routes) {
    const openapiPath = meta.openapi!.path;
    it(`${method} ${openapiPath} (${path})`, () => {
      const op = doc.paths[openapiPath]![method.toLowerCase()]!;
      const ex = examplesOf(path);
      expect(ex, `no examples for ${path} (openapi/examples/*.ts)`).toBeDefined();
      if (!ex) return;
      const { inputs, output } = procedureSchemas(call);

      // Where they are shown.
      const status = String(meta.successStatus ?? 200);
      const success = op.responses[status]?.content?.["application/json"];
      expect(success?.example, `${status} example`).toBeDefined();
      const body = op.requestBody?.content["application/json"];
      if (body) expect(body.example, "request body example").toBeDefined();
      else expect(ex.body, "a body example on an operation without a body").toBeUndefined();

      // The request: what the REST edge gives the procedure (query, then body, then path).
      const params = op.parameters ?? [];
      const path_ = pathValues(openapiPath, ex);
      for (const name of Object.keys(ex.path ?? {})) expect(path_, `path ${name}`).toHaveProperty(name);
      for (const name of Object.keys(ex.query ?? {})) {
        expect(
          params.some((p) => p.in === "query" && p.name === name),
          `query ${name} is a parameter`,
        ).toBe(true);
      }
      // Query values travel as text (the schemas coerce them), as over HTTP.
      const query = Object.fromEntries(
        Object.entries(ex.query ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]),
      );
      const request = { ...query, ...ex.body, ...path_ };
      for (const parser of inputs) expect(zodProblems(parser, request), "request by the input schema").toEqual([]);
      if (body) expect(schemaProblems(ex.body, body.schema), "request by the rendered body").toEqual([]);
      for (const p of params) {
        if (p.example === undefined) {
          expect(p.required && p.in !== "header", `${p.in} ${p.name} needs an example`).toBeFalsy();
          continue;
        }
        expect(schemaProblems(p.example, p.schema, p.name), `${p.in} ${p.name}`).toEqual([]);
      }

      // The answers.
      expect(output, "the procedure has an output schema").toBeDefined();
      expect(zodProblems(output!, ex.response), "response by the output schema").toEqual([]);
      expect(schemaProblems(success!.example, success!.schema), "response by the rendered schema").toEqual([]);
      const queued = op.responses["202"]?.content?.["application/json"];
      if (queued) {
        expect(zodProblems(output!, queued.example), "202 by the output schema").toEqual([]);
        expect(schemaProblems(queued.example, queued.schema), "202 by the rendered schema").toEqual([]);
      }

      // Errors: one example per code the route answers, each under its status, none for others.
      for (const code of Object.keys(ex.errors ?? {})) {
        expect(op["x-error-codes"], `error example for ${code}, which the route does not answer`).toContain(code);
      }
      for (const code of op["x-error-codes"]) {
        const media = op.responses[String(ERROR_STATUS[code])]?.content?.["application/json"];
        const value = exampleValue(media?.examples?.[code]);
        expect(value, `${code} example`).toMatchObject({ error: { code } });
        expect(schemaProblems(value, media!.schema), `${code} example`).toEqual([]);
      }
    });
  }
});
