import { describe, expect, it, vi } from "vitest";
import { createSimnet, type MessageContent } from "./index.ts";
import { controlClient, type SimClient, useSimnet } from "./testing.ts";

const STEP = 25; // ack clock in these tests

const A = "5511977770001";
const B = "5511977770002";
const C = "5511977770003";
const D = "5511977770004";

const text = (t: string): MessageContent => ({ type: "text", text: t });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type SendResult = { id: string; timestamp: number; chatId: string };

/** The statuses of the next `n` acks of message `id`. */
async function acks(client: SimClient, id: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await client.next("ack", (f) => f.id === id)).status);
  return out;
}

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: STEP });
const { connect, pair } = net;

describe("routing between instances", () => {
  it("delivers a text from one connection to another and back", async () => {
    const a = await pair(A, "ia", "Ana");
    const b = await pair(B, "ib", "Bruno");
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("oi") });
    expect(sent.id).toMatch(/^3EB0[0-9A-F]{20}$/);
    expect(sent.chatId).toBe(`${B}@c.us`);
    expect(sent.timestamp).toBeGreaterThan(1_600_000_000);

    const got = await b.client.next("message");
    expect(got).toEqual({
      type: "message",
      id: sent.id,
      chatId: `${A}@c.us`,
      chatLid: a.me.lid,
      chatName: "Ana",
      isGroup: false,
      fromMe: false,
      from: { id: `${A}@c.us`, phone: A, lid: a.me.lid, pushName: "Ana" },
      timestamp: sent.timestamp,
      message: { type: "text", text: "oi" },
    });
    // The answer to `send` was the server's acceptance (`sent`): the device gets no ack frame for it.
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);

    const reply = await b.client.request<SendResult>("send", {
      to: got.chatId,
      message: text("olá"),
      quotedId: sent.id,
      mentions: [`${A}@c.us`],
    });
    const back = await a.client.next("message");
    expect(back).toMatchObject({ id: reply.id, chatId: `${B}@c.us`, quotedId: sent.id, mentions: [`${A}@c.us`] });
    expect(back.message).toEqual({ type: "text", text: "olá" });
  });

  it("shows what one device sent to the account's other devices (fromMe)", async () => {
    const a1 = await pair(A, "ia1");
    const a2 = await pair(A, "ia2");
    await net.control.post("/simnet/phones", { phone: B, pushName: "Bia" });
    const sent = await a1.client.request<SendResult>("send", { to: B, message: text("from ia1") });
    const copy = await a2.client.next("message");
    expect(copy).toMatchObject({
      id: sent.id,
      chatId: `${B}@c.us`,
      chatName: "Bia",
      fromMe: true,
      origin: "device",
      from: { phone: A },
    });
    // The other device gets every ack; the sending one (its answer was the acceptance) from delivered on.
    expect(await acks(a2.client, sent.id, 2)).toEqual(["sent", "delivered"]);
    expect(await acks(a1.client, sent.id, 1)).toEqual(["delivered"]);
    expect(a1.client.take("ack")).toEqual([]);
    expect(a1.client.take("message")).toEqual([]);
  });

  it("refuses numbers that are not on the network", async () => {
    const a = await pair(A, "ia");
    for (const to of ["5511900000000", "999999999999999@lid", "120363000000000000@g.us"]) {
      await expect(a.client.request("send", { to, message: text("x") })).rejects.toMatchObject({
        code: "not_on_network",
      });
    }
    await expect(a.client.request("send", { to: "x@newsletter", message: text("x") })).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(a.client.request("send", { to: B, message: { type: "fax" } })).rejects.toMatchObject({
      code: "bad_request",
    });
  });

  it("queues messages for an offline device and delivers them when it connects", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    await b.client.close();
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("while away") });
    await sleep(STEP * 4);
    expect(a.client.take("ack")).toEqual([]);
    const inbox = await net.control.get<{ messages: { id: string; status: string; delivered: boolean }[] }>(
      `/simnet/phones/${B}/inbox`,
    );
    expect(inbox.body.messages).toEqual([expect.objectContaining({ id: sent.id, status: "sent", delivered: false })]);

    const back = await connect({ instanceId: "ib", creds: b.creds });
    await back.next("open");
    expect((await back.next("message")).id).toBe(sent.id);
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);
  });

  it("queues acks for the sender's offline device and sends them after open", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B, autoRead: 1 });
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("e some") });
    await a.client.close();
    await sleep(STEP * 6);
    // Whatever the first socket did not get (it may have seen `sent` before closing) comes now.
    const seen = a.client.received.flatMap((f) => (f.type === "ack" ? [f.status] : []));
    const back = await connect({ instanceId: "ia", creds: a.creds });
    await back.next("open");
    const rest = await acks(back, sent.id, 2 - seen.length);
    expect([...seen, ...rest]).toEqual(["delivered", "read"]);
    expect(back.received.map((f) => f.type)).toEqual(["open", ...rest.map(() => "ack")]);
  });

  it("is idempotent for a repeated id", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const first = await a.client.request<SendResult>("send", { to: B, message: text("once"), id: "MYID0001" });
    const second = await a.client.request<SendResult>("send", { to: B, message: text("once"), id: "MYID0001" });
    expect(second).toEqual(first);
    expect(first.id).toBe("MYID0001");
    await b.client.next("message");
    await sleep(STEP * 2);
    expect(b.client.take("message")).toEqual([]);
    const sent = await net.control.get<{ messages: unknown[] }>(`/simnet/phones/${A}/sent`);
    expect(sent.body.messages).toHaveLength(1);
  });
});

