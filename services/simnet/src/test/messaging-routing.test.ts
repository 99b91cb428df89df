// simnet's messaging, who reaches whom: texts routed between instances and back (the sender's other
// devices, offline devices' queues, repeated ids), contacts (virtual phones) writing to an
// instance, privacy ids (LIDs) and numbers (the Brazilian ninth digit).
import { describe, expect, it } from "vitest";
import { acks, type SendResult, sleep, text, useSimnet } from "./testing.ts";

const STEP = 25; // ack clock in these tests

const A = "5511977770001";
const B = "5511977770002";
const C = "5511977770003";

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
