// The mock's own contract, over real HTTP: Chatwoot's shapes the help-desk connector relies on,
// and the API inbox's webhooks as a local receiver gets them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatwootMock, createChatwootMock } from "./index.ts";

type J = Record<string, unknown>;
/** A value down a path of keys and indexes (undefined when a step is missing). */
const at = (v: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((o, k) => (o as Record<string | number, unknown> | null | undefined)?.[k], v);
const list = (v: unknown, ...path: (string | number)[]) => at(v, ...path) as J[];
const ADMIN = "mock-admin-token";
let mock: ChatwootMock;
let url: string;
let hookUrl: string;
let hooks: J[] = [];
let receiver: Server;
let desk: { accountId: number; inboxId: number; token: string };

const api = async (method: string, path: string, body?: unknown, token = desk.token) => {
  const res = await fetch(`${url}/api/v1/accounts/${desk.accountId}${path}`, {
    method,
    headers: {
      ...(token ? { api_access_token: token } : {}),
      ...(body !== undefined && !(body instanceof FormData) ? { "content-type": "application/json" } : {}),
    },
    body: body instanceof FormData ? body : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", json: (text ? safeJson(text) : null) as J };
};
const safeJson = (t: string): unknown => {
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
};
const ctl = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}/_control${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as J };
};
const settle = async () => mock.webhooksIdle();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url !== "/fail") hooks.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as J);
      res.writeHead(req.url === "/fail" ? 500 : 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  mock = createChatwootMock({ port: 0, adminToken: ADMIN });
  url = await mock.listen();
  const setup = await ctl("POST", "/setup", { accountName: "Acme", inboxName: "WhatsApp", webhookUrl: hookUrl });
  expect(setup.status).toBe(200);
  desk = setup.json as unknown as typeof desk;
});
afterAll(async () => {
  await mock?.close();
  await new Promise((r) => receiver.close(r));
});

describe("authentication", () => {
  it("answers Chatwoot's 401 and 404 bodies", async () => {
    expect(await api("GET", "/inboxes/1", undefined, "")).toMatchObject({
      status: 401,
      json: { errors: ["You need to sign in or sign up before continuing."] },
    });
    expect(await api("GET", "/inboxes/1", undefined, "nope")).toMatchObject({
      status: 401,
      json: { error: "Invalid Access Token" },
    });
    const other = (await ctl("POST", "/setup", { accountName: "Other" })).json;
    const res = await fetch(`${url}/api/v1/accounts/${String(other.accountId)}/inboxes/${String(other.inboxId)}`, {
      headers: { api_access_token: desk.token },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "You are not authorized to access this account" });
    const missing = await fetch(`${url}/api/v1/accounts/999/inboxes/1`, { headers: { api_access_token: desk.token } });
    expect(missing.status).toBe(404);
    expect((await ctl("POST", "/setup", { token: desk.token })).status).toBe(409);
  });

  it("shows the API inbox", async () => {
    const inbox = await api("GET", `/inboxes/${desk.inboxId}`);
    expect(inbox.json).toMatchObject({ id: desk.inboxId, channel_type: "Channel::Api", webhook_url: hookUrl });
  });
});

let contactId: number;
let conversationId: number;
let sourceId: string;

describe("contacts and conversations", () => {
  it("creates a contact with its contact inbox, refusing bad and duplicate numbers", async () => {
    const made = await api("POST", "/contacts", {
      inbox_id: desk.inboxId,
      name: "Maria Silva",
      phone_number: "+5511999990001",
      identifier: "5511999990001@s.whatsapp.net",
    });
    expect(made.status).toBe(200);
    const contact = at(made.json, "payload", "contact") as J;
    const contactInbox = at(made.json, "payload", "contact_inbox") as J;
    expect(contact).toMatchObject({ name: "Maria Silva", phone_number: "+5511999990001", email: null });
    expect(at(contact, "contact_inboxes", 0, "inbox")).toMatchObject({
      id: desk.inboxId,
      channel_type: "Channel::Api",
    });
    expect(contactInbox.inbox).toMatchObject({ id: desk.inboxId, account_id: desk.accountId });
    expect(contactInbox.source_id).toMatch(/^[0-9a-f-]{36}$/);
    contactId = Number(contact.id);
    expect(Number.isInteger(contactId)).toBe(true);

    const dup = await api("POST", "/contacts", { inbox_id: desk.inboxId, name: "M", phone_number: "+5511999990001" });
    expect(dup).toMatchObject({
      status: 422,
      json: { message: "Phone number has already been taken", attributes: ["phone_number"] },
    });
    const bad = await api("POST", "/contacts", { inbox_id: desk.inboxId, name: "X", phone_number: "5511999990002" });
    expect(bad.json).toEqual({ message: "Phone number should be in e164 format", attributes: ["phone_number"] });
    const dupId = await api("POST", "/contacts", { name: "Y", identifier: "5511999990001@s.whatsapp.net" });
    expect(dupId.json.attributes).toEqual(["identifier"]);
    expect((await api("POST", "/contacts", { inbox_id: 999, name: "Z" })).status).toBe(404);
  });

  it("searches by name, phone (with or without +) and identifier", async () => {
    for (const q of ["maria", "5511999990001", "+5511999990001", "@s.whatsapp.net"]) {
      const found = await api("GET", `/contacts/search?q=${encodeURIComponent(q)}`);
      expect(found.json.meta).toMatchObject({ count: 1, current_page: 1 });
      expect(list(found.json, "payload").map((c) => c.id)).toEqual([contactId]);
    }
    expect((await api("GET", "/contacts/search?q=nobody")).json.payload).toEqual([]);
    expect((await api("GET", "/contacts/search?q=")).status).toBe(422);
  });

  it("creates a conversation on a named source id and lists the contact's conversations", async () => {
    sourceId = "5511999990001@s.whatsapp.net";
    const conv = await api("POST", "/conversations", {
      source_id: sourceId,
      inbox_id: desk.inboxId,
      contact_id: contactId,
      status: "open",
    });
    expect(conv.status).toBe(200);
    expect(conv.json).toMatchObject({ id: 1, inbox_id: desk.inboxId, account_id: desk.accountId, status: "open" });
    expect(at(conv.json, "meta", "sender")).toMatchObject({ id: contactId, phone_number: "+5511999990001" });
    conversationId = Number(conv.json.id);
    await settle();
    expect(hooks.find((h) => h.event === "conversation_created")).toMatchObject({
      id: conversationId,
      contact_inbox: { source_id: sourceId, contact_id: contactId },
      meta: { sender: { id: contactId, type: "contact" } },
    });
    const mine = await api("GET", `/contacts/${contactId}/conversations`);
    expect(list(mine.json, "payload").map((c) => c.id)).toEqual([conversationId]);
  });
});

