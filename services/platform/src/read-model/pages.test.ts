// The read model's message pages on a real Redis Stack: the message sets answer like a reference
// computed over the stored documents (order, ties, offsets, filters, merges, retention).
import { describe, expect, it } from "vitest";
import { CHAT, CONTACT, inbound, instance, LID, q, useReadModel } from "../testing/read-model.ts";
import { ACK, type MessageDoc, type MessageQuery } from "./index.ts";

const world = useReadModel();

describe("message pages: the message sets answer like a reference over the stored documents", () => {
  it("same order, ties, offsets, bounds, filters and merges; acks move messages between filter sets; expired documents skipped", async () => {
    const inst = instance();
    const base = 1_767_225_600;
    // Lid era, then number era carrying the lid, then ours without it; many ties on one sortKey.
    await world.platform.identity.learn(inst.id, LID, CONTACT);
    const docs: MessageDoc[] = [];
    for (let i = 0; i < 24; i++) {
      const chatId = i < 8 ? LID : CHAT;
      const m = inbound({
        chatId,
        chatLid: i < 8 ? null : i % 3 === 0 ? null : LID,
        text: `t${i}`,
        timestamp: base + Math.floor(i / 4),
        fromMe: i % 5 === 0,
        id: `3EB0TIE${String((i * 7) % 24).padStart(2, "0")}${i}`,
      });
      // Four messages share each second and, through a fixed clock, each sortKey.
      docs.push(world.rm.docOf(m.payload, { networkId: m.networkId }, (base + Math.floor(i / 4)) * 1000 + 500)!);
    }
    await world.rm.saveMany(inst.id, docs);
    // Through the session manager's path too (its own arrival milliseconds).
    const recorded: string[] = [];
    for (let i = 0; i < 4; i++) {
      const m = inbound({ text: `r${i}`, timestamp: base + 2, fromMe: i === 1 });
      recorded.push(m.networkId);
      await world.rm.record(inst, i === 1 ? "message.any" : "message", m.payload, { networkId: m.networkId });
    }
    // Acks move: ours delivered and read, some received read; an ack never goes back.
    const ours = docs.filter((d) => d.fromMe).map((d) => d.networkId);
    await world.rm.ack(inst, ours[0]!, "delivered");
    await world.rm.ack(inst, ours[1]!, "read");
    await world.rm.ack(inst, ours[1]!, "delivered");
    await world.rm.ack(inst, recorded[1]!, "read");
    await world.rm.markRead(inst, [docs[2]!.networkId, docs[9]!.networkId, recorded[0]!], CHAT);

    /** Every stored document of the instance, as Redis has it now. */
    const stored = async () => {
      const got = await world.rm.storedDocs(inst.id, [...docs.map((d) => d.networkId), ...recorded]);
      return got.filter((d): d is MessageDoc => d !== null);
    };
    const family = [CHAT, LID];
    const reference = (all: MessageDoc[], chat: string, over: Partial<MessageQuery>) => {
      const o = q(over);
      const dir = o.sortOrder === "asc" ? 1 : -1;
      return all
        .filter((d) =>
          o.merge
            ? family.includes(d.chatId) || (d.chatLid !== undefined && family.includes(d.chatLid))
            : d.chatId === chat,
        )
        .filter((d) => o.fromMe === undefined || d.fromMe === o.fromMe)
        .filter((d) => o.ack === undefined || d.ack === o.ack)
        .filter((d) => o.timestampGte === undefined || d.timestamp >= o.timestampGte)
        .filter((d) => o.timestampLte === undefined || d.timestamp <= o.timestampLte)
        .sort((a, b) => dir * (a.sortKey - b.sortKey || (a.networkId < b.networkId ? -1 : 1)))
        .slice(o.offset, o.offset + o.limit)
        .map((d) => d.body);
    };
    const queries: Partial<MessageQuery>[] = [];
    for (const sortOrder of ["desc", "asc"] as const)
      for (const merge of [true, false])
        for (const [offset, limit] of [
          [0, 100],
          [0, 5],
          [3, 4],
          [7, 9],
          [26, 10],
          [40, 5],
        ] as const)
          queries.push({ sortOrder, merge, offset, limit });
    queries.push({ timestampGte: base + 1, timestampLte: base + 3 }, { timestampGte: base + 4, sortOrder: "asc" });
    queries.push({ timestampLte: base + 1, offset: 2, limit: 3 }, { timestampGte: base + 2, timestampLte: base + 2 });
    for (const merge of [true, false])
      for (const filter of [
        { fromMe: true },
        { fromMe: false },
        { ack: ACK.READ },
        { ack: ACK.SERVER },
        { fromMe: false, ack: ACK.DEVICE },
        { fromMe: true, ack: ACK.DEVICE, sortOrder: "asc" as const },
        { fromMe: false, offset: 2, limit: 3 },
        { ack: ACK.DEVICE, timestampGte: base + 2, timestampLte: base + 4 },
      ])
        queries.push({ merge, ...filter });
    const compare = async () => {
      const all = await stored();
      for (const chat of [CHAT, LID])
        for (const over of queries) {
          const page = (await world.rm.listMessages(inst, chat, q(over))).map((m) => m.body);
          expect(page, `${chat} ${JSON.stringify(over)}`).toEqual(reference(all, chat, over));
        }
    };
    await compare();
    const all = await world.rm.listMessages(inst, CHAT, q());
    expect(all).toHaveLength(28);
    expect(all.find((m) => m.id.endsWith(ours[1]!))).toMatchObject({ ack: ACK.READ });
    // Ties: by network id, reversed for newest first.
    const same = all.filter((m) => m.timestamp === base + 5).map((m) => m.id.split("_")[2]!);
    expect(same).toEqual([...same].sort().reverse());
    // The unread list: received, not read yet, newest first, from any id of the person.
    const unread = await world.rm.unreadMessages(inst, LID, { limit: 100 });
    expect(unread.map((u) => u.networkId)).toEqual(
      (await stored())
        .filter((d) => !d.fromMe && d.ack <= ACK.DEVICE)
        .sort((a, b) => b.sortKey - a.sortKey || (a.networkId < b.networkId ? 1 : -1))
        .map((d) => d.networkId),
    );
    // The sets live as long as their newest message.
    const redis = world.platform.redis;
    expect(await redis.pttl(world.platform.keys.readChatIndex(inst.id, CHAT))).toBeGreaterThan(0);
    expect(await redis.pttl(world.platform.keys.readLidIndex(inst.id, LID))).toBeGreaterThan(0);
    expect(await redis.pttl(`${world.platform.keys.readAckPrefix(inst.id)}${CHAT}:1`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${world.platform.keys.readLidAckPrefix(inst.id)}${LID}:0`)).toBeGreaterThan(0);
    // Documents gone (retention): skipped, the page filled from further on, and out of the sets.
    const gone = [all[1]!, all[5]!, all[20]!].map((m) => m.id.split("_")[2]!);
    await redis.del(...gone.map((id) => world.rm.messageKey(inst.id, id)));
    await compare();
    expect((await world.rm.listMessages(inst, CHAT, q({ limit: 5 }))).map((m) => m.id)).toEqual(
      all
        .filter((m) => !gone.includes(m.id.split("_")[2]!))
        .slice(0, 5)
        .map((m) => m.id),
    );
    expect(await redis.zscore(world.platform.keys.readChatIndex(inst.id, CHAT), gone[0]!)).toBe(null);
    // Storage switched off: empty.
    const off = { ...inst, settings: { ...inst.settings, storage: { ...inst.settings.storage, messages: false } } };
    expect(await world.rm.listMessages(off, CHAT, q())).toEqual([]);
  });
});