describe("acks", () => {
  it("progress sent → delivered → read on the clock; read when the phone reads", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B });
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("leia") });
    const accepted = await net.control.get<{ messages: { status: string; acks: { status: string }[] }[] }>(
      `/simnet/phones/${A}/sent`,
    );
    expect(accepted.body.messages[0]).toMatchObject({ status: "sent", acks: [{ status: "sent" }] });
    const first = await a.client.next("ack", (f) => f.id === sent.id);
    expect(first).toEqual({
      type: "ack",
      id: sent.id,
      chatId: `${B}@c.us`,
      status: "delivered",
      timestamp: expect.any(Number),
    });
    await sleep(STEP * 3);
    expect(a.client.take("ack")).toEqual([]); // no autoRead: stays delivered
    expect((await net.control.post(`/simnet/phones/${B}/read`)).body).toEqual({ read: 1 });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);
    const log = await net.control.get<{ messages: { status: string; acks: { status: string; at: number }[] }[] }>(
      `/simnet/phones/${A}/sent`,
    );
    const msg = log.body.messages[0];
    expect(msg?.status).toBe("read");
    expect(msg?.acks.map((x) => x.status)).toEqual(["sent", "delivered", "read"]);
  });

  it("reads on their own with autoRead, and voice is played too", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B, autoRead: true });
    const voice = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "voice", media: { data: "T2dnUw==", mimetype: "audio/ogg; codecs=opus" }, seconds: 3 },
    });
    expect(await acks(a.client, voice.id, 3)).toEqual(["delivered", "read", "played"]);
    const plain = await a.client.request<SendResult>("send", { to: B, message: text("auto") });
    expect(await acks(a.client, plain.id, 2)).toEqual(["delivered", "read"]);
    await sleep(STEP * 3);
    expect(a.client.take("ack").filter((f) => f.id === plain.id)).toEqual([]);
  });

  it("reads a voice message without playing it when asked", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B });
    const voice = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "voice", media: { data: "T2dnUw==", mimetype: "audio/ogg" } },
    });
    expect(await acks(a.client, voice.id, 1)).toEqual(["delivered"]);
    await net.control.post(`/simnet/phones/${B}/read`, { ids: [voice.id], played: false });
    expect(await acks(a.client, voice.id, 1)).toEqual(["read"]);
    await net.control.post(`/simnet/phones/${B}/read`, { ids: [voice.id] });
    expect(await acks(a.client, voice.id, 1)).toEqual(["played"]);
  });

  it("an instance marks what it received as read (read op)", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("veja") });
    await b.client.next("message");
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);
    expect(await b.client.request("read", { ids: [sent.id] })).toEqual({ read: 1 });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);
    expect(await b.client.request("read", { ids: [sent.id, "unknown"] })).toEqual({ read: 0 });
  });

  it("reaches a virtual phone's sent list when the phone is the sender", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: C });
    const res = await net.control.post<SendResult>(`/simnet/phones/${C}/send`, { to: A, message: text("oi") });
    expect(res.status).toBe(201);
    await a.client.next("message");
    await a.client.request("read", { ids: [res.body.id] });
    // `read` comes a few ack-clock steps later: polled, with room for a slow machine.
    await vi.waitFor(
      async () => {
        const sent = await net.control.get<{ messages: { status: string; origin: string }[] }>(
          `/simnet/phones/${C}/sent`,
        );
        expect(sent.body.messages).toEqual([expect.objectContaining({ status: "read", origin: "phone" })]);
      },
      { timeout: 10_000, interval: STEP },
    );
  });
});

