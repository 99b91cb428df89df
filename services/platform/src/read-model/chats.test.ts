// The read model's chats on a real Redis Stack: last message, unread counts, sort and pages,
// read and unread marks, and the storage switches.
import { describe, expect, it } from "vitest";
import { CHAT, inbound, instance, q, useReadModel } from "../testing/read-model.ts";

const world = useReadModel();

describe("chats", () => {
  const chatQ = { limit: 10, offset: 0, sortBy: "lastMessageAt" as const, sortOrder: "desc" as const, merge: true };

  it("last message, unread counts, sort and pages; read and unread marks", async () => {
    const inst = instance();
    const other = "5511955556666@c.us";
    const a1 = inbound({ text: "a1", timestamp: 1_767_225_600 });
    const b1 = inbound({ chatId: other, chatLid: null, text: "b1", timestamp: 1_767_225_650 });
    const a2 = inbound({ text: "a2", timestamp: 1_767_225_700 });
    for (const m of [a1, b1, a2]) await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    await world.platform.redis.call("JSON.SET", world.rm.chatKey(inst.id, other), "$.name", '"Zeca"');
    await world.platform.redis.call("JSON.SET", world.rm.chatKey(inst.id, other), "$.sortName", '"zeca"');

    let chats = await world.rm.listChats(inst, chatQ);
    expect(chats.map((c) => [c.view.id, c.view.unreadCount])).toEqual([
      [CHAT, 2],
      [other, 1],
    ]);
    expect(chats[0]!.view).toMatchObject({ name: "Ana", timestamp: 1_767_225_700, isGroup: false });
    // A signed avatar link, which answers 404 while no picture is visible (spec 1 rule 7).
    expect(chats[0]!.view.picture).toMatch(/\/v1\/avatars\/.+\.jpg\?exp=\d+&sig=/);
    expect((chats[0]!.view.lastMessage as { body: string; id: string }).body).toBe("a2");
    expect(
      (await world.rm.listChats(inst, { ...chatQ, sortBy: "name", sortOrder: "asc" })).map((c) => c.view.name),
    ).toEqual(["Ana", "Zeca"]);
    expect(
      (await world.rm.listChats(inst, { ...chatQ, sortBy: "id", sortOrder: "desc" })).map((c) => c.view.id),
    ).toEqual([other, CHAT]);
    expect((await world.rm.listChats(inst, { ...chatQ, limit: 1, offset: 1 })).map((c) => c.view.id)).toEqual([other]);
    expect((await world.rm.listChats(inst, { ...chatQ, ids: [other] })).map((c) => c.view.id)).toEqual([other]);

    const unread = await world.rm.unreadMessages(inst, CHAT, { limit: 10 });
    expect(unread.map((u) => u.id)).toEqual([a2.payload.id, a1.payload.id]);
    expect((await world.rm.unreadMessages(inst, CHAT, { limit: 1 })).map((u) => u.id)).toEqual([a2.payload.id]);
    await world.rm.markRead(
      inst,
      unread.map((u) => u.networkId),
      CHAT,
    );
    expect(await world.rm.unreadMessages(inst, CHAT, { limit: 10 })).toEqual([]);
    expect((await world.rm.listMessages(inst, CHAT, q())).map((m) => m.ackName)).toEqual(["READ", "READ"]);
    chats = await world.rm.listChats(inst, chatQ);
    expect(chats[0]!.view.unreadCount).toBe(0);

    await world.rm.markUnread(inst, CHAT);
    expect(await world.rm.getChat(inst, CHAT)).toMatchObject({ unreadCount: 1, markedUnread: true });
    // Our reply reads the chat.
    const reply = inbound({ text: "ok", timestamp: 1_767_225_800, fromMe: true });
    await world.rm.record(inst, "message.any", reply.payload, { networkId: reply.networkId });
    expect(await world.rm.getChat(inst, CHAT)).toMatchObject({ unreadCount: 0, markedUnread: false });
  });

  it("the chat's last message is replaced whole by a newer one, never by an older one", async () => {
    // The state hash holds the summary as one JSON value: a newer message replaces it whole.
    const inst = instance();
    const media = inbound({
      type: "image",
      text: "legenda",
      timestamp: 1_767_225_600,
      media: { url: null, mimetype: "image/jpeg", filename: "a.jpg" },
    });
    const text = inbound({ text: "só texto", timestamp: 1_767_225_700 });
    const older = inbound({ text: "atrasada", timestamp: 1_767_225_650 });
    for (const m of [media, text, older]) await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const chat = (await world.rm.listChats(inst, chatQ))[0]!.view;
    expect(chat).toMatchObject({ unreadCount: 3, timestamp: 1_767_225_700, name: "Ana" });
    const stored = JSON.parse(
      String(await world.platform.redis.hget(world.rm.chatStateKey(inst.id, CHAT), "lastMessage")),
    );
    expect(stored).toEqual({
      id: text.payload.id,
      body: "só texto",
      type: "text",
      fromMe: false,
      hasMedia: false,
      timestamp: 1_767_225_700,
    });
  });

  it("pages by last message over the order sets: older messages keep the order, expired records leave it", async () => {
    const inst = instance();
    const chats = Array.from({ length: 7 }, (_, i) => `55119700000${String(i).padStart(2, "0")}@c.us`);
    // Chat i's last message at second 10 + i; chat 3 then gets an older one (no move), chat 1 a newer one.
    for (const [i, chatId] of chats.entries()) {
      const m = inbound({ chatId, chatLid: null, text: `m${i}`, timestamp: 1_767_225_610 + i });
      await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    }
    const older = inbound({ chatId: chats[3]!, chatLid: null, text: "velha", timestamp: 1_767_225_600 });
    await world.rm.record(inst, "message", older.payload, { networkId: older.networkId });
    const newer = inbound({ chatId: chats[1]!, chatLid: null, text: "nova", timestamp: 1_767_225_700 });
    await world.rm.record(inst, "message", newer.payload, { networkId: newer.networkId });
    const expected = [1, 6, 5, 4, 3, 2, 0].map((i) => chats[i]!);
    // Records, states and order sets carry the retention (refreshed at most once an hour per chat).
    for (const key of [
      world.rm.chatKey(inst.id, chats[3]!),
      world.rm.chatStateKey(inst.id, chats[3]!),
      world.platform.keys.readChatOrderVisible(inst.id),
    ]) {
      expect(await world.platform.redis.pttl(key), key).toBeGreaterThan(29 * 86_400_000);
    }
    const page = async (offset: number, limit: number, sortOrder: "asc" | "desc" = "desc") =>
      (await world.rm.listChats(inst, { ...chatQ, offset, limit, sortOrder })).map((c) => c.view.id);
    expect(await page(0, 10)).toEqual(expected);
    expect(await page(2, 3)).toEqual(expected.slice(2, 5));
    expect(await page(5, 10)).toEqual(expected.slice(5));
    expect(await page(0, 3, "asc")).toEqual([...expected].reverse().slice(0, 3));
    const third = (await world.rm.listChats(inst, { ...chatQ, ids: [chats[3]!] }))[0]!.view;
    expect(third).toMatchObject({ unreadCount: 2, timestamp: 1_767_225_613 });
    expect((third.lastMessage as { body: string }).body).toBe("m3");
    // Given ids: sorted here, paged.
    expect(
      (await world.rm.listChats(inst, { ...chatQ, ids: [chats[0]!, chats[1]!, chats[2]!], limit: 2 })).map(
        (c) => c.view.id,
      ),
    ).toEqual([chats[1], chats[2]]);
    // A record gone (retention): out of the page, the page filled from further on, out of the sets.
    await world.platform.redis.del(world.rm.chatKey(inst.id, chats[5]!));
    expect(await page(0, 3)).toEqual([chats[1], chats[6], chats[4]]);
    expect(await world.platform.redis.zscore(world.platform.keys.readChatOrderVisible(inst.id), chats[5]!)).toBe(null);
    // A name the network shows later is written to the record: sorting by name follows it.
    const named = inbound({ chatId: chats[0]!, chatLid: null, text: "oi", timestamp: 1_767_225_800 });
    await world.rm.record(inst, "message", { ...named.payload, chatName: "Aaron" }, { networkId: named.networkId });
    const byName = await world.rm.listChats(inst, { ...chatQ, sortBy: "name", sortOrder: "asc", limit: 1 });
    expect(byName[0]!.view).toMatchObject({ id: chats[0], name: "Aaron" });
  });

  it("storage switched off: nothing stored, reads answer empty", async () => {
    const off = instance({ messages: false, chats: false });
    const m = inbound({ text: "não guarde", timestamp: 1_767_225_600 });
    await world.rm.record(off, "message", m.payload, { networkId: m.networkId });
    await world.rm.ack(off, m.networkId, "read");
    expect(
      await world.platform.redis.exists(world.rm.messageKey(off.id, m.networkId), world.rm.chatKey(off.id, CHAT)),
    ).toBe(0);
    expect(await world.rm.listMessages(off, CHAT, q())).toEqual([]);
    expect(await world.rm.listChats(off, chatQ)).toEqual([]);

    // Turned off after storing: reads answer empty too.
    const on = instance();
    await world.rm.record(on, "message", m.payload, { networkId: m.networkId });
    expect(await world.rm.listMessages(on, CHAT, q())).toHaveLength(1);
    const later = { ...on, settings: { ...on.settings, storage: { ...on.settings.storage, messages: false } } };
    expect(await world.rm.listMessages(later, CHAT, q())).toEqual([]);
    expect(await world.rm.getMessage(later, CHAT, m.payload.id, { merge: true, downloadMedia: false })).toBe(null);
    // Chats alone still listed, with the last message as summarized.
    const [chat] = await world.rm.listChats(later, chatQ);
    expect(chat!.view.lastMessage).toMatchObject({ id: m.payload.id, body: "não guarde", fromMe: false });
  });
});
