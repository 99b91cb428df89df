// The read model on a real Redis Stack: what the session manager records comes back through
// the reads, with acks, edits, revocations, lid merging, filters and the storage switches.
import type { Instance } from "@gw/contracts";
import { testEnv } from "@gw/test/gateway";
import { workingInstance } from "@gw/test/instance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createPlatform, type Platform } from "./platform.ts";
import { ACK, type MessageDoc, type MessageQuery, parseAck, type ReadModel, sortKeyOf } from "./read-model.ts";

let platform: Platform;
let rm: ReadModel;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv({ MESSAGE_RETENTION_DAYS: "30" })));
  rm = platform.readModel;
});
afterAll(() => platform?.close());

const instance = (storage: Partial<Instance["settings"]["storage"]> = {}): Instance =>
  workingInstance("irm", {}, storage);

const CONTACT = "5511911112222";
const CHAT = `${CONTACT}@c.us`;
const LID = "98765432101234@lid";
let nid = 0;
const netId = () => `3EB0${(++nid).toString(16).padStart(8, "0").toUpperCase()}`;

/** A spec 2.11 message payload as the session manager publishes it. */
function inbound(opts: {
  chatId?: string;
  chatLid?: string | null;
  text?: string;
  timestamp: number;
  fromMe?: boolean;
  type?: string;
  media?: { url: string | null; mimetype: string; filename?: string | null };
  quotedId?: string | null;
  id?: string;
}) {
  const id = opts.id ?? netId();
  const chatId = opts.chatId ?? CHAT;
  const fromMe = opts.fromMe ?? false;
  return {
    networkId: id,
    payload: {
      id: `${fromMe}_${chatId}_${id}`,
      chatId,
      chatLid: opts.chatLid === undefined ? LID : opts.chatLid,
      isGroup: false,
      chatName: fromMe ? null : "Ana",
      fromMe,
      from: fromMe
        ? { id: "5511900000000@c.us", phone: "5511900000000", lid: null, pushName: "Me" }
        : { id: chatId, phone: chatId.endsWith("@c.us") ? CONTACT : "", lid: LID, pushName: "Ana" },
      timestamp: opts.timestamp,
      ...(fromMe ? { source: "api", status: "sent" } : {}),
      type: opts.type ?? "text",
      text: opts.text ?? null,
      ...(opts.media ? { media: opts.media } : {}),
      quotedId: opts.quotedId ?? null,
      raw: { hello: "world", message: { media: { data: "x".repeat(2000) } } },
    },
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

describe("messages", () => {
  it("a received message reads back in the spec 2.8 shape, with its id, chat lid and raw data", async () => {
    const inst = instance();
    const m = inbound({ text: "oi", timestamp: 1_767_225_600 });
    await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const [v] = await rm.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({
      id: m.payload.id,
      chatId: CHAT,
      from: CHAT,
      to: "5511900000000@c.us",
      author: null,
      participant: null,
      body: "oi",
      type: "text",
      fromMe: false,
      hasMedia: false,
      ack: ACK.DEVICE,
      ackName: "DEVICE",
      timestamp: 1_767_225_600,
      source: null,
      lid: LID,
      vCards: [],
      media: null,
      location: null,
      replyTo: null,
      edited: false,
      revoked: false,
    });
    // Media bytes inside the raw event are not kept.
    expect(v!._data).toEqual({ hello: "world", message: { media: {} } });
    expect(await rm.getMessage(inst, CHAT, m.payload.id, { merge: true, downloadMedia: false })).toEqual(v);
    expect(await rm.getMessage(inst, "5511000000000@c.us", m.payload.id, { merge: true, downloadMedia: false })).toBe(
      null,
    );
    const ttl = await platform.redis.pttl(rm.messageKey(inst.id, m.networkId));
    expect(ttl).toBeGreaterThan(29 * 86_400_000);
    expect(ttl).toBeLessThanOrEqual(30 * 86_400_000);
  });

  it("sorts by timestamp (newest first by default), pages, and filters inclusively", async () => {
    const inst = instance();
    const base = 1_767_225_600;
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) {
      const m = inbound({ text: `m${i}`, timestamp: base + i * 10, fromMe: i % 2 === 1 });
      sent.push(m.payload.id);
      await rm.record(inst, i % 2 ? "message.any" : "message", m.payload, { networkId: m.networkId });
    }
    const all = await rm.listMessages(inst, CHAT, q());
    expect(all.map((m) => m.body)).toEqual(["m5", "m4", "m3", "m2", "m1", "m0"]);
    expect(
      (await rm.listMessages(inst, CHAT, q({ sortOrder: "asc", limit: 2, offset: 1 }))).map((m) => m.body),
    ).toEqual(["m1", "m2"]);
    const window = await rm.listMessages(inst, CHAT, q({ timestampGte: base + 10, timestampLte: base + 30 }));
    expect(window.map((m) => m.body)).toEqual(["m3", "m2", "m1"]);
    expect((await rm.listMessages(inst, CHAT, q({ fromMe: true }))).map((m) => m.body)).toEqual(["m5", "m3", "m1"]);
    expect((await rm.listMessages(inst, CHAT, q({ fromMe: false, ack: ACK.DEVICE }))).length).toBe(3);
    expect((await rm.listMessages(inst, CHAT, q({ ack: ACK.READ }))).length).toBe(0);
    const mine = all.find((m) => m.body === "m5")!;
    expect(mine).toMatchObject({ fromMe: true, from: "5511900000000@c.us", to: CHAT, source: "api", ack: 1 });
    expect(mine.id).toBe(sent[5]);
  });

  it("acks move forward only, also when they come before the message is stored", async () => {
    const inst = instance();
    const early = inbound({ text: "rápida", timestamp: 1_767_225_600, fromMe: true, chatLid: null });
    await rm.ack(inst, early.networkId, "delivered"); // the network was faster than our store
    await rm.record(inst, "message.any", early.payload, { networkId: early.networkId });
    let [v] = await rm.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({ ack: ACK.DEVICE, ackName: "DEVICE" });
    await rm.ack(inst, early.networkId, "read");
    await rm.ack(inst, early.networkId, "delivered"); // late and out of order
    await rm.ack(inst, early.networkId, "failed"); // too late to fail
    [v] = await rm.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({ ack: ACK.READ, ackName: "READ" });
    expect((await rm.listMessages(inst, CHAT, q({ ack: ACK.READ }))).map((m) => m.id)).toEqual([v!.id]);

    const failing = inbound({ text: "falha", timestamp: 1_767_225_700, fromMe: true, chatLid: null });
    await rm.record(inst, "message.any", failing.payload, { networkId: failing.networkId });
    await rm.ack(inst, failing.networkId, "failed");
    const [f] = await rm.listMessages(inst, CHAT, q({ ack: ACK.ERROR }));
    expect(f).toMatchObject({ body: "falha", ack: -1, ackName: "ERROR" });
    expect(parseAck("read")).toBe(3);
    expect(parseAck("PLAYED")).toBe(4);
    expect(parseAck("-1")).toBe(-1);
    expect(parseAck("nope")).toBe(null);
  });

  it("edits change the body; revocations keep the message without its content", async () => {
    const inst = instance();
    const a = inbound({
      text: "original",
      timestamp: 1_767_225_600,
      media: { url: "https://x/y", mimetype: "image/jpeg" },
      type: "image",
    });
    const b = inbound({ text: "segunda", timestamp: 1_767_225_610 });
    for (const m of [a, b]) await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    await rm.record(inst, "message.edited", { ...b.payload, messageId: b.payload.id, text: "editada" });
    await rm.record(inst, "message.revoked", { ...a.payload, messageId: a.payload.id }, { targetId: a.networkId });
    const [vb, va] = await rm.listMessages(inst, CHAT, q());
    expect(vb).toMatchObject({ body: "editada", edited: true, revoked: false });
    expect(va).toMatchObject({ body: "", type: "revoked", revoked: true, hasMedia: false, media: null, _data: null });
    // The same message recorded again (a repeated event) neither resurrects it nor loses its state.
    await rm.record(inst, "message", a.payload, { networkId: a.networkId });
    await rm.record(inst, "message", b.payload, { networkId: b.networkId });
    const [vb2, va2] = await rm.listMessages(inst, CHAT, q());
    expect(va2).toMatchObject({ revoked: true, body: "" });
    expect(vb2).toMatchObject({ body: "editada", edited: true });
    // A revocation of something never stored changes nothing (and stores nothing).
    await rm.record(inst, "message.revoked", { ...a.payload, messageId: "false_x@c.us_NOPE1234" });
    expect(await platform.redis.exists(rm.messageKey(inst.id, "NOPE1234"))).toBe(0);
  });

  it("media: signed links with downloadMedia; an error when the bytes were not kept", async () => {
    const inst = instance();
    const kept = inbound({
      timestamp: Math.floor(Date.now() / 1000),
      type: "document",
      media: { url: "https://signed", mimetype: "application/pdf", filename: "a.pdf" },
    });
    const lost = inbound({
      timestamp: Math.floor(Date.now() / 1000) - 1,
      type: "image",
      media: { url: null, mimetype: "image/png" },
    });
    for (const m of [kept, lost]) await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const [k, l] = await rm.listMessages(inst, CHAT, q({ downloadMedia: true }));
    expect(k!.mediaUrl).toMatch(
      new RegExp(`/v1/files/${inst.id}/${k!.id.replace(/[.]/g, "\\.")}\\.pdf\\?exp=\\d+&sig=`),
    );
    expect(k!.media).toMatchObject({ mimetype: "application/pdf", filename: "a.pdf", error: null });
    expect(k!.media!.url).toBe(k!.mediaUrl);
    expect(l).toMatchObject({ mediaUrl: null, media: { url: null, mimetype: "image/png" } });
    expect(l!.media!.error).toMatch(/indisponível/);
    const [plain] = await rm.listMessages(inst, CHAT, q());
    expect(plain).not.toHaveProperty("mediaUrl");
    expect(plain!.media).toMatchObject({ url: null, mimetype: "application/pdf" });
  });

  it("quotes carry replyTo with the quoted message; contacts and locations keep their content", async () => {
    const inst = instance();
    const first = inbound({ text: "pergunta", timestamp: 1_767_225_600 });
    await rm.record(inst, "message", first.payload, { networkId: first.networkId });
    const reply = inbound({ text: "resposta", timestamp: 1_767_225_601, fromMe: true, quotedId: first.payload.id });
    await rm.record(inst, "message.any", reply.payload, { networkId: reply.networkId });
    const card = inbound({ timestamp: 1_767_225_602, type: "contact", fromMe: true });
    await rm.record(inst, "message.any", card.payload, {
      networkId: card.networkId,
      content: { type: "contacts", contacts: [{ fullName: "Bia", phoneNumber: "5511933334444" }] },
    });
    const place = inbound({ timestamp: 1_767_225_603, type: "location", fromMe: true, text: "Casa" });
    await rm.record(inst, "message.any", place.payload, {
      networkId: place.networkId,
      content: { type: "location", latitude: -23.5, longitude: -46.6, name: "Casa", address: "Rua A" },
    });
    const [p, c, r] = await rm.listMessages(inst, CHAT, q());
    expect(r!.replyTo).toMatchObject({ id: first.payload.id, body: "pergunta", hasMedia: false });
    expect(r!.quotedId).toBe(first.payload.id);
    expect(c!.vCards).toEqual([expect.stringContaining("FN:Bia")]);
    expect(c!.vCards[0]).toContain("waid=5511933334444:+5511933334444");
    expect(p!.location).toMatchObject({ latitude: "-23.5", longitude: "-46.6", name: "Casa", address: "Rua A" });
  });
});

describe("one identity per person", () => {
  it("history read by number includes what arrived by lid; ids rewritten, lid kept", async () => {
    const inst = instance();
    const lidEra = inbound({ chatId: LID, chatLid: null, text: "por lid", timestamp: 1_767_225_600 });
    await rm.record(inst, "message", lidEra.payload, { networkId: lidEra.networkId });
    expect(
      (await rm.listChats(inst, { limit: 10, offset: 0, sortBy: "lastMessageAt", sortOrder: "desc", merge: true })).map(
        (c) => c.view.id,
      ),
    ).toEqual([LID]);
    // The contact reveals its number: the next message comes by number, carrying the lid.
    await platform.identity.learn(inst.id, LID, CONTACT);
    const numberEra = inbound({ text: "por número", timestamp: 1_767_225_700 });
    await rm.record(inst, "message", numberEra.payload, { networkId: numberEra.networkId });
    const mine = inbound({ text: "resposta", timestamp: 1_767_225_800, fromMe: true, chatLid: null });
    await rm.record(inst, "message.any", mine.payload, { networkId: mine.networkId });

    const merged = await rm.listMessages(inst, CHAT, q());
    expect(merged.map((m) => m.body)).toEqual(["resposta", "por número", "por lid"]);
    expect(merged[2]).toMatchObject({ id: `false_${CHAT}_${lidEra.networkId}`, chatId: CHAT, from: CHAT, lid: LID });
    // By the lid, merged: the same history.
    expect((await rm.listMessages(inst, LID, q())).map((m) => m.body)).toEqual(["resposta", "por número", "por lid"]);
    // Not merged: only what was stored under that id.
    expect((await rm.listMessages(inst, CHAT, q({ merge: false }))).map((m) => m.body)).toEqual([
      "resposta",
      "por número",
    ]);
    expect((await rm.listMessages(inst, LID, q({ merge: false }))).map((m) => m.body)).toEqual(["por lid"]);
    // The lid-era message by its old id, or its rewritten one.
    expect((await rm.getMessage(inst, CHAT, lidEra.payload.id, { merge: true, downloadMedia: false }))?.body).toBe(
      "por lid",
    );
    expect(await rm.getMessage(inst, CHAT, lidEra.payload.id, { merge: false, downloadMedia: false })).toBe(null);

    // Chats: merged, one chat for the person (the lid chat folded in); not merged, both records.
    const chatQ = { limit: 10, offset: 0, sortBy: "lastMessageAt" as const, sortOrder: "desc" as const, merge: true };
    const chats = await rm.listChats(inst, chatQ);
    expect(chats.map((c) => c.view)).toEqual([
      expect.objectContaining({ id: CHAT, lid: LID, name: "Ana", unreadCount: 0 }),
    ]);
    expect((chats[0]!.view.lastMessage as { body: string }).body).toBe("resposta");
    const raw = await rm.listChats(inst, { ...chatQ, merge: false });
    expect(raw.map((c) => c.view.id).sort()).toEqual([CHAT, LID].sort());
  });
});

describe("message pages: the message sets answer like a reference over the stored documents", () => {
  it("same order, ties, offsets, bounds, filters and merges; acks move messages between filter sets; expired documents skipped", async () => {
    const inst = instance();
    const base = 1_767_225_600;
    // Lid era, then number era carrying the lid, then ours without it; many ties on one sortKey.
    await platform.identity.learn(inst.id, LID, CONTACT);
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
      docs.push(rm.docOf(m.payload, { networkId: m.networkId }, (base + Math.floor(i / 4)) * 1000 + 500)!);
    }
    await rm.saveMany(inst.id, docs);
    // Through the session manager's path too (its own arrival milliseconds).
    const recorded: string[] = [];
    for (let i = 0; i < 4; i++) {
      const m = inbound({ text: `r${i}`, timestamp: base + 2, fromMe: i === 1 });
      recorded.push(m.networkId);
      await rm.record(inst, i === 1 ? "message.any" : "message", m.payload, { networkId: m.networkId });
    }
    // Acks move: ours delivered and read, some received read; an ack never goes back.
    const ours = docs.filter((d) => d.fromMe).map((d) => d.networkId);
    await rm.ack(inst, ours[0]!, "delivered");
    await rm.ack(inst, ours[1]!, "read");
    await rm.ack(inst, ours[1]!, "delivered");
    await rm.ack(inst, recorded[1]!, "read");
    await rm.markRead(inst, [docs[2]!.networkId, docs[9]!.networkId, recorded[0]!], CHAT);

    /** Every stored document of the instance, as Redis has it now. */
    const stored = async () => {
      const got = await rm.storedDocs(inst.id, [...docs.map((d) => d.networkId), ...recorded]);
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
          const page = (await rm.listMessages(inst, chat, q(over))).map((m) => m.body);
          expect(page, `${chat} ${JSON.stringify(over)}`).toEqual(reference(all, chat, over));
        }
    };
    await compare();
    const all = await rm.listMessages(inst, CHAT, q());
    expect(all).toHaveLength(28);
    expect(all.find((m) => m.id.endsWith(ours[1]!))).toMatchObject({ ack: ACK.READ });
    // Ties: by network id, reversed for newest first.
    const same = all.filter((m) => m.timestamp === base + 5).map((m) => m.id.split("_")[2]!);
    expect(same).toEqual([...same].sort().reverse());
    // The unread list: received, not read yet, newest first, from any id of the person.
    const unread = await rm.unreadMessages(inst, LID, { limit: 100 });
    expect(unread.map((u) => u.networkId)).toEqual(
      (await stored())
        .filter((d) => !d.fromMe && d.ack <= ACK.DEVICE)
        .sort((a, b) => b.sortKey - a.sortKey || (a.networkId < b.networkId ? 1 : -1))
        .map((d) => d.networkId),
    );
    // The sets live as long as their newest message.
    const redis = platform.redis;
    expect(await redis.pttl(platform.keys.readChatIndex(inst.id, CHAT))).toBeGreaterThan(0);
    expect(await redis.pttl(platform.keys.readLidIndex(inst.id, LID))).toBeGreaterThan(0);
    expect(await redis.pttl(`${platform.keys.readAckPrefix(inst.id)}${CHAT}:1`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${platform.keys.readLidAckPrefix(inst.id)}${LID}:0`)).toBeGreaterThan(0);
    // Documents gone (retention): skipped, the page filled from further on, and out of the sets.
    const gone = [all[1]!, all[5]!, all[20]!].map((m) => m.id.split("_")[2]!);
    await redis.del(...gone.map((id) => rm.messageKey(inst.id, id)));
    await compare();
    expect((await rm.listMessages(inst, CHAT, q({ limit: 5 }))).map((m) => m.id)).toEqual(
      all
        .filter((m) => !gone.includes(m.id.split("_")[2]!))
        .slice(0, 5)
        .map((m) => m.id),
    );
    expect(await redis.zscore(platform.keys.readChatIndex(inst.id, CHAT), gone[0]!)).toBe(null);
    // Storage switched off: empty.
    const off = { ...inst, settings: { ...inst.settings, storage: { ...inst.settings.storage, messages: false } } };
    expect(await rm.listMessages(off, CHAT, q())).toEqual([]);
  });
});

describe("chats", () => {
  const chatQ = { limit: 10, offset: 0, sortBy: "lastMessageAt" as const, sortOrder: "desc" as const, merge: true };

  it("last message, unread counts, sort and pages; read and unread marks", async () => {
    const inst = instance();
    const other = "5511955556666@c.us";
    const a1 = inbound({ text: "a1", timestamp: 1_767_225_600 });
    const b1 = inbound({ chatId: other, chatLid: null, text: "b1", timestamp: 1_767_225_650 });
    const a2 = inbound({ text: "a2", timestamp: 1_767_225_700 });
    for (const m of [a1, b1, a2]) await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    await platform.redis.call("JSON.SET", rm.chatKey(inst.id, other), "$.name", '"Zeca"');
    await platform.redis.call("JSON.SET", rm.chatKey(inst.id, other), "$.sortName", '"zeca"');

    let chats = await rm.listChats(inst, chatQ);
    expect(chats.map((c) => [c.view.id, c.view.unreadCount])).toEqual([
      [CHAT, 2],
      [other, 1],
    ]);
    expect(chats[0]!.view).toMatchObject({ name: "Ana", timestamp: 1_767_225_700, isGroup: false });
    // A signed avatar link, which answers 404 while no picture is visible (spec 1 rule 7).
    expect(chats[0]!.view.picture).toMatch(/\/v1\/avatars\/.+\.jpg\?exp=\d+&sig=/);
    expect((chats[0]!.view.lastMessage as { body: string; id: string }).body).toBe("a2");
    expect((await rm.listChats(inst, { ...chatQ, sortBy: "name", sortOrder: "asc" })).map((c) => c.view.name)).toEqual([
      "Ana",
      "Zeca",
    ]);
    expect((await rm.listChats(inst, { ...chatQ, sortBy: "id", sortOrder: "desc" })).map((c) => c.view.id)).toEqual([
      other,
      CHAT,
    ]);
    expect((await rm.listChats(inst, { ...chatQ, limit: 1, offset: 1 })).map((c) => c.view.id)).toEqual([other]);
    expect((await rm.listChats(inst, { ...chatQ, ids: [other] })).map((c) => c.view.id)).toEqual([other]);

    const unread = await rm.unreadMessages(inst, CHAT, { limit: 10 });
    expect(unread.map((u) => u.id)).toEqual([a2.payload.id, a1.payload.id]);
    expect((await rm.unreadMessages(inst, CHAT, { limit: 1 })).map((u) => u.id)).toEqual([a2.payload.id]);
    await rm.markRead(
      inst,
      unread.map((u) => u.networkId),
      CHAT,
    );
    expect(await rm.unreadMessages(inst, CHAT, { limit: 10 })).toEqual([]);
    expect((await rm.listMessages(inst, CHAT, q())).map((m) => m.ackName)).toEqual(["READ", "READ"]);
    chats = await rm.listChats(inst, chatQ);
    expect(chats[0]!.view.unreadCount).toBe(0);

    await rm.markUnread(inst, CHAT);
    expect(await rm.getChat(inst, CHAT)).toMatchObject({ unreadCount: 1, markedUnread: true });
    // Our reply reads the chat.
    const reply = inbound({ text: "ok", timestamp: 1_767_225_800, fromMe: true });
    await rm.record(inst, "message.any", reply.payload, { networkId: reply.networkId });
    expect(await rm.getChat(inst, CHAT)).toMatchObject({ unreadCount: 0, markedUnread: false });
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
    for (const m of [media, text, older]) await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const chat = (await rm.listChats(inst, chatQ))[0]!.view;
    expect(chat).toMatchObject({ unreadCount: 3, timestamp: 1_767_225_700, name: "Ana" });
    const stored = JSON.parse(String(await platform.redis.hget(rm.chatStateKey(inst.id, CHAT), "lastMessage")));
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
      await rm.record(inst, "message", m.payload, { networkId: m.networkId });
    }
    const older = inbound({ chatId: chats[3]!, chatLid: null, text: "velha", timestamp: 1_767_225_600 });
    await rm.record(inst, "message", older.payload, { networkId: older.networkId });
    const newer = inbound({ chatId: chats[1]!, chatLid: null, text: "nova", timestamp: 1_767_225_700 });
    await rm.record(inst, "message", newer.payload, { networkId: newer.networkId });
    const expected = [1, 6, 5, 4, 3, 2, 0].map((i) => chats[i]!);
    // Records, states and order sets carry the retention (refreshed at most once an hour per chat).
    for (const key of [
      rm.chatKey(inst.id, chats[3]!),
      rm.chatStateKey(inst.id, chats[3]!),
      platform.keys.readChatOrderVisible(inst.id),
    ]) {
      expect(await platform.redis.pttl(key), key).toBeGreaterThan(29 * 86_400_000);
    }
    const page = async (offset: number, limit: number, sortOrder: "asc" | "desc" = "desc") =>
      (await rm.listChats(inst, { ...chatQ, offset, limit, sortOrder })).map((c) => c.view.id);
    expect(await page(0, 10)).toEqual(expected);
    expect(await page(2, 3)).toEqual(expected.slice(2, 5));
    expect(await page(5, 10)).toEqual(expected.slice(5));
    expect(await page(0, 3, "asc")).toEqual([...expected].reverse().slice(0, 3));
    const third = (await rm.listChats(inst, { ...chatQ, ids: [chats[3]!] }))[0]!.view;
    expect(third).toMatchObject({ unreadCount: 2, timestamp: 1_767_225_613 });
    expect((third.lastMessage as { body: string }).body).toBe("m3");
    // Given ids: sorted here, paged.
    expect(
      (await rm.listChats(inst, { ...chatQ, ids: [chats[0]!, chats[1]!, chats[2]!], limit: 2 })).map((c) => c.view.id),
    ).toEqual([chats[1], chats[2]]);
    // A record gone (retention): out of the page, the page filled from further on, out of the sets.
    await platform.redis.del(rm.chatKey(inst.id, chats[5]!));
    expect(await page(0, 3)).toEqual([chats[1], chats[6], chats[4]]);
    expect(await platform.redis.zscore(platform.keys.readChatOrderVisible(inst.id), chats[5]!)).toBe(null);
    // A name the network shows later is written to the record: sorting by name follows it.
    const named = inbound({ chatId: chats[0]!, chatLid: null, text: "oi", timestamp: 1_767_225_800 });
    await rm.record(inst, "message", { ...named.payload, chatName: "Aaron" }, { networkId: named.networkId });
    const byName = await rm.listChats(inst, { ...chatQ, sortBy: "name", sortOrder: "asc", limit: 1 });
    expect(byName[0]!.view).toMatchObject({ id: chats[0], name: "Aaron" });
  });

  it("storage switched off: nothing stored, reads answer empty", async () => {
    const off = instance({ messages: false, chats: false });
    const m = inbound({ text: "não guarde", timestamp: 1_767_225_600 });
    await rm.record(off, "message", m.payload, { networkId: m.networkId });
    await rm.ack(off, m.networkId, "read");
    expect(await platform.redis.exists(rm.messageKey(off.id, m.networkId), rm.chatKey(off.id, CHAT))).toBe(0);
    expect(await rm.listMessages(off, CHAT, q())).toEqual([]);
    expect(await rm.listChats(off, chatQ)).toEqual([]);

    // Turned off after storing: reads answer empty too.
    const on = instance();
    await rm.record(on, "message", m.payload, { networkId: m.networkId });
    expect(await rm.listMessages(on, CHAT, q())).toHaveLength(1);
    const later = { ...on, settings: { ...on.settings, storage: { ...on.settings.storage, messages: false } } };
    expect(await rm.listMessages(later, CHAT, q())).toEqual([]);
    expect(await rm.getMessage(later, CHAT, m.payload.id, { merge: true, downloadMedia: false })).toBe(null);
    // Chats alone still listed, with the last message as summarized.
    const [chat] = await rm.listChats(later, chatQ);
    expect(chat!.view.lastMessage).toMatchObject({ id: m.payload.id, body: "não guarde", fromMe: false });
  });
});

it("messages of one second keep their arrival order, also when one arrives after its second ended", () => {
  const t = 1_700_000_000;
  // Stamped by the network in second t; recorded at t.400, t.998, then t+1.002 and t+1.500.
  const keys = [400, 998, 1_002, 1_500].map((ms) => sortKeyOf(t, t * 1000 + ms));
  expect(keys).toEqual([t * 1000 + 400, t * 1000 + 998, t * 1000 + 999, t * 1000 + 999]);
  for (let i = 1; i < keys.length; i++) expect(keys[i]).toBeGreaterThanOrEqual(keys[i - 1]!);
  // A clock behind the network's: the second's first millisecond, not the previous second.
  expect(sortKeyOf(t, t * 1000 - 30)).toBe(t * 1000);
  // Through docOf: the same key.
  const m = inbound({ timestamp: t });
  expect(rm.docOf(m.payload, { networkId: m.networkId }, (t + 1) * 1000 + 2)!.sortKey).toBe(t * 1000 + 999);
});