describe("contacts writing to an instance", () => {
  it("delivers a message sent by a virtual phone; the phone's inbox gets the reply", async () => {
    const a = await pair(A, "ia");
    const res = await net.control.post<SendResult>(`/simnet/phones/${C}/send`, {
      to: A,
      message: { type: "location", latitude: -23.5, longitude: -46.6, name: "SP" },
    });
    expect(res.status).toBe(201);
    expect(res.body.chatId).toBe(`${A}@c.us`);
    const got = await a.client.next("message");
    expect(got).toMatchObject({ id: res.body.id, chatId: `${C}@c.us`, fromMe: false, from: { phone: C } });
    expect(got.message).toEqual({ type: "location", latitude: -23.5, longitude: -46.6, name: "SP" });

    const reply = await a.client.request<SendResult>("send", { to: got.chatId, message: text("recebido") });
    const inbox = await net.control.get<{ messages: Record<string, unknown>[] }>(`/simnet/phones/${C}/inbox`);
    expect(inbox.body.messages).toEqual([
      expect.objectContaining({
        id: reply.id,
        chatId: `${A}@c.us`,
        from: expect.objectContaining({ phone: A }),
        message: { type: "text", text: "recebido" },
        delivered: true,
      }),
    ]);
    const since = inbox.body.messages[0]?.seq as number;
    const later = await net.control.get<{ messages: unknown[] }>(`/simnet/phones/${C}/inbox?since=${since}`);
    expect(later.body.messages).toEqual([]);
  });

  it("shows what the phone itself sent on its linked devices (origin phone)", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: C, pushName: "Carla" });
    const res = await net.control.post<SendResult>(`/simnet/phones/${A}/send`, { to: C, message: text("do celular") });
    const copy = await a.client.next("message");
    expect(copy).toMatchObject({
      id: res.body.id,
      fromMe: true,
      origin: "phone",
      chatId: `${C}@c.us`,
      chatName: "Carla",
    });
  });
});

