// The read model's write design (read-model/: scripts.ts, memo.ts, writes.ts, chats.ts) on a real
// Redis Stack: what a process remembers to spare reads gives the same results as the reads it
// spares, also when another process (which remembers nothing) writes the same messages and chats.
import type { Instance, OutboundContent } from "@gw/contracts";
import { testEnv, uniquePrefix } from "@gw/test/gateway";
import { workingInstance } from "@gw/test/instance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../infra/config.ts";
import { createPlatform, type Platform } from "../platform.ts";
import { ACK, type MessageQuery, RANK_SPAN, type ReadModel } from "./index.ts";

/** Two processes on the same keys: `a` (the pod that sends) and `b` (another process). */
let a: Platform;
let b: Platform;
beforeAll(async () => {
  const env = testEnv({ KEY_PREFIX: uniquePrefix(), MESSAGE_RETENTION_DAYS: "30" });
  a = await createPlatform(loadConfig(env));
  b = await createPlatform(loadConfig(env));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const instance = (over: Partial<Instance> = {}, storage: Partial<Instance["settings"]["storage"]> = {}): Instance =>
  workingInstance("irw", over, storage);

const CHAT = "5511911112222@c.us";
let nid = 0;
const netId = () => `3EB1${(++nid).toString(16).padStart(8, "0").toUpperCase()}`;

/** A `message.any` payload of a text we sent (as the session manager builds it: raw = the content). */
function sent(timestamp: number, text: string, content: OutboundContent = { type: "text", text }) {
  const id = netId();
  return {
    networkId: id,
    content,
    payload: {
      id: `true_${CHAT}_${id}`,
      chatId: CHAT,
      chatLid: null,
      isGroup: false,
      chatName: "Ana",
      fromMe: true,
      from: { id: "5511900000000@c.us", phone: "5511900000000", lid: null, pushName: "Me" },
      timestamp,
      source: "api",
      status: "sent",
      type: content.type === "text" ? "text" : content.type,
      text,
      raw: content,
    } as Record<string, unknown>,
  };
}

function received(timestamp: number, text: string) {
  const id = netId();
  return {
    networkId: id,
    payload: {
      id: `false_${CHAT}_${id}`,
      chatId: CHAT,
      chatLid: null,
      isGroup: false,
      chatName: "Ana",
      fromMe: false,
      from: { id: CHAT, phone: "5511911112222", lid: null, pushName: "Ana" },
      timestamp,
      type: "text",
      text,
      raw: { hello: text },
    } as Record<string, unknown>,
  };
}

const q = (over: Partial<MessageQuery> = {}): MessageQuery => ({
  limit: 100,
  offset: 0,
  sortOrder: "desc",
  merge: true,
  downloadMedia: false,
  ...over,
});
const chatQ = { limit: 10, offset: 0, sortBy: "lastMessageAt" as const, sortOrder: "desc" as const, merge: true };

const record = (rm: ReadModel, inst: Instance, m: { networkId: string; payload: Record<string, unknown> }) =>
  rm.record(inst, m.payload.fromMe ? "message.any" : "message", m.payload, { networkId: m.networkId });

describe("acks in the ack sets", () => {
  it("the sending process moves an ack by the place it remembers; another process by the document; forward only", async () => {
    const inst = instance();
    const m1 = sent(1_767_225_600, "um");
    const m2 = sent(1_767_225_601, "dois");
    for (const m of [m1, m2]) await record(a.readModel, inst, m);
    await a.readModel.ack(inst, m1.networkId, "delivered"); // remembered place
    await b.readModel.ack(inst, m2.networkId, "read"); // found by its document
    await b.readModel.ack(inst, m1.networkId, "failed"); // too late: delivered already
    await a.readModel.ack(inst, m2.networkId, "delivered"); // late and out of order
    const [v2, v1] = await b.readModel.listMessages(inst, CHAT, q());
    expect([v1!.ackName, v2!.ackName]).toEqual(["DEVICE", "READ"]);
    expect((await a.readModel.listMessages(inst, CHAT, q({ ack: ACK.READ }))).map((v) => v.body)).toEqual(["dois"]);
    // The score is the ack's rank band plus the sortKey: the message keeps its place in time.
    const [doc] = await a.readModel.storedDocs(inst.id, [m2.networkId]);
    const score = await a.redis.zscore(`${a.keys.readAckPrefix(inst.id)}${CHAT}:1`, m2.networkId);
    expect(Number(score) % RANK_SPAN).toBe(doc!.sortKey);
  });

  it("ERROR replaces a sent ack, a later delivery replaces ERROR, and nothing goes back to sent", async () => {
    const inst = instance();
    const m = sent(1_767_225_600, "falha");
    await record(a.readModel, inst, m);
    await a.readModel.ack(inst, m.networkId, "failed");
    expect((await a.readModel.listMessages(inst, CHAT, q()))[0]).toMatchObject({ ack: ACK.ERROR, ackName: "ERROR" });
    await b.readModel.ack(inst, m.networkId, "sent");
    expect((await a.readModel.listMessages(inst, CHAT, q()))[0]!.ack).toBe(ACK.ERROR);
    await b.readModel.ack(inst, m.networkId, "delivered");
    expect((await a.readModel.listMessages(inst, CHAT, q({ ack: ACK.DEVICE }))).map((v) => v.body)).toEqual(["falha"]);
  });

  it("an official instance's ack that another process handled before the send was stored is taken by the store", async () => {
    // Official acks come through the worker's inbound processing, not the pod that sends.
    const inst = instance({ kind: "official" });
    const m = sent(1_767_225_600, "oficial");
    await b.readModel.ack(inst, m.networkId, "delivered"); // pending: nothing stored yet
    await record(a.readModel, inst, m);
    expect((await a.readModel.listMessages(inst, CHAT, q()))[0]!.ackName).toBe("DEVICE");
    expect(await a.redis.exists(a.keys.readPendingAck(inst.id, m.networkId))).toBe(0);
  });

  it("an ack sent to Redis just before the store (same batch) is taken by it", async () => {
    const inst = instance();
    const m = sent(1_767_225_600, "corrida");
    // Not awaited in between: the ack's lookup and the store leave in one script call, ack first.
    await Promise.all([a.readModel.ack(inst, m.networkId, "delivered"), record(a.readModel, inst, m)]);
    expect((await a.readModel.listMessages(inst, CHAT, q()))[0]!.ackName).toBe("DEVICE");
  });

  it("an ack of a message never stored leaves nothing but its short-lived pending mark", async () => {
    const inst = instance();
    await a.readModel.ack(inst, "3EB1NEVERSTORED", "read");
    expect(await a.redis.pttl(a.keys.readPendingAck(inst.id, "3EB1NEVERSTORED"))).toBeGreaterThan(0);
    expect(await a.redis.exists(`${a.keys.readAckPrefix(inst.id)}${CHAT}:1`)).toBe(0);
  });
});

describe("chats: the fast path", () => {
  it("gives what the full path gives: last message, unread counts, order, also against another process's writes", async () => {
    const inst = instance();
    const r1 = received(1_767_225_600, "r1");
    await record(a.readModel, inst, r1); // full path: a new chat
    const r2 = received(1_767_225_610, "r2");
    await record(a.readModel, inst, r2); // fast path
    let [chat] = await a.readModel.listChats(inst, chatQ);
    expect(chat!.view).toMatchObject({ unreadCount: 2, timestamp: 1_767_225_610 });
    expect((chat!.view.lastMessage as { body: string }).body).toBe("r2");
    // An older message: not the last one, still unread.
    await record(a.readModel, inst, received(1_767_225_605, "atrasada"));
    [chat] = await a.readModel.listChats(inst, chatQ);
    expect(chat!.view).toMatchObject({ unreadCount: 3, timestamp: 1_767_225_610 });
    expect((chat!.view.lastMessage as { body: string }).body).toBe("r2");
    // The chat marked unread by another process (the gateway), then our answer reads it.
    await b.readModel.markUnread(inst, CHAT);
    await record(a.readModel, inst, sent(1_767_225_620, "resposta"));
    [chat] = await a.readModel.listChats(inst, chatQ);
    expect(chat!.view).toMatchObject({ unreadCount: 0, markedUnread: false, timestamp: 1_767_225_620 });
    expect((chat!.view.lastMessage as { body: string }).body).toBe("resposta");
    // Two messages of the same second and millisecond: the later arrival is the last.
    const s1 = sent(1_767_225_630, "mesmo ms 1");
    const s2 = sent(1_767_225_630, "mesmo ms 2");
    for (const m of [s1, s2]) {
      await a.readModel.record(inst, "message.any", m.payload, { networkId: m.networkId });
    }
    [chat] = await a.readModel.listChats(inst, chatQ);
    expect((chat!.view.lastMessage as { body: string }).body).toBe("mesmo ms 2");
  });

  it("a name the network shows later reaches the record, also after the fast path ran", async () => {
    const inst = instance();
    const m1 = received(1_767_225_600, "oi");
    await record(a.readModel, inst, m1);
    await record(a.readModel, inst, received(1_767_225_601, "tudo bem?"));
    const renamed = received(1_767_225_602, "sou eu");
    renamed.payload.chatName = "Ana Maria";
    await record(a.readModel, inst, renamed);
    const [chat] = await a.readModel.listChats(inst, { ...chatQ, sortBy: "name", sortOrder: "asc" });
    expect(chat!.view).toMatchObject({ name: "Ana Maria", unreadCount: 3 });
  });

  it("forgetting an instance (taken over by another pod) makes its next message take the full path again", async () => {
    const inst = instance();
    await record(a.readModel, inst, received(1_767_225_600, "um"));
    await record(a.readModel, inst, received(1_767_225_601, "dois"));
    // The instance moves to process b, where the contact's name changes; then it comes back.
    const renamed = received(1_767_225_602, "três");
    renamed.payload.chatName = "Bia";
    await record(b.readModel, inst, renamed);
    a.readModel.forget(inst.id); // what the session manager does when it acquires an instance
    await record(a.readModel, inst, received(1_767_225_603, "quatro")); // the network says "Ana" again
    const [chat] = await a.readModel.listChats(inst, chatQ);
    expect(chat!.view).toMatchObject({ id: CHAT, name: "Ana", unreadCount: 4, timestamp: 1_767_225_603 });
  });
});

describe("the kept message of an API send is its read-model document", () => {
  it("forwards, quotes and retries find it by id, for 7 days, also after a revocation", async () => {
    const inst = instance();
    const m = sent(Math.floor(Date.now() / 1000), "guardada");
    expect(a.readModel.keeps(inst, m.payload, m.content)).toBe(true);
    await a.readModel.record(inst, "message.any", m.payload, {
      networkId: m.networkId,
      content: m.content,
      keep: true,
    });
    expect(await a.redis.exists(a.keys.message(inst.id, m.networkId))).toBe(0);
    const kept = await b.messages.get(inst.id, m.networkId);
    expect(kept).toEqual({
      id: m.networkId,
      chatId: CHAT,
      fromMe: true,
      timestamp: m.payload.timestamp,
      content: m.content,
      mediaKept: true,
    });
    await a.readModel.record(inst, "message.revoked", { ...m.payload, messageId: m.payload.id });
    const [v] = await a.readModel.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({ revoked: true, body: "", _data: null });
    expect((await b.messages.get(inst.id, m.networkId))?.content).toEqual(m.content);
  });

  it("is not kept there when messages are not stored, nor for media, nor for an old message", async () => {
    const off = instance({}, { messages: false });
    const m = sent(1_767_225_600, "x");
    expect(a.readModel.keeps(off, m.payload, m.content)).toBe(false);
    const image: OutboundContent = {
      type: "image",
      media: { data: "aGVsbG8=", mimetype: "image/png" },
    } as OutboundContent;
    const withMedia = sent(1_767_225_600, "img", image);
    withMedia.payload.raw = { ...image, media: { mimetype: "image/png" } }; // bytes left out of raw
    expect(a.readModel.keeps(instance(), withMedia.payload, image)).toBe(false);
    // Kept, but older than 7 days: gone, as a record of its own would be.
    const inst = instance();
    const old = sent(Math.floor(Date.now() / 1000) - 8 * 86_400, "velha");
    await a.readModel.record(inst, "message.any", old.payload, {
      networkId: old.networkId,
      content: old.content,
      keep: true,
    });
    expect(await a.messages.get(inst.id, old.networkId)).toBe(null);
  });
});

describe("set lifetimes", () => {
  it("every set a message enters lives past the retention; a process refreshes a set's TTL at most hourly", async () => {
    const inst = instance();
    await record(a.readModel, inst, sent(1_767_225_600, "um"));
    const sets = [a.keys.readChatIndex(inst.id, CHAT), `${a.keys.readAckPrefix(inst.id)}${CHAT}:1`];
    for (const key of sets) expect(await a.redis.pttl(key), key).toBeGreaterThan(30 * 86_400_000);
    // Within the hour the same process does not set them again; another process does at once.
    for (const key of sets) await a.redis.persist(key);
    await record(a.readModel, inst, sent(1_767_225_601, "dois"));
    for (const key of sets) expect(await a.redis.pttl(key), key).toBe(-1);
    await record(b.readModel, inst, sent(1_767_225_602, "três"));
    for (const key of sets) expect(await a.redis.pttl(key), key).toBeGreaterThan(30 * 86_400_000);
  });
});
