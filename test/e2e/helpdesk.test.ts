// The help-desk app end to end (docs/helpdesk.md): a paired sim instance, the worker role (event
// intake and the help-desk workflows on a real Temporal server), the Chatwoot mock over real HTTP,
// and simnet's phones on the customer's side.
import { type ChatwootMock, createChatwootMock } from "@gw/chatwootmock";
import { createLogger } from "@gw/platform";
import { startWorkerRole } from "@gw/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";
import { type CwMessage, type CwState, eventually, PNG } from "../support/helpdesk.ts";

let c: Cluster;
let mock: ChatwootMock;
let mockUrl = "";
const a = { id: "", token: "", phone: "5531962260001" };
const ANA = "5531962260002";
const BIA = "5531962260003";
const TOKEN = "cw-token-e2e";
let app: { id: string; webhookUrl: string; config: Record<string, unknown> };

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const control = async <T = Record<string, any>>(method: string, path: string, json?: unknown): Promise<T> => {
  const res = await fetch(`${mockUrl}/_control${path}`, {
    method,
    headers: json !== undefined ? { "content-type": "application/json" } : {},
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
};
const state = () => control<CwState>("GET", "/state");
const phoneSend = async (from: string, message: unknown) =>
  expectJson<{ id: string }>(await c.sim("POST", `/simnet/phones/${from}/send`, { to: a.phone, message }), 201);
const inboxOf = async (phone: string) =>
  (
    await expectJson<{ messages: { message: { type: string; text?: string; caption?: string } }[] }>(
      await c.sim("GET", `/simnet/phones/${phone}/inbox`),
    )
  ).messages.map((m) => m.message);
/** The Chatwoot messages of the contact with this chat id, oldest first. */
async function messagesOf(chatId: string): Promise<CwMessage[]> {
  const s = await state();
  const contact = s.contacts.find((x) => x.identifier === chatId);
  const convs = new Set(s.conversations.filter((x) => x.contactId === contact?.id).map((x) => x.id));
  return s.messages.filter((m) => convs.has(m.conversationId ?? -1)).sort((x, y) => x.id - y.id);
}

beforeAll(async () => {
  mock = createChatwootMock({ port: 0, logLevel: "silent", preset: { token: TOKEN }, messagesPerMinute: 0 });
  mockUrl = await mock.listen();
  c = await startCluster({ worker: { retryScheduleMs: [200, 200] } });
  for (const [phone, pushName] of [
    [ANA, "Ana"],
    [BIA, "Bia"],
  ]) {
    await c.sim("POST", "/simnet/phones", { phone, pushName });
  }
  Object.assign(a, await c.createInstance());
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
  app = await expectJson(
    await api("/apps", {
      method: "POST",
      json: { app: "helpdesk", config: { url: mockUrl, accountId: 1, inboxId: "1", token: TOKEN } },
    }),
    201,
  );
  // The inbox's webhook: the app's hook URL, on the cluster's own address.
  await control("PATCH", "/inboxes/1", { webhookUrl: c.url + new URL(app.webhookUrl).pathname });
}, 60_000);
afterAll(async () => {
  await c?.close();
  await mock?.close();
});

describe("customer → help desk", () => {
  it("a received text makes the contact (identifier, phone, name), a conversation and an incoming message", async () => {
    const sent = await phoneSend(ANA, { type: "text", text: "olá, preciso de ajuda" });
    const [m] = await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.length >= 1,
    );
    expect(m).toMatchObject({ messageType: "incoming", content: "olá, preciso de ajuda", sourceId: `WAID:${sent.id}` });
    const s = await state();
    expect(s.contacts.find((x) => x.identifier === `${ANA}@c.us`)).toMatchObject({
      name: "Ana",
      phoneNumber: `+${ANA}`,
    });
    expect(s.conversations.filter((x) => x.status === "open").length).toBeGreaterThanOrEqual(1);
  });

  it("media is uploaded as an attachment with our bytes; the caption is the content", async () => {
    const sent = await phoneSend(ANA, {
      type: "image",
      media: { data: PNG.toString("base64"), mimetype: "image/png" },
      caption: "a foto",
    });
    const list = await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.some((x) => x.sourceId === `WAID:${sent.id}`),
    );
    const m = list.find((x) => x.sourceId === `WAID:${sent.id}`);
    expect(m).toMatchObject({ content: "a foto", messageType: "incoming" });
    expect(m?.attachments[0]).toMatchObject({ fileType: "image", size: PNG.length });
    const bytes = Buffer.from(await (await fetch(new URL(m!.attachments[0]!.dataUrl, mockUrl))).arrayBuffer());
    expect(bytes.equals(PNG)).toBe(true);
  });

  it("a send through the API shows as outgoing; a reaction, an edit and a revocation from the phone are reflected", async () => {
    const out = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { chatId: ANA, text: "resposta pela API" } }),
      201,
    );
    const mine = await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.some((x) => x.content === "resposta pela API"),
    );
    const relayed = mine.find((x) => x.content === "resposta pela API")!;
    expect(relayed).toMatchObject({ messageType: "outgoing", sourceId: `WAID:${out.id.split("_")[2]}` });

    const target = await phoneSend(ANA, { type: "text", text: "escrevi erardo" });
    await phoneSend(ANA, { type: "reaction", targetId: out.id.split("_")[2], emoji: "👍" });
    await phoneSend(ANA, { type: "edit", targetId: target.id, text: "escrevi errado" });
    await phoneSend(ANA, { type: "revoke", targetId: target.id });
    const all = await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.some((x) => x.content?.startsWith("✏️")) && l.some((x) => x.contentAttributes?.deleted === true),
    );
    const reaction = all.find((x) => x.contentAttributes?.is_reaction === true);
    expect(reaction).toMatchObject({ content: "👍", messageType: "incoming" });
    expect(reaction?.contentAttributes?.in_reply_to).toBe(relayed.id);
    const original = all.find((x) => x.sourceId === `WAID:${target.id}`);
    expect(original?.contentAttributes?.deleted).toBe(true);
    expect(all.find((x) => x.content === "✏️ escrevi errado")?.contentAttributes?.in_reply_to).toBe(original?.id);
  });

  it("a resolved conversation is reopened by the customer's next message", async () => {
    const before = (await state()).conversations.find((x) => x.status === "open")!;
    await control("POST", "/resolve", { conversationId: before.id });
    await phoneSend(ANA, { type: "text", text: "voltei" });
    await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.some((x) => x.content === "voltei" && x.conversationId === before.id),
    );
    expect((await state()).conversations.find((x) => x.id === before.id)?.status).toBe("open");
  });
});

