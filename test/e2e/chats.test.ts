// The chat routes of spec 4.5 end to end on simnet: what a contact writes and what the instance
// sends come back through the read model with the event ids, acks, filters and pages; one
// identity per person (a number read includes what arrived by lid); storage switches; edits,
// deletions and reads reach the contact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531955550001" };
const contact = "5531955550002";
const hidden = "5531955550003";
const other = "5531955550004";
const CHAT = `${contact}@c.us`;
let api: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

beforeAll(async () => {
  // Polling reads: more than the 20/s of one instance's rate limit.
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  Object.assign(a, await c.createInstance());
  api = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Ana" });
  await c.sim("POST", "/simnet/phones", { phone: other, pushName: "Bruno" });
  await c.sim("POST", "/simnet/phones", { phone: hidden, pushName: "Oculto", hidePhone: true });
}, 60_000);
afterAll(() => c?.close());

type Msg = Record<string, any>;

const messages = async (chat: string, query = "limit=100") =>
  expectJson<Msg[]>(await api(`/chats/${encodeURIComponent(chat)}/messages?${query}`));

/** The phone sends to the instance; resolves with the network id once the read model has it. */
async function write(from: string, message: Record<string, unknown>): Promise<string> {
  const res = await c.sim("POST", `/simnet/phones/${from}/send`, { to: a.phone, message });
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  return id;
}

const inbox = async (phone: string) =>
  ((await (await c.sim("GET", `/simnet/phones/${phone}/inbox`)).json()) as { messages: Msg[] }).messages;

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
let written: string[] = [];
let sentId = "";

