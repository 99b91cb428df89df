// The read model on a real Redis Stack: one person known by number and by lid reads as one
// history and one chat (lid merging).
import { describe, expect, it } from "vitest";
import { CHAT, CONTACT, inbound, instance, LID, q, useReadModel } from "../testing/read-model.ts";

const world = useReadModel();

describe("one identity per person", () => {
  it("history read by number includes what arrived by lid; ids rewritten, lid kept", async () => {
    const inst = instance();
    const lidEra = inbound({ chatId: LID, chatLid: null, text: "por lid", timestamp: 1_767_225_600 });
    await world.rm.record(inst, "message", lidEra.payload, { networkId: lidEra.networkId });
    expect(
      (
        await world.rm.listChats(inst, {
          limit: 10,
          offset: 0,
          sortBy: "lastMessageAt",
          sortOrder: "desc",
          merge: true,
        })
      ).map((c) => c.view.id),
    ).toEqual([LID]);
    // The contact reveals its number: the next message comes by number, carrying the lid.
    await world.platform.identity.learn(inst.id, LID, CONTACT);
    const numberEra = inbound({ text: "por número", timestamp: 1_767_225_700 });
    await world.rm.record(inst, "message", numberEra.payload, { networkId: numberEra.networkId });
    const mine = inbound({ text: "resposta", timestamp: 1_767_225_800, fromMe: true, chatLid: null });
    await world.rm.record(inst, "message.any", mine.payload, { networkId: mine.networkId });

    const merged = await world.rm.listMessages(inst, CHAT, q());
    expect(merged.map((m) => m.body)).toEqual(["resposta", "por número", "por lid"]);
    expect(merged[2]).toMatchObject({ id: `false_${CHAT}_${lidEra.networkId}`, chatId: CHAT, from: CHAT, lid: LID });
    // By the lid, merged: the same history.
    expect((await world.rm.listMessages(inst, LID, q())).map((m) => m.body)).toEqual([
      "resposta",
      "por número",
      "por lid",
    ]);
    // Not merged: only what was stored under that id.
    expect((await world.rm.listMessages(inst, CHAT, q({ merge: false }))).map((m) => m.body)).toEqual([
      "resposta",
      "por número",
    ]);
    expect((await world.rm.listMessages(inst, LID, q({ merge: false }))).map((m) => m.body)).toEqual(["por lid"]);
    // The lid-era message by its old id, or its rewritten one.
    expect(
      (await world.rm.getMessage(inst, CHAT, lidEra.payload.id, { merge: true, downloadMedia: false }))?.body,
    ).toBe("por lid");
    expect(await world.rm.getMessage(inst, CHAT, lidEra.payload.id, { merge: false, downloadMedia: false })).toBe(null);

    // Chats: merged, one chat for the person (the lid chat folded in); not merged, both records.
    const chatQ = { limit: 10, offset: 0, sortBy: "lastMessageAt" as const, sortOrder: "desc" as const, merge: true };
    const chats = await world.rm.listChats(inst, chatQ);
    expect(chats.map((c) => c.view)).toEqual([
      expect.objectContaining({ id: CHAT, lid: LID, name: "Ana", unreadCount: 0 }),
    ]);
    expect((chats[0]!.view.lastMessage as { body: string }).body).toBe("resposta");
    const raw = await world.rm.listChats(inst, { ...chatQ, merge: false });
    expect(raw.map((c) => c.view.id).sort()).toEqual([CHAT, LID].sort());
  });
});
