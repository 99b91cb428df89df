// Issue 19 §4: the document states the real constraints, so a value the validation refuses is one
// the document refuses too. Each case is a request schemathesis generated from an earlier document
// (`pnpm fuzz`) and the API refused (400/422, never a 2xx): the document then admitted it, so
// generators built wrong requests and schemathesis warned "schema validation mismatch".
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document.ts";
import { type Schema, schemaChecker } from "./schema-check.ts";
import { inlineShared } from "./share-components.ts";

type Operation = {
  parameters?: { in: string; name: string; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
};
// The served document with its shared responses and parameters in place (share-components.ts);
// its schemas' $refs are followed by the schema check.
const served = buildOpenApiDocument("https://gateway.example.com") as { components?: { schemas?: object } };
const doc = inlineShared(served, Object.keys(served.components?.schemas ?? {})) as unknown as {
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
  // a long pnpm fuzz run (session 23): channels and status have no typing indicator
  ["post", "/typing/start", { chatId: "status@broadcast" }, "status has no typing"],
  ["post", "/typing/stop", { phone: "120363401234567890@newsletter" }, "a channel has no typing"],
  ["put", "/business-profile/picture", { file: { data: "0" } }, "the business picture's base64"],
  [
    "post",
    "/templates",
    { name: "ok", language: "pt_BR", category: "UTILITY", components: [{ type: "FOOTER", text: "x" }] },
    "a template's BODY",
  ],
  // a second pnpm fuzz round (2026-11-25): the declared media type of a one-kind route
  [...FILE_ROUTE, { chatId: "5511988887777", file: { data: "AAAA", mimetype: "00/0" } }, "an image's type"],
  ["post", "/messages/sticker", { chatId: "5511988887777", file: { data: "AAAA", mimetype: "image/png" } }, "WEBP"],
  [
    "post",
    "/messages/voice",
    { chatId: "5511988887777", file: { data: "AAAA", mimetype: "00/0" }, convert: false },
    "OGG/Opus unless converted",
  ],
  [
    "post",
    "/messages/video",
    { chatId: "5511988887777", file: { data: "AAAA", mimetype: "image/png" }, convert: false },
    "MP4 unless converted",
  ],
  ["post", "/status/image", { contacts: ["5511988887777"], file: { data: "AAAA", mimetype: "00/0" } }, "image"],
  ["put", "/groups/{groupId}/picture", { file: { data: "AAAA", mimetype: "00/0" } }, "JPG or PNG"],
  [
    "post",
    "/groups",
    {
      subject: "Equipe",
      participants: ["5511988887777"],
      picture: { url: "https://a.example/x", mimetype: "image/webp" },
    },
    "JPG or PNG",
  ],
  ["post", "/channels", { name: "Canal", picture: { data: "AAAA", mimetype: "image/gif" } }, "JPEG or PNG"],
  [
    "post",
    "/messages/text",
    { chatId: "5511988887777", text: "oi", mentions: ["all", "5511988887777"] },
    '"all" alone',
  ],
  [
    "post",
    "/messages/template",
    {
      chatId: "5511988887777",
      template: { name: "t", language: "pt_BR", body: ["Ana"], components: [{ type: "body" }] },
    },
    "components or the simple parameters",
  ],
];

describe("the OpenAPI document refuses what the validation refuses (pnpm fuzz findings)", () => {
  it.each(PARAMETERS)("%s %s: %s %j", (method, path, name, value) => {
    expect(problems(value, param(method, path, name), name)).not.toEqual([]);
  });

  it.each(BODIES)("%s %s: %j (%s)", (method, path, value) => {
    expect(problems(value, body(method, path))).not.toEqual([]);
  });

  it("the Idempotency-Key header: 1 to 255 visible ASCII characters", () => {
    const key = param("post", "/messages/image", "Idempotency-Key");
    for (const refused of ["", "ação", "a b", "x".repeat(256)]) expect(problems(refused, key), refused).not.toEqual([]);
    expect(problems("pedido-8601:tentativa/1", key)).toEqual([]);
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
      { data: "AAAA", mimetype: "image/webp" },
    ]) {
      expect(problems({ chatId: "5511988887777", file }, image), JSON.stringify(file)).toEqual([]);
    }
    const voice = body("post", "/messages/voice");
    for (const [file, convert] of [
      [{ data: "AAA=", mimetype: "audio/ogg; codecs=opus" }, false],
      [{ data: "AAA=", mimetype: "audio/mpeg" }, true],
      [{ url: "https://cdn.example.com/a.mp3" }, false],
    ] as const) {
      expect(problems({ chatId: "5511988887777", file, convert }, voice), JSON.stringify(file)).toEqual([]);
    }
    const mentions = (m: string[]) => ({ chatId: "120363012345678901@g.us", text: "oi", mentions: m });
    expect(problems(mentions(["all"]), body("post", "/messages/text"))).toEqual([]);
    expect(problems(mentions(["5511988887777", "187743636676218@lid"]), body("post", "/messages/text"))).toEqual([]);
    const template = { chatId: "5511988887777", template: { name: "t", language: "pt_BR" } };
    for (const t of [{ body: ["Ana"] }, { components: [{ type: "body" }] }]) {
      expect(
        problems({ ...template, template: { ...template.template, ...t } }, body("post", "/messages/template")),
      ).toEqual([]);
    }
    const reaction = { chatId: "5511988887777", reaction: "👍" };
    for (const messageId of ["true_5511988887777@c.us_3EB0C431C26A1916", "false_120363012345678901@g.us_ABCD_1@lid"]) {
      expect(problems({ ...reaction, messageId }, body("put", "/messages/reaction")), messageId).toEqual([]);
    }
    expect(problems({ presence: "online" }, body("post", "/presence"))).toEqual([]);
    expect(problems({ presence: "typing", chatId: "5511988887777" }, body("post", "/presence"))).toEqual([]);
  });
});