describe("agent → customer", () => {
  it("an agent's reply reaches the phone signed with the agent's name, and is not echoed back", async () => {
    const conv = (await state()).conversations.find((x) => x.status === "open")!;
    const reply = await control<{ id: number }>("POST", "/agent-message", {
      conversationId: conv.id,
      content: "Como posso ajudar?",
      agentName: "Carla",
    });
    await eventually(inboxOfAna, (l) => l.some((m) => m.text === "*Carla:*\nComo posso ajudar?"));
    // Its message.any came back as the account's message: mapped to the agent's, never written twice.
    await new Promise((r) => setTimeout(r, 1_500));
    const all = await messagesOf(`${ANA}@c.us`);
    expect(all.filter((m) => m.content?.includes("Como posso ajudar?")).map((m) => m.id)).toEqual([reply.id]);
  });

  it("an attachment goes as an image with the text as caption; private notes are not sent", async () => {
    const conv = (await state()).conversations.find((x) => x.status === "open")!;
    await control("POST", "/agent-message", { conversationId: conv.id, content: "nota interna", private: true });
    await control("POST", "/agent-message", {
      conversationId: conv.id,
      content: "segue a imagem",
      agentName: "Carla",
      attachment: { filename: "foto.png", mimetype: "image/png", base64: PNG.toString("base64") },
    });
    const got = await eventually(inboxOfAna, (l) => l.some((m) => m.type === "image"));
    expect(got.find((m) => m.type === "image")?.caption).toBe("*Carla:*\nsegue a imagem");
    expect(got.some((m) => m.text?.includes("nota interna"))).toBe(false);
  });

  it("a reply the gateway cannot send becomes a private note in the conversation", async () => {
    // A conversation in the help desk for a number that is not on the network.
    const stranger = "5531962269999";
    const made = (await (
      await fetch(`${mockUrl}/api/v1/accounts/1/contacts`, {
        method: "POST",
        headers: { api_access_token: TOKEN, "content-type": "application/json" },
        body: JSON.stringify({
          inbox_id: 1,
          name: "Ninguém",
          phone_number: `+${stranger}`,
          identifier: `${stranger}@c.us`,
        }),
      })
    ).json()) as { payload: { contact: { id: number }; contact_inbox: { source_id: string } } };
    const conv = (await (
      await fetch(`${mockUrl}/api/v1/accounts/1/conversations`, {
        method: "POST",
        headers: { api_access_token: TOKEN, "content-type": "application/json" },
        body: JSON.stringify({
          inbox_id: 1,
          contact_id: made.payload.contact.id,
          source_id: made.payload.contact_inbox.source_id,
        }),
      })
    ).json()) as { id: number };
    await control("POST", "/agent-message", { conversationId: conv.id, content: "oi?", agentName: "Carla" });
    const notes = await eventually(
      async () => (await state()).messages.filter((m) => m.conversationId === conv.id && m.private),
      (l) => l.length > 0,
    );
    expect(notes[0]?.content).toMatch(/^⚠️ Não entregue ao cliente \(\w+\): /);
  });

  it("the hook: a wrong secret is 404; a body that is not Chatwoot's is 422; other messages are ignored", async () => {
    await expectError(
      await c.request("/v1/helpdesk/hooks/notthesecretatall00000000", { method: "POST", json: {} }),
      404,
      "not_found",
    );
    const path = new URL(app.webhookUrl).pathname;
    await expectError(await c.request(path, { method: "POST", json: { nope: 1 } }), 422, "validation_error");
    const ignored = await expectJson(
      await c.request(path, { method: "POST", json: { event: "conversation_created" } }),
      200,
    );
    expect(ignored).toEqual({ ignored: "not a new message" });
  });
});