describe("groups", () => {
  it("fans out to participants, refuses outsiders, and honours announce mode", async () => {
    const a = await pair(A, "ia", "Ana");
    const b = await pair(B, "ib", "Bruno");
    await net.control.post("/simnet/phones", { phone: C });
    await net.control.post("/simnet/phones", { phone: D });
    const created = await net.control.post<{ id: string; admins: string[] }>("/simnet/groups", {
      subject: "Equipe",
      participants: [A, B, C],
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^\d+@g\.us$/);
    expect(created.body.admins).toEqual([A]);
    const gid = created.body.id;

    const sent = await a.client.request<SendResult>("send", { to: gid, message: text("bom dia") });
    expect(sent.chatId).toBe(gid);
    const got = await b.client.next("message");
    expect(got).toMatchObject({
      id: sent.id,
      chatId: gid,
      chatLid: null,
      chatName: "Equipe",
      isGroup: true,
      fromMe: false,
      from: { id: `${A}@c.us`, phone: A, pushName: "Ana" },
    });
    const inboxC = await net.control.get<{ messages: { id: string; chatId: string }[] }>(`/simnet/phones/${C}/inbox`);
    expect(inboxC.body.messages).toEqual([expect.objectContaining({ id: sent.id, chatId: gid, isGroup: true })]);
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);
    // Read only once every participant read.
    await net.control.post(`/simnet/phones/${C}/read`);
    await sleep(STEP * 3);
    expect(a.client.take("ack")).toEqual([]);
    await b.client.request("read", { ids: [sent.id] });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);

    const outsider = await net.control.post(`/simnet/phones/${D}/send`, { to: gid, message: text("entrei?") });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toMatchObject({ error: { code: "network_rejected" } });

    const patched = await net.control.patch(`/simnet/groups/${gid}`, { onlyAdminsCanSend: true });
    expect(patched.body).toMatchObject({ onlyAdminsCanSend: true });
    await expect(b.client.request("send", { to: gid, message: text("posso?") })).rejects.toMatchObject({
      code: "network_rejected",
    });
    await a.client.request("send", { to: gid, message: text("só admins") });
    expect((await b.client.next("message")).message).toEqual({ type: "text", text: "só admins" });
  });

  it("answers group metadata to participants", async () => {
    const a = await pair(A, "ia", "Ana");
    await net.control.post("/simnet/phones", { phone: B, pushName: "Bia" });
    const d = await pair(D, "id");
    const { body } = await net.control.post<{ id: string }>("/simnet/groups", {
      subject: "Família",
      participants: [A, B],
      admins: [B],
    });
    const meta = await a.client.request<Record<string, unknown>>("group-metadata", { groupId: body.id });
    expect(meta).toMatchObject({ id: body.id, subject: "Família", onlyAdminsCanSend: false });
    expect(meta.participants).toEqual([
      expect.objectContaining({ id: `${A}@c.us`, phone: A, admin: false }),
      expect.objectContaining({ id: `${B}@c.us`, phone: B, pushName: "Bia", admin: true }),
    ]);
    expect(await a.client.request("groups")).toEqual({ groups: [meta] });
    await expect(d.client.request("group-metadata", { groupId: body.id })).rejects.toMatchObject({
      code: "network_rejected",
    });
    await expect(a.client.request("group-metadata", { groupId: "1@g.us" })).rejects.toMatchObject({
      code: "not_found",
    });
    const bad = await net.control.post("/simnet/groups", { subject: "x", participants: [A, "5511900000009"] });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ error: { code: "not_on_network", details: { missing: ["5511900000009"] } } });
    const read = await net.control.get(`/simnet/groups/${body.id}`);
    expect(read.body).toMatchObject({ subject: "Família", participants: [A, B], admins: [B] });
    const all = await net.control.get<{ groups: { id: string }[] }>("/simnet/groups");
    expect(all.body.groups.map((g) => g.id)).toEqual([body.id]);
    const renamed = await net.control.patch(`/simnet/groups/${body.id}`, {
      subject: "Família 2",
      participants: [A, B, D],
    });
    expect(renamed.body).toMatchObject({ subject: "Família 2", participants: [A, B, D], admins: [B] });
    expect(await d.client.request("group-metadata", { groupId: body.id })).toMatchObject({ subject: "Família 2" });
    expect((await net.control.get("/simnet/groups/1@g.us")).status).toBe(404);
  });
});

describe("privacy ids", () => {
  it("hides a number behind its lid until the phone reveals it", async () => {
    const a = await pair(A, "ia");
    const hidden = await net.control.post<{ lid: string }>("/simnet/phones", {
      phone: C,
      pushName: "Oculto",
      hidePhone: true,
    });
    const lid = hidden.body.lid;
    await net.control.post(`/simnet/phones/${C}/send`, { to: A, message: text("sem número") });
    const got = await a.client.next("message");
    expect(got).toMatchObject({
      chatId: lid,
      chatLid: lid,
      from: { id: lid, phone: null, lid, pushName: "Oculto" },
    });
    expect(await a.client.request("check-exists", { phone: C })).toEqual({
      exists: true,
      chatId: `${C}@c.us`,
      lid: null,
    });
    const reply = await a.client.request<SendResult>("send", { to: lid, message: text("resposta") });
    expect(reply.chatId).toBe(lid);
    expect(await acks(a.client, reply.id, 1)).toEqual(["delivered"]);
    const inbox = await net.control.get<{ messages: { id: string }[] }>(`/simnet/phones/${C}/inbox`);
    expect(inbox.body.messages.map((m) => m.id)).toEqual([reply.id]);

    const { body: group } = await net.control.post<{ id: string }>("/simnet/groups", {
      subject: "g",
      participants: [A, C],
    });
    const meta = await a.client.request<{ participants: { id: string; phone: string | null }[] }>("group-metadata", {
      groupId: group.id,
    });
    expect(meta.participants[1]).toMatchObject({ id: lid, phone: null });

    expect((await net.control.post(`/simnet/phones/${C}/reveal`)).body).toMatchObject({ revealed: true });
    await net.control.post(`/simnet/phones/${C}/send`, { to: A, message: text("agora com número") });
    const after = await a.client.next("message");
    expect(after).toMatchObject({ chatId: `${C}@c.us`, chatLid: lid, from: { id: `${C}@c.us`, phone: C, lid } });
    expect(await a.client.request("check-exists", { phone: C })).toEqual({ exists: true, chatId: `${C}@c.us`, lid });
  });
});

