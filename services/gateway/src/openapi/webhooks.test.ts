// The document's `webhooks` (webhooks.ts): one `POST` per event kind of spec 6.2, its body the
// envelope with `event` fixed and the kind's payload, its headers those of spec 6.1; the payloads'
// components hold every field of contracts' schemas (a payload that extends another, `allOf`, too).
import { EVENT_PAYLOAD_SCHEMAS, eventKinds } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "./document.ts";

/** The parts of the document this test reads. */
type Node = {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean | string[];
  description?: string;
  properties?: Record<string, Node>;
  allOf?: Node[];
  const?: unknown;
};
type Webhook = {
  post: {
    summary: string;
    parameters: Node[];
    requestBody: { content: Record<string, { schema: { allOf: Node[] } }> };
    responses: Record<string, Node>;
  };
};
const doc = buildOpenApiDocument("https://gateway.example.com") as unknown as {
  webhooks: Record<string, Webhook>;
  components: Record<string, Record<string, Node>>;
};

const deref = (node: Node): Node => {
  if (typeof node.$ref !== "string") return node;
  const [, , kind, name] = node.$ref.split("/");
  const found = doc.components[kind!]?.[name!];
  if (!found) throw new Error(`unresolved ${node.$ref}`);
  return deref(found);
};
/** The payload schema of a kind's webhook, as the body's `payload` names it. */
const payloadOf = (kind: string) =>
  doc.webhooks[kind]!.post.requestBody.content["application/json"]!.schema.allOf[1]!.properties!.payload!;
/** A component's fields, those of the schema it extends (`allOf`) included, and which are required. */
function fields(schema: Node): { properties: string[]; required: string[] } {
  const properties = Object.keys(schema.properties ?? {});
  const required = Array.isArray(schema.required) ? [...schema.required] : [];
  for (const base of schema.allOf ?? []) {
    const more = fields(deref(base));
    properties.push(...more.properties);
    required.push(...more.required);
  }
  return { properties: [...new Set(properties)].sort(), required: [...new Set(required)].sort() };
}

describe("webhooks", () => {
  it("one POST per event kind: the delivery headers, the envelope with its kind and payload, a 2xx", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventKinds].sort());
    for (const kind of eventKinds) {
      const post = doc.webhooks[kind]!.post;
      expect(post.summary, kind).toEqual(expect.any(String));
      expect(post.parameters.map(deref).map((h) => [h.name, h.in, h.required])).toEqual([
        ["X-Service-Event", "header", true],
        ["X-Service-Event-Id", "header", true],
        ["X-Service-Delivery", "header", true],
        ["X-Service-Signature", "header", true],
      ]);
      const body = post.requestBody.content["application/json"]!.schema;
      expect(body.allOf[0], kind).toEqual({ $ref: "#/components/schemas/EventEnvelope" });
      expect(body.allOf[1]!.properties!.event, kind).toEqual({ const: kind });
      expect(deref(payloadOf(kind)), kind).toBeDefined();
      expect(deref(post.responses["2XX"]!).description, kind).toMatch(/2xx/);
    }
  });

  it("each payload's component documents exactly the fields of its contracts schema, required as there", () => {
    for (const kind of eventKinds) {
      const own = z.toJSONSchema(z.object(EVENT_PAYLOAD_SCHEMAS[kind].shape), {
        io: "output",
        unrepresentable: "any",
      }) as { properties: Record<string, unknown>; required: string[] };
      expect(fields(deref(payloadOf(kind))), kind).toEqual({
        properties: Object.keys(own.properties).sort(),
        required: [...own.required].sort(),
      });
    }
  });

  it("the shared parts are components referred to: a contact, a message's sender and media, the message", () => {
    const schemas = doc.components.schemas!;
    for (const name of ["EventContact", "MessageSender", "MessageMedia", "MessageBase", "MessagePayload"]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(JSON.stringify(schemas.MessagePayload)).toContain('"#/components/schemas/MessageMedia"');
    expect(JSON.stringify(schemas.MessageBase)).toContain('"#/components/schemas/MessageSender"');
    expect(JSON.stringify(schemas.GroupParticipantsPayload)).toContain('"#/components/schemas/EventContact"');
  });
});