describe("durable and exact", () => {
  it("the help desk down: nothing lost, nothing doubled, the conversation's order kept", async () => {
    await control("POST", "/outage", { ms: 4_000 });
    const texts = Array.from({ length: 6 }, (_, i) => `na queda ${i}`);
    for (const text of texts) await phoneSend(BIA, { type: "text", text });
    const got = await eventually(
      () => messagesOf(`${BIA}@c.us`),
      (l) => l.filter((m) => m.content?.startsWith("na queda")).length >= texts.length,
      40_000,
    );
    expect(got.filter((m) => m.content?.startsWith("na queda")).map((m) => m.content)).toEqual(texts);
  }, 60_000);

  it("an answer lost after Chatwoot wrote the message: the retry finds it by source_id instead of writing it twice", async () => {
    await control("POST", "/lose-answers", { count: 1 });
    const sent = await phoneSend(BIA, { type: "text", text: "resposta perdida" });
    await eventually(
      () => messagesOf(`${BIA}@c.us`),
      (l) => l.some((m) => m.sourceId === `WAID:${sent.id}`),
    );
    await phoneSend(BIA, { type: "text", text: "depois da perdida" });
    const l = await eventually(
      () => messagesOf(`${BIA}@c.us`),
      (x) => x.some((m) => m.content === "depois da perdida"),
    );
    expect(l.filter((m) => m.sourceId === `WAID:${sent.id}`).length).toBe(1);
    expect((await control("GET", "/state")).requestCounts).toBeDefined();
  });

  it("the worker restarted while messages arrive: each relayed once, in order", async () => {
    await c.worker!.close();
    const texts = Array.from({ length: 4 }, (_, i) => `com o worker parado ${i}`);
    for (const text of texts) await phoneSend(BIA, { type: "text", text });
    c.worker = await startWorkerRole(c.platform.config, c.platform, createLogger("silent"), { retryScheduleMs: [200] });
    const got = await eventually(
      () => messagesOf(`${BIA}@c.us`),
      (l) => l.filter((m) => m.content?.startsWith("com o worker parado")).length >= texts.length,
      30_000,
    );
    expect(got.filter((m) => m.content?.startsWith("com o worker parado")).map((m) => m.content)).toEqual(texts);
  }, 45_000);

  it("groups are left out by default; ignoreChats leaves a chat out", async () => {
    await expectJson(
      await api(`/apps/${app.id}`, {
        method: "PATCH",
        json: { config: { url: mockUrl, accountId: 1, inboxId: 1, ignoreChats: [BIA] } },
      }),
    );
    const group = (
      await expectJson<{ id: string }>(
        await c.sim("POST", "/simnet/groups", { subject: "Turma", participants: [a.phone, ANA, BIA] }),
        201,
      )
    ).id;
    await expectJson(
      await c.sim("POST", `/simnet/phones/${ANA}/send`, { to: group, message: { type: "text", text: "no grupo" } }),
      201,
    );
    await phoneSend(BIA, { type: "text", text: "fora do help desk" });
    await phoneSend(ANA, { type: "text", text: "dentro do help desk" });
    await eventually(
      () => messagesOf(`${ANA}@c.us`),
      (l) => l.some((m) => m.content === "dentro do help desk"),
    );
    await new Promise((r) => setTimeout(r, 1_000)); // the other chat's line had as long
    expect((await messagesOf(`${BIA}@c.us`)).some((m) => m.content === "fora do help desk")).toBe(false);
    const s = await state();
    expect(s.contacts.some((x) => x.identifier === group)).toBe(false);
    expect(s.messages.some((m) => m.content?.includes("no grupo"))).toBe(false);
  });
});

function inboxOfAna() {
  return inboxOf(ANA);
}