const messages = () => `/conversations/${conversationId}/messages`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
let imageMessageId: number;

describe("messages", () => {
  it("takes JSON and multipart messages and serves attachment bytes at data_url", async () => {
    hooks = [];
    const text = await api("POST", messages(), {
      content: "Olá!",
      message_type: "incoming",
      source_id: "wamid.A1",
      content_attributes: { is_reaction: false },
    });
    expect(text.json).toMatchObject({ content: "Olá!", message_type: 0, source_id: "wamid.A1", private: false });
    expect(text.json.sender).toMatchObject({ id: contactId, type: "contact" });

    const form = new FormData();
    form.append("content", "a photo");
    form.append("message_type", "incoming");
    form.append("source_id", "wamid.A2");
    form.append("content_attributes", JSON.stringify({ in_reply_to: text.json.id }));
    form.append("attachments[]", new Blob([PNG], { type: "image/png" }), "pic.png");
    const image = await api("POST", messages(), form);
    expect(image.status).toBe(200);
    expect(image.json.content_attributes).toEqual({ in_reply_to: text.json.id, in_reply_to_external_id: "wamid.A1" });
    const att = at(image.json, "attachments", 0) as J;
    expect(att).toMatchObject({ file_type: "image", file_size: PNG.length, message_id: image.json.id });
    imageMessageId = Number(image.json.id);
    const file = await fetch(String(att.data_url));
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);

    expect((await api("POST", messages(), { content: "x", message_type: "sideways" })).json).toEqual({
      error: "'sideways' is not a valid message_type",
    });
  });

  it("sends message_created in order, with the documented shape", async () => {
    await settle();
    expect(hooks.map((h) => [h.event, h.source_id])).toEqual([
      ["message_created", "wamid.A1"],
      ["message_created", "wamid.A2"],
    ]);
    const h = hooks[1]!;
    expect(h).toMatchObject({
      message_type: "incoming",
      content_type: "text",
      private: false,
      sender: { id: contactId, name: "Maria Silva", type: "contact" },
      inbox: { id: desk.inboxId, name: "WhatsApp" },
      account: { id: desk.accountId, name: "Acme" },
      conversation: {
        id: conversationId,
        status: "open",
        channel: "Channel::Api",
        contact_inbox: { source_id: sourceId },
        meta: { sender: { id: contactId, phone_number: "+5511999990001", identifier: sourceId, type: "contact" } },
      },
      attachments: [{ file_type: "image", file_size: PNG.length }],
    });
    expect(new Date(String(h.created_at)).toISOString()).toBe(h.created_at);
  });

  it("an agent's reply through the control API arrives as an outgoing message of a user", async () => {
    hooks = [];
    const sent = await ctl("POST", "/agent-message", {
      conversationId,
      accountId: desk.accountId,
      content: "Bom dia",
      agentName: "Ana",
      attachment: { filename: "doc.pdf", mimetype: "application/pdf", base64: Buffer.from("%PDF").toString("base64") },
    });
    expect(sent.json).toMatchObject({ message_type: 1, sender: { name: "Ana", type: "user" } });
    await ctl("POST", "/agent-message", { accountId: desk.accountId, conversationId, content: "note", private: true });
    await settle();
    expect(hooks.map((h) => [h.message_type, at(h, "sender", "type"), h.private])).toEqual([
      ["outgoing", "user", false],
      ["outgoing", "user", true],
    ]);
    expect(hooks[0]).toMatchObject({ sender: { name: "Ana", type: "user" }, attachments: [{ file_type: "file" }] });
  });

  it("lists messages 20 at a time, older ones with before", async () => {
    for (let i = 0; i < 20; i++) await api("POST", messages(), { content: `m${i}`, message_type: "outgoing" });
    const latest = await api("GET", messages());
    expect(at(latest.json, "meta", "contact")).toMatchObject({ id: contactId, type: "contact" });
    const payload = list(latest.json, "payload");
    expect(payload).toHaveLength(20);
    expect(payload.at(-1)).toMatchObject({ content: "m19", message_type: 1, sender: { type: "user" } });
    const older = await api("GET", `${messages()}?before=${String(payload[0]!.id)}`);
    expect(list(older.json, "payload").map((m) => m.content)).toEqual(["Olá!", "a photo", "Bom dia", "note"]);
    expect(at(older.json, "payload", 1, "attachments", 0, "file_type")).toBe("image");
  });

  it("deletes as Chatwoot does and sends message_updated", async () => {
    hooks = [];
    const before = list((await ctl("GET", "/state")).json, "messages").find((m) => m.id === imageMessageId);
    expect(at(before, "attachments", 0)).toMatchObject({ size: PNG.length, mimetype: "image/png", fileType: "image" });
    const deleted = await api("DELETE", `${messages()}/${imageMessageId}`);
    expect(deleted.json).toMatchObject({ content: "This message was deleted", content_attributes: { deleted: true } });
    expect(deleted.json.attachments).toBeUndefined();
    expect((await fetch(String(at(before, "attachments", 0, "dataUrl")))).status).toBe(404);
    await settle();
    expect(hooks).toMatchObject([
      { event: "message_updated", id: imageMessageId, content_attributes: { deleted: true } },
    ]);
  });
});

