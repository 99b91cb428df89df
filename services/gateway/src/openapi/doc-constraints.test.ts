// Issue 19 §4: the document states the real constraints, so a value the validation refuses is one
// the document refuses too. Each case is a request schemathesis generated from an earlier document
// (`pnpm fuzz`) and the API refused (400/422, never a 2xx): the document then admitted it, so
// generators built wrong requests and schemathesis warned "schema validation mismatch".
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document.ts";
import { type Schema, schemaChecker } from "./schema-check.ts";

type Operation = {
  parameters?: { in: string; name: string; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
};
const doc = buildOpenApiDocument("https://gateway.example.com") as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const problems = schemaChecker(doc.components.schemas);

const op = (method: string, path: string): Operation => {
  const found = doc.paths[`/instances/{instanceId}${path}`]?.[method];
  if (!found) throw new Error(`${method} ${path} is not documented`);
  return found;
};
const param = (method: string, path: string, name: string): Schema => {
  const found = op(method, path).parameters?.find((p) => p.name === name);
  if (!found) throw new Error(`${method} ${path} has no parameter ${name}`);
  return found.schema;
};
const body = (method: string, path: string): Schema =>
  op(method, path).requestBody!.content["application/json"]!.schema;

// [method, path, parameter name, a value the route refuses]
const PARAMETERS: [string, string, string, string][] = [
  ["get", "/contacts/{contactId}", "contactId", "0000"],
  ["post", "/contacts/{contactId}/block", "contactId", "maria"],
  ["get", "/labels/chats/{chatId}", "chatId", "00"],
  ["put", "/labels/chats/{chatId}", "chatId", "120363476165086550@newsletter"],
  ["get", "/presence/{chatId}", "chatId", "00"],
  ["post", "/presence/{chatId}/subscribe", "chatId", "0"],
  ["delete", "/chats/{chatId}/messages/{messageId}", "messageId", "0".repeat(250)],
  ["put", "/chats/{chatId}/messages/{messageId}", "messageId", "a b"],
  ["get", "/lids/{lid}", "lid", "abc"],
  ["get", "/groups/invite/{code}", "code", "abc"],
  ["get", "/chats/{chatId}/messages", "filter.ack", ""],
];

const FILE_ROUTE = ["post", "/messages/image"] as const;
// [method, path, a body the route refuses, why]
const BODIES: [string, string, unknown, string][] = [
  [...FILE_ROUTE, { chatId: "5511988887777", file: { url: "https://a.example/x.jpg", data: "AAAA" } }, "url and data"],
  [...FILE_ROUTE, { chatId: "5511988887777", file: { url: "0000" } }, "no absolute URL"],
  [...FILE_ROUTE, { chatId: "5511988887777", file: { url: "https://u:p@a.example/x.jpg" } }, "credentials"],
  [...FILE_ROUTE, { chatId: "5511988887777", file: { url: "https://a.example:8080/x.jpg" } }, "a port"],
  [...FILE_ROUTE, { chatId: "5511988887777", file: { data: "0", mimetype: "image/jpeg" } }, "base64"],
  [...FILE_ROUTE, { chatId: "5511988887777", file: { data: "AAAA", mimetype: "000" } }, "mimetype"],
  ["post", "/media/convert/voice", { file: { url: "https://a.example/x.mp3", data: "00" }, output: "url" }, "url+data"],
  ["put", "/profile/picture", { file: { data: "AAAA", mimetype: "image/webp" } }, "JPEG or PNG only"],
  ["post", "/groups", { subject: "Equipe", participants: ["0"] }, "participant"],
  ["post", "/groups/{groupId}/participants/add", { participants: ["00"] }, "participant"],
  ["post", "/status/text", { text: "oi", backgroundColor: "#1E88E5", font: 3 }, "font"],
  ["post", "/status/text", { text: "oi", backgroundColor: "#1E88E5", font: 1, contacts: ["00"] }, "audience"],
  ["post", "/status/delete", { id: "0".repeat(300) }, "status id"],
  ["post", "/chats/overview", { filter: { ids: [""] } }, "chat ids"],
  ["put", "/chats/{chatId}/messages/{messageId}", { text: "oi", mentions: [""] }, "mentions"],
  ["put", "/messages/reaction", { chatId: "5511988887777", messageId: "true_0@a_0000", reaction: "👍" }, "id's chat"],
  ["post", "/presence", { presence: "typing" }, "typing needs its chat"],
  ["post", "/typing/start", {}, "the chat"],
  ["post", "/typing/stop", {}, "the chat"],
];

describe("the OpenAPI document refuses what the validation refuses (pnpm fuzz findings)", () => {
  it.each(PARAMETERS)("%s %s: %s %j", (method, path, name, value) => {
    expect(problems(value, param(method, path, name), name)).not.toEqual([]);
  });

  it.each(BODIES)("%s %s: %j (%s)", (method, path, value) => {
    expect(problems(value, body(method, path))).not.toEqual([]);
  });

  it("the typing routes document their body as required", () => {
    expect(op("post", "/typing/start").requestBody?.required).toBe(true);
    expect(op("post", "/typing/stop").requestBody?.required).toBe(true);
  });

  it("what the routes accept stays admitted: canonical forms of each constrained value", () => {
    expect(problems("5511988887777@c.us", param("get", "/contacts/{contactId}", "contactId"))).toEqual([]);
    expect(problems("187743636676218", param("get", "/lids/{lid}", "lid"))).toEqual([]);
    expect(problems("READ", param("get", "/chats/{chatId}/messages", "filter.ack"))).toEqual([]);
    const image = body(...FILE_ROUTE);
    for (const file of [
      { url: "https://cdn.example.com/a.jpg?size=2" },
      { data: "AAAA", mimetype: "image/jpeg" },
      { data: "data:image/png;base64,iVBORw0KGgo=", mimetype: "image/png" },
      { data: "AAA=", mimetype: "audio/ogg; codecs=opus" },
    ]) {
      expect(problems({ chatId: "5511988887777", file }, image), JSON.stringify(file)).toEqual([]);
    }
    const reaction = { chatId: "5511988887777", reaction: "👍" };
    for (const messageId of ["true_5511988887777@c.us_3EB0C431C26A1916", "false_120363012345678901@g.us_ABCD_1@lid"]) {
      expect(problems({ ...reaction, messageId }, body("put", "/messages/reaction")), messageId).toEqual([]);
    }
    expect(problems({ presence: "online" }, body("post", "/presence"))).toEqual([]);
    expect(problems({ presence: "typing", chatId: "5511988887777" }, body("post", "/presence"))).toEqual([]);
  });
});
