import { z } from "zod";

/** A tool's input schema as MCP lists it (JSON Schema, an object at the root). */
export interface ToolInputSchema {
  type: "object";
  properties: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

type JsonNode = Record<string, unknown>;

/**
 * Renders like the OpenAPI document: `documented()`'s `override` (the canonical pattern of a
 * field whose validation is code) merged into its node, `example` as JSON Schema's `examples`.
 */
function asDocumented(node: JsonNode): void {
  const { override, example } = node;
  if (override && typeof override === "object") Object.assign(node, override);
  delete node.override;
  if (example !== undefined) {
    node.examples = [example];
    delete node.example;
  }
}

/** Every node of a JSON Schema, depth first (objects inside arrays and objects). */
function visit(value: unknown, fn: (node: JsonNode) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, fn);
  } else if (value && typeof value === "object") {
    fn(value as JsonNode);
    for (const child of Object.values(value)) visit(child, fn);
  }
}

/**
 * A procedure's input as a tool's input schema: its `.input()` schemas (tRPC merges them) as the
 * client sends them (`io: "input"`: defaults optional, coercions by their input type), minus the
 * path's `instanceId`, which the endpoint's URL gives. The REST route's own zod contract, so the
 * two never disagree; rules across fields (chatId or phone) stay the procedure's validation, as
 * clients refuse `anyOf` at a tool schema's root.
 */
export function toolInputSchema(inputs: readonly z.ZodType[]): ToolInputSchema {
  const properties: Record<string, object> = {};
  const required = new Set<string>();
  let defs: Record<string, unknown> | undefined;
  for (const input of inputs) {
    const json = z.toJSONSchema(input, { io: "input", unrepresentable: "any" }) as JsonNode;
    visit(json, asDocumented);
    Object.assign(properties, json.properties ?? {});
    for (const name of (json.required as string[] | undefined) ?? []) required.add(name);
    if (json.$defs) defs = { ...defs, ...(json.$defs as Record<string, unknown>) };
  }
  delete properties.instanceId;
  required.delete("instanceId");
  return {
    type: "object",
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
    ...(defs ? { $defs: defs } : {}),
  };
}

/** The tool input schema of a tRPC procedure (its `_def.inputs`). */
export function procedureInputSchema(procedure: unknown): ToolInputSchema {
  return toolInputSchema((procedure as { _def: { inputs?: z.ZodType[] } })._def.inputs ?? []);
}