describe("conversation status", () => {
  it("toggles with Chatwoot's answer and leaves activity messages", async () => {
    hooks = [];
    const resolved = await api("POST", `/conversations/${conversationId}/toggle_status`, { status: "resolved" });
    expect(resolved.json).toEqual({
      meta: {},
      payload: { success: true, conversation_id: conversationId, current_status: "resolved", snoozed_until: null },
    });
    const toggled = await api("POST", `/conversations/${conversationId}/toggle_status`, {});
    expect(at(toggled.json, "payload", "current_status")).toBe("open");
    await ctl("POST", "/resolve", { accountId: desk.accountId, conversationId });
    // A customer's message reopens a resolved conversation.
    await api("POST", messages(), { content: "again", message_type: "incoming" });
    const listed = list((await api("GET", messages())).json, "payload");
    expect(listed.filter((m) => m.message_type === 2).map((m) => m.content)).toEqual([
      "Conversation was marked resolved by Gateway Integration",
      "Conversation was reopened by Gateway Integration",
      "Conversation was marked resolved by Agent",
      "Conversation was reopened by Gateway Integration",
    ]);
    await settle();
    expect(hooks.map((h) => h.event)).toEqual([
      "conversation_status_changed",
      "conversation_status_changed",
      "conversation_status_changed",
      "conversation_status_changed",
      "message_created",
    ]);
  });
});

describe("failures", () => {
  it("answers 503 during an outage, until it ends", async () => {
    expect(Number((await ctl("POST", "/outage", { ms: 60_000 })).json.outageUntil)).toBeGreaterThan(Date.now());
    const down = await api("GET", `/inboxes/${desk.inboxId}`);
    expect(down.status).toBe(503);
    expect(down.type).toMatch(/^text\/html/);
    await ctl("POST", "/outage", { ms: 0 });
    expect((await api("GET", `/inboxes/${desk.inboxId}`)).status).toBe(200);
  });

  it("marks a message failed when its webhook is refused, without retrying", async () => {
    await ctl("PATCH", `/inboxes/${desk.inboxId}`, { webhookUrl: hookUrl.replace("/hook", "/fail") });
    const m = await api("POST", messages(), { content: "lost", message_type: "incoming" });
    await settle();
    const state = (await ctl("GET", "/state")).json;
    expect(list(state, "messages").find((x) => x.id === m.json.id)).toMatchObject({
      status: "failed",
      contentAttributes: { external_error: "500 Internal Server Error" },
    });
    const attempts = list(state, "deliveries").filter((d) => d.messageId === m.json.id);
    expect(attempts.map((d) => [d.event, d.status])).toEqual([
      ["message_created", 500],
      ["message_updated", 500],
    ]);
    expect(at(state, "requestCounts", "POST /api/v1/accounts/:accountId/conversations/:conversationId/messages")).toBe(
      25,
    );
    await ctl("PATCH", `/inboxes/${desk.inboxId}`, { webhookUrl: hookUrl });
  });

  it("the control API refuses misuse with its own envelope", async () => {
    expect(
      await ctl("POST", "/agent-message", { accountId: desk.accountId, conversationId: 999, content: "x" }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: "not_found" } },
    });
    const anon = await fetch(`${url}/_control/state`);
    expect(anon.status).toBe(401);
    expect(at(await anon.json(), "error", "code")).toBe("unauthorized");
  });
});