describe("numbers", () => {
  it("resolves the Brazilian ninth digit both ways", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: "551187650000" }); // registered without the 9
    await net.control.post("/simnet/phones", { phone: "5511976540000" }); // registered with it
    expect(await a.client.request("check-exists", { phone: "5511987650000" })).toMatchObject({
      exists: true,
      chatId: "551187650000@c.us",
      lid: expect.stringMatching(/@lid$/),
    });
    expect(await a.client.request("check-exists", { phone: "551176540000" })).toMatchObject({
      exists: true,
      chatId: "5511976540000@c.us",
    });
    expect(await a.client.request("check-exists", { phone: "+55 11 98765-9999" })).toEqual({
      exists: false,
      chatId: null,
      lid: null,
    });
    await expect(a.client.request("check-exists", { phone: "abc" })).rejects.toMatchObject({ code: "bad_request" });
    const sent = await a.client.request<SendResult>("send", { to: "5511987650000", message: text("nono") });
    expect(sent.chatId).toBe("551187650000@c.us");
    // The net.control API finds the account by either form too.
    const inbox = await net.control.get<{ messages: { id: string }[] }>("/simnet/phones/5511987650000/inbox");
    expect(inbox.body.messages.map((m) => m.id)).toEqual([sent.id]);
    // Only Brazilian mobile numbers change.
    await net.control.post("/simnet/phones", { phone: "14155550100" });
    expect(await a.client.request("check-exists", { phone: "141555501000" })).toMatchObject({ exists: false });
  });
});