describe("a contact's conversation", () => {
  it("what a contact writes and what we send reads back with the event ids", async () => {
    written = [
      await write(contact, { type: "text", text: "oi" }),
      await write(contact, {
        type: "image",
        media: { data: png.toString("base64"), mimetype: "image/png" },
        caption: "foto",
      }),
      await write(contact, { type: "location", latitude: -19.9, longitude: -43.9, name: "Praça", address: "Centro" }),
      await write(contact, { type: "contacts", contacts: [{ fullName: "Bia", phoneNumber: "5531999998888" }] }),
    ];
    await until(async () => (await messages(CHAT)).length === 4, "four messages");
    const sent = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: contact, text: "tudo bem?" } }),
      201,
    );
    sentId = sent.id;
    const got = await until(async () => {
      const list = await messages(CHAT);
      return list.length >= 5 && list;
    }, "five messages");
    // Newest first; the ids are the events' ids.
    const eventIds = await until(async () => {
      const events = (await c.events(a.id, "message.any")).map((e) => e.payload as Msg);
      const ids = events.filter((p) => p.chatId === CHAT).map((p) => p.id as string);
      return ids.length === 5 && ids;
    }, "five message.any events");
    expect(got.map((m) => m.id).sort()).toEqual(eventIds.sort());
    expect(got[0]).toMatchObject({ id: sentId, fromMe: true, body: "tudo bem?", source: "api", to: CHAT });
    const byNet = (id: string) => got.find((m) => m.id === `false_${CHAT}_${id}`)!;
    expect(byNet(written[0]!)).toMatchObject({
      body: "oi",
      type: "text",
      fromMe: false,
      from: CHAT,
      to: `${a.phone}@c.us`,
      hasMedia: false,
      ackName: "DEVICE",
    });
    expect(byNet(written[0]!).lid).toMatch(/@lid$/);
    expect(byNet(written[1]!)).toMatchObject({
      type: "image",
      body: "foto",
      hasMedia: true,
      media: { mimetype: "image/png", url: null },
    });
    expect(byNet(written[2]!).location).toMatchObject({ latitude: "-19.9", longitude: "-43.9", name: "Praça" });
    expect(byNet(written[3]!).vCards[0]).toContain("FN:Bia");
    for (const m of got) expect(m.timestamp).toBeLessThan(10_000_000_000);
  });

  it("one message by id; media through signed links with downloadMedia", async () => {
    const imageId = `false_${CHAT}_${written[1]}`;
    const one = await expectJson<Msg>(
      await api(`/chats/${CHAT}/messages/${encodeURIComponent(imageId)}?downloadMedia=true`),
    );
    expect(one).toMatchObject({ id: imageId, hasMedia: true });
    expect(one.mediaUrl).toBe(one.media.url);
    const url = new URL(one.mediaUrl);
    const file = await fetch(`${c.url}${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(png);
    // By number without @c.us, by the bare network id.
    expect((await expectJson<Msg>(await api(`/chats/${contact}/messages/${written[1]}`))).id).toBe(imageId);
    await expectError(await api(`/chats/${CHAT}/messages/false_${CHAT}_NOPE0000`), 404, "not_found");
    await expectError(await api(`/chats/${other}@c.us/messages/${encodeURIComponent(imageId)}`), 404, "not_found");
  });

  it("filters, pages and order", async () => {
    const all = await messages(CHAT);
    expect(all.map((m) => m.timestamp)).toEqual([...all.map((m) => m.timestamp)].sort((x, y) => y - x));
    const asc = await messages(CHAT, "limit=100&sortOrder=asc");
    expect(asc.map((m) => m.id)).toEqual([...all].reverse().map((m) => m.id));
    const page = await messages(CHAT, "limit=2&offset=1");
    expect(page.map((m) => m.id)).toEqual(all.slice(1, 3).map((m) => m.id));
    expect((await messages(CHAT, "limit=100&filter.fromMe=true")).map((m) => m.id)).toEqual([sentId]);
    expect((await messages(CHAT, "limit=100&filter.fromMe=false")).length).toBe(4);
    const t = all[all.length - 1]!.timestamp;
    const inWindow = await messages(CHAT, `limit=100&filter.timestamp.gte=${t}&filter.timestamp.lte=${t}`);
    expect(inWindow.length).toBeGreaterThan(0);
    for (const m of inWindow) expect(m.timestamp).toBe(t);
    expect(await messages(CHAT, `limit=100&filter.timestamp.lte=${t - 1}`)).toEqual([]);
    expect((await messages(CHAT, "limit=100&filter.ack=DEVICE&filter.fromMe=false")).length).toBe(4);

    const missing = await expectError(await api(`/chats/${CHAT}/messages`), 422, "validation_error");
    expect(missing.error.details).toHaveProperty("limit");
    const bad = await expectError(await api("/chats/not-a-chat/messages?limit=1"), 422, "validation_error");
    expect(bad.error.details).toHaveProperty("chatId");
    const tooMany = await expectError(await api(`/chats/${CHAT}/messages?limit=1001`), 422, "validation_error");
    expect(tooMany.error.details).toHaveProperty("limit");
    const ack = await expectError(await api(`/chats/${CHAT}/messages?limit=1&filter.ack=X`), 422, "validation_error");
    expect(ack.error.details).toHaveProperty(["filter.ack"]);
  });

  it("acks of our messages are reflected", async () => {
    // The contact is a phone without devices: delivered at once; it reads when told to.
    await until(async () => {
      const m = await expectJson<Msg>(await api(`/chats/${CHAT}/messages/${encodeURIComponent(sentId)}`));
      return m.ackName === "DEVICE" && m;
    }, "delivered");
    await c.sim("POST", `/simnet/phones/${contact}/read`, {});
    const read = await until(async () => {
      const m = await expectJson<Msg>(await api(`/chats/${CHAT}/messages/${encodeURIComponent(sentId)}`));
      return m.ackName === "READ" && m;
    }, "read");
    expect(read.ack).toBe(3);
    expect((await messages(CHAT, "limit=100&filter.ack=read")).map((m) => m.id)).toEqual([sentId]);
  });

  it("chats and overview; our reply cleared the unread count, the next message counts", async () => {
    await write(contact, { type: "text", text: "e você?" });
    await write(other, { type: "text", text: "olá" });
    const chats = await until(async () => {
      const list = await expectJson<Msg[]>(await api("/chats"));
      return list.length >= 2 && list[0]!.lastMessage?.body === "olá" && list;
    }, "two chats");
    expect(chats.map((x) => x.id)).toEqual([`${other}@c.us`, CHAT]);
    expect(chats[1]).toMatchObject({ name: "Ana", unreadCount: 1, isGroup: false });
    expect(new URL(chats[1]!.picture).pathname).toBe(`/v1/avatars/${a.id}/${CHAT}.jpg`);
    expect(chats[1]!.lastMessage).toMatchObject({ body: "e você?", fromMe: false });
    expect((await expectJson<Msg[]>(await api("/chats?sortBy=name&sortOrder=asc"))).map((x) => x.name)).toEqual([
      "Ana",
      "Bruno",
    ]);
    expect((await expectJson<Msg[]>(await api("/chats?limit=1&offset=1"))).map((x) => x.id)).toEqual([CHAT]);

    const overview = await expectJson<Msg[]>(await api(`/chats/overview?ids=${contact}`));
    expect(overview).toHaveLength(1);
    expect(overview[0]).toMatchObject({ id: CHAT, name: "Ana", unreadCount: 1 });
    expect(overview[0]!.lastMessage).toMatchObject({ body: "e você?", ackName: "DEVICE" });
    expect(overview[0]!._chat).toMatchObject({ id: CHAT });
    const posted = await expectJson<Msg[]>(
      await api("/chats/overview", { method: "POST", json: { pagination: { limit: 10 }, filter: { ids: [CHAT] } } }),
    );
    expect(posted).toEqual(overview);
    expect(await expectJson<Msg[]>(await api("/chats/overview?limit=1"))).toHaveLength(1);
    const noPagination = await expectError(
      await api("/chats/overview", { method: "POST", json: {} }),
      422,
      "validation_error",
    );
    expect(noPagination.error.details).toHaveProperty("pagination");
    await expectError(await api(`/chats/${CHAT}/picture`), 404, "not_found");
    // With a picture (refresh: the day's cache still says none).
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 5, 6]);
    await c.sim("PUT", `/simnet/phones/${contact}/picture`, {
      picture: { data: jpeg.toString("base64"), mimetype: "image/jpeg" },
    });
    await expectError(await api(`/chats/${CHAT}/picture`), 404, "not_found");
    const { url } = await expectJson<{ url: string }>(await api(`/chats/${CHAT}/picture?refresh=true`));
    const link = new URL(url);
    const bytes = await fetch(`${c.url}${link.pathname}${link.search}`);
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(jpeg);
  });

  it("messages/read marks the unread received messages read on the network and answers their ids", async () => {
    const unread = await messages(CHAT, "limit=100&filter.fromMe=false&filter.ack=DEVICE");
    expect(unread.length).toBe(5);
    const res = await expectJson<{ ids: string[] }>(
      await api(`/chats/${CHAT}/messages/read?messages=2`, { method: "POST" }),
    );
    expect(res.ids).toEqual(unread.slice(0, 2).map((m) => m.id));
    const rest = await expectJson<{ ids: string[] }>(await api(`/chats/${contact}/messages/read`, { method: "POST" }));
    expect(rest.ids).toEqual(unread.slice(2).map((m) => m.id));
    expect(
      (await expectJson<{ ids: string[] }>(await api(`/chats/${CHAT}/messages/read`, { method: "POST" }))).ids,
    ).toEqual([]);
    // The contact's phone sees its messages read.
    const sentByContact = ((await (await c.sim("GET", `/simnet/phones/${contact}/sent`)).json()) as { messages: Msg[] })
      .messages;
    for (const m of unread) {
      const netId = m.id.split("_")[2];
      const s = sentByContact.find((x) => x.id === netId);
      await until(async () => {
        const now = ((await (await c.sim("GET", `/simnet/phones/${contact}/sent`)).json()) as { messages: Msg[] })
          .messages;
        return now.find((x) => x.id === netId)?.status === "read";
      }, `${netId} read (was ${s?.status})`);
    }
    expect((await messages(CHAT, "limit=100&filter.fromMe=false")).map((m) => m.ackName)).toEqual(
      unread.map(() => "READ"),
    );
    const chat = (await expectJson<Msg[]>(await api(`/chats/overview?ids=${contact}`)))[0]!;
    expect(chat.unreadCount).toBe(0);

    expect(await expectJson(await api(`/chats/${CHAT}/unread`, { method: "POST" }))).toEqual({});
    const marked = (await expectJson<Msg[]>(await api(`/chats/overview?ids=${contact}`)))[0]!;
    expect(marked).toMatchObject({ unreadCount: 1, _chat: { markedUnread: true } });
  });

  it("edit and delete our message: the contact gets both, the read model shows them", async () => {
    const sent = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: contact, text: "com erro" } }),
      201,
    );
    const path = `/chats/${CHAT}/messages/${encodeURIComponent(sent.id)}`;
    await until(async () => (await api(path)).status === 200, "stored");
    expect(await expectJson(await api(path, { method: "PUT", json: { text: "corrigido" } }))).toEqual({
      success: true,
    });
    const netId = sent.id.split("_")[2];
    await until(
      async () => (await inbox(contact)).find((m) => m.message?.type === "edit" && m.message.targetId === netId),
      "edit in the contact's inbox",
    );
    const edited = await until(async () => {
      const m = await expectJson<Msg>(await api(path));
      return m.edited && m;
    }, "edited");
    expect(edited.body).toBe("corrigido");

    expect(await expectJson(await api(path, { method: "DELETE" }))).toEqual({ success: true });
    await until(
      async () => (await inbox(contact)).find((m) => m.message?.type === "revoke" && m.message.targetId === netId),
      "revoke in the contact's inbox",
    );
    const revoked = await until(async () => {
      const m = await expectJson<Msg>(await api(path));
      return m.revoked && m;
    }, "revoked");
    expect(revoked).toMatchObject({ body: "", type: "revoked" });

    // Only our own messages; the text is required.
    const theirs = `/chats/${CHAT}/messages/${encodeURIComponent(`false_${CHAT}_${written[0]}`)}`;
    const notOurs = await expectError(
      await api(theirs, { method: "PUT", json: { text: "x" } }),
      422,
      "validation_error",
    );
    expect(notOurs.error.details).toHaveProperty("messageId");
    await expectError(await api(theirs, { method: "DELETE" }), 422, "validation_error");
    const noText = await expectError(await api(path, { method: "PUT", json: {} }), 422, "validation_error");
    expect(noText.error.details).toHaveProperty("text");
    await expectError(await api(`/chats/${CHAT}/messages/NOPE12345678`, { method: "DELETE" }), 404, "not_found");
  });
});

describe("one identity per person", () => {
  it("a number read includes what arrived while the contact hid its number", async () => {
    const first = await write(hidden, { type: "text", text: "quem sou?" });
    const second = await write(hidden, { type: "text", text: "adivinhe" });
    const lidEra = await until(async () => {
      const chats = await expectJson<Msg[]>(await api("/chats"));
      const lidChat = chats.find((x) => x.id.endsWith("@lid"));
      return lidChat && lidChat.lastMessage?.body === "adivinhe" && lidChat;
    }, "the lid chat");
    const lid = lidEra.id as string;
    await c.sim("POST", `/simnet/phones/${hidden}/reveal`);
    const third = await write(hidden, { type: "text", text: "sou eu" });
    const chat = `${hidden}@c.us`;
    const merged = await until(async () => {
      const list = await messages(chat);
      return list.length === 3 && list;
    }, "three messages by number");
    expect(merged.map((m) => m.body)).toEqual(["sou eu", "adivinhe", "quem sou?"]);
    expect(merged.map((m) => m.id)).toEqual([third, second, first].map((id) => `false_${chat}_${id}`));
    for (const m of merged) expect(m).toMatchObject({ chatId: chat, from: chat, lid });
    // Not merged: only what came by number; the lid chat alone holds the rest.
    expect((await messages(chat, "limit=100&merge=false")).map((m) => m.body)).toEqual(["sou eu"]);
    expect((await messages(lid, "limit=100&merge=false")).map((m) => m.body)).toEqual(["adivinhe", "quem sou?"]);
    // The lid-era message by its old id.
    const old = await expectJson<Msg>(
      await api(`/chats/${chat}/messages/${encodeURIComponent(`false_${lid}_${first}`)}`),
    );
    expect(old).toMatchObject({ id: `false_${chat}_${first}`, body: "quem sou?" });
    // One chat for the person; merge=false lists both records.
    const chats = await expectJson<Msg[]>(await api("/chats"));
    expect(chats.filter((x) => x.id === chat || x.id === lid)).toEqual([
      expect.objectContaining({ id: chat, lid, unreadCount: 3 }),
    ]);
    const both = await expectJson<Msg[]>(await api("/chats?merge=false"));
    expect(
      both
        .filter((x) => x.id === chat || x.id === lid)
        .map((x) => x.id)
        .sort(),
    ).toEqual([chat, lid].sort());
  });
});

describe("storage switches and instance kinds", () => {
  it("storage.messages and .chats off: nothing stored, reads answer empty", async () => {
    const patch = await api("/settings", { method: "PATCH", json: { storage: { messages: false, chats: false } } });
    expect(patch.status).toBe(200);
    expect(await messages(CHAT)).toEqual([]);
    expect(await expectJson(await api("/chats"))).toEqual([]);
    expect(await expectJson(await api("/chats/overview"))).toEqual([]);
    await expectError(await api(`/chats/${CHAT}/messages/${encodeURIComponent(sentId)}`), 404, "not_found");
    const during = await write(contact, { type: "text", text: "não guardada" });
    await until(
      async () => (await c.events(a.id, "message")).find((e) => (e.payload as Msg).id === `false_${CHAT}_${during}`),
      "the event",
    );
    await api("/settings", { method: "PATCH", json: { storage: { messages: true, chats: true } } });
    const after = await messages(CHAT);
    expect(after.length).toBeGreaterThan(0);
    expect(after.find((m) => m.id === `false_${CHAT}_${during}`)).toBeUndefined();
  });

  it("official-gateway instances: stored history is readable; what needs the network answers 501", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    const api = c.as(off.token);
    expect(await (await api(`/v1/instances/${off.id}/chats`)).json()).toEqual([]);
    expect(await (await api(`/v1/instances/${off.id}/chats/${CHAT}/messages?limit=5`)).json()).toEqual([]);
    await expectError(await api(`/v1/instances/${off.id}/chats/${CHAT}/picture`), 501, "not_supported_by_provider");
    await expectError(
      await api(`/v1/instances/${off.id}/chats/${CHAT}/unread`, { method: "POST" }),
      501,
      "not_supported_by_provider",
    );
  });
});