describe("message content", () => {
  it("carries every message type intact and keeps what the instance sent", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const media = { data: Buffer.from("fake-bytes").toString("base64"), mimetype: "image/jpeg" };
    const poll = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "poll", name: "Qual?", options: ["a", "b"], multipleAnswers: false },
    });
    const samples: MessageContent[] = [
      { type: "text", text: "t", linkPreview: false },
      { type: "image", media, caption: "foto" },
      { type: "video", media: { ...media, mimetype: "video/mp4" }, asNote: true },
      { type: "audio", media: { ...media, mimetype: "audio/mpeg" } },
      { type: "voice", media: { ...media, mimetype: "audio/ogg" }, seconds: 2 },
      { type: "document", media: { ...media, mimetype: "application/pdf", filename: "a.pdf" }, caption: "doc" },
      { type: "sticker", media: { ...media, mimetype: "image/webp" } },
      { type: "location", latitude: 1, longitude: 2, name: "x", address: "y" },
      { type: "contacts", contacts: [{ fullName: "Zé", phoneNumber: "5511999999999" }] },
      { type: "poll_vote", pollId: poll.id, votes: ["a"] },
      { type: "reaction", targetId: poll.id, emoji: "👍" },
      { type: "edit", targetId: poll.id, text: "Qual mesmo?" },
      { type: "event", name: "Festa", startTime: 1_900_000_000, location: { name: "Casa" } },
      {
        type: "list",
        title: "Menu",
        button: "Ver",
        sections: [{ title: "S", rows: [{ title: "R", rowId: "r1", description: "d" }] }],
      },
      { type: "link_preview", text: "veja https://x.y", preview: { title: "X", description: "Y", url: "https://x.y" } },
      { type: "revoke", targetId: poll.id },
    ];
    await b.client.next("message", (m) => m.id === poll.id);
    for (const message of samples) {
      const sent = await a.client.request<SendResult>("send", { to: B, message });
      const got = await b.client.next("message", (m) => m.id === sent.id);
      expect(got.message).toEqual(message);
    }
    const sent = await net.control.get<{ messages: Record<string, unknown>[] }>(`/simnet/phones/${A}/sent`);
    expect(sent.body.messages).toHaveLength(samples.length + 1);
    expect(sent.body.messages[2]).toMatchObject({
      message: { type: "image", media: { data: media.data, mimetype: "image/jpeg" }, caption: "foto" },
      origin: "device",
      instanceId: "ia",
      deviceId: a.creds.deviceId,
      to: B,
      chatId: `${B}@c.us`,
    });
  });

  it("checks references of votes, reactions, edits and revokes", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const poll = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "poll", name: "P", options: ["x", "y"], multipleAnswers: false },
    });
    await expect(
      b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["z"] } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    await expect(
      b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["x", "y"] } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    await b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["y"] } });
    await expect(
      b.client.request("send", { to: A, message: { type: "reaction", targetId: "NOPE", emoji: "x" } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    await expect(
      b.client.request("send", { to: A, message: { type: "edit", targetId: poll.id, text: "mine now" } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    await expect(
      b.client.request("send", { to: A, message: { type: "revoke", targetId: poll.id } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    expect(
      await b.client.request("send", { to: A, message: { type: "reaction", targetId: poll.id, emoji: "❤️" } }),
    ).toHaveProperty("id");
    await expect(
      a.client.request("send", { to: B, message: { type: "image", media: { data: "***", mimetype: "image/png" } } }),
    ).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("quota and restrictions", () => {
  it("counts new conversations and refuses them while restricted", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    await net.control.post("/simnet/phones", { phone: C });
    await net.control.post("/simnet/phones", { phone: D });
    await a.client.request("send", { to: B, message: text("1") });
    await a.client.request("send", { to: C, message: text("2") });
    await a.client.request("send", { to: B, message: text("3") });
    await b.client.request("send", { to: A, message: text("reply") });
    expect(await a.client.request("capping")).toMatchObject({ usedQuota: 2 });
    expect(await b.client.request("capping")).toMatchObject({ usedQuota: 0 });

    await net.control.put(`/simnet/phones/${A}/restrictions`, { timelock: { isActive: true, enforcementType: "X" } });
    await expect(a.client.request("send", { to: D, message: text("novo") })).rejects.toMatchObject({
      code: "restricted",
    });
    await a.client.request("send", { to: B, message: text("conhecido") }); // an existing conversation is fine
    await net.control.put(`/simnet/phones/${A}/restrictions`, {
      timelock: null,
      capping: { cappingStatus: "CAPPED", totalQuota: 2 },
    });
    await expect(a.client.request("send", { to: D, message: text("novo") })).rejects.toMatchObject({
      code: "restricted",
    });
    await net.control.put(`/simnet/phones/${A}/restrictions`, { capping: null });
    await a.client.request("send", { to: D, message: text("novo") });
    expect(await a.client.request("capping")).toMatchObject({ usedQuota: 3 });
  });
});

describe("bounds", () => {
  it("keeps at most messageLimit messages per phone", async () => {
    const small = createSimnet({ port: 0, adminToken: net.token, messageLimit: 5, ackDelayMs: 0, logLevel: "silent" });
    const smallUrl = await small.listen();
    const ctl = controlClient(smallUrl, net.token);
    try {
      await ctl.post("/simnet/phones", { phone: B });
      for (let i = 0; i < 8; i++) await ctl.post(`/simnet/phones/${A}/send`, { to: B, message: text(`m${i}`) });
      const sent = await ctl.get<{ messages: { message: { text: string } }[] }>(`/simnet/phones/${A}/sent`);
      expect(sent.body.messages.map((m) => m.message.text)).toEqual(["m3", "m4", "m5", "m6", "m7"]);
      const inbox = await ctl.get<{ messages: unknown[] }>(`/simnet/phones/${B}/inbox?limit=2`);
      expect(inbox.body.messages).toHaveLength(2);
      expect(small.state.messagesById.size).toBe(5);
      expect((await ctl.get("/simnet/stats")).body).toMatchObject({ messagesSent: 8 });
    } finally {
      await small.close();
    }
  });
});
