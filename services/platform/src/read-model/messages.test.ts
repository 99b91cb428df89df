// The read model's messages on a real Redis Stack: what the session manager records comes back
// through the reads, with acks, edits, revocations, media, quotes and the order within a second.
import { describe, expect, it } from "vitest";
import { CHAT, inbound, instance, LID, q, useReadModel } from "../testing/read-model.ts";
import { ACK, parseAck, sortKeyOf } from "./index.ts";

const world = useReadModel();

describe("messages", () => {
  it("a received message reads back in the spec 2.8 shape, with its id, chat lid and raw data", async () => {
    const inst = instance();
    const m = inbound({ text: "oi", timestamp: 1_767_225_600 });
    await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const [v] = await world.rm.listMessages(inst, CHAT, q());
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
    expect(await world.rm.getMessage(inst, CHAT, m.payload.id, { merge: true, downloadMedia: false })).toEqual(v);
    expect(
      await world.rm.getMessage(inst, "5511000000000@c.us", m.payload.id, { merge: true, downloadMedia: false }),
    ).toBe(null);
    const ttl = await world.platform.redis.pttl(world.rm.messageKey(inst.id, m.networkId));
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
      await world.rm.record(inst, i % 2 ? "message.any" : "message", m.payload, { networkId: m.networkId });
    }
    const all = await world.rm.listMessages(inst, CHAT, q());
    expect(all.map((m) => m.body)).toEqual(["m5", "m4", "m3", "m2", "m1", "m0"]);
    expect(
      (await world.rm.listMessages(inst, CHAT, q({ sortOrder: "asc", limit: 2, offset: 1 }))).map((m) => m.body),
    ).toEqual(["m1", "m2"]);
    const window = await world.rm.listMessages(inst, CHAT, q({ timestampGte: base + 10, timestampLte: base + 30 }));
    expect(window.map((m) => m.body)).toEqual(["m3", "m2", "m1"]);
    expect((await world.rm.listMessages(inst, CHAT, q({ fromMe: true }))).map((m) => m.body)).toEqual([
      "m5",
      "m3",
      "m1",
    ]);
    expect((await world.rm.listMessages(inst, CHAT, q({ fromMe: false, ack: ACK.DEVICE }))).length).toBe(3);
    expect((await world.rm.listMessages(inst, CHAT, q({ ack: ACK.READ }))).length).toBe(0);
    const mine = all.find((m) => m.body === "m5")!;
    expect(mine).toMatchObject({ fromMe: true, from: "5511900000000@c.us", to: CHAT, source: "api", ack: 1 });
    expect(mine.id).toBe(sent[5]);
  });

  it("acks move forward only, also when they come before the message is stored", async () => {
    const inst = instance();
    const early = inbound({ text: "rápida", timestamp: 1_767_225_600, fromMe: true, chatLid: null });
    await world.rm.ack(inst, early.networkId, "delivered"); // the network was faster than our store
    await world.rm.record(inst, "message.any", early.payload, { networkId: early.networkId });
    let [v] = await world.rm.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({ ack: ACK.DEVICE, ackName: "DEVICE" });
    await world.rm.ack(inst, early.networkId, "read");
    await world.rm.ack(inst, early.networkId, "delivered"); // late and out of order
    await world.rm.ack(inst, early.networkId, "failed"); // too late to fail
    [v] = await world.rm.listMessages(inst, CHAT, q());
    expect(v).toMatchObject({ ack: ACK.READ, ackName: "READ" });
    expect((await world.rm.listMessages(inst, CHAT, q({ ack: ACK.READ }))).map((m) => m.id)).toEqual([v!.id]);

    const failing = inbound({ text: "falha", timestamp: 1_767_225_700, fromMe: true, chatLid: null });
    await world.rm.record(inst, "message.any", failing.payload, { networkId: failing.networkId });
    await world.rm.ack(inst, failing.networkId, "failed");
    const [f] = await world.rm.listMessages(inst, CHAT, q({ ack: ACK.ERROR }));
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
    for (const m of [a, b]) await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    await world.rm.record(inst, "message.edited", { ...b.payload, messageId: b.payload.id, text: "editada" });
    await world.rm.record(
      inst,
      "message.revoked",
      { ...a.payload, messageId: a.payload.id },
      { targetId: a.networkId },
    );
    const [vb, va] = await world.rm.listMessages(inst, CHAT, q());
    expect(vb).toMatchObject({ body: "editada", edited: true, revoked: false });
    expect(va).toMatchObject({ body: "", type: "revoked", revoked: true, hasMedia: false, media: null, _data: null });
    // The same message recorded again (a repeated event) neither resurrects it nor loses its state.
    await world.rm.record(inst, "message", a.payload, { networkId: a.networkId });
    await world.rm.record(inst, "message", b.payload, { networkId: b.networkId });
    const [vb2, va2] = await world.rm.listMessages(inst, CHAT, q());
    expect(va2).toMatchObject({ revoked: true, body: "" });
    expect(vb2).toMatchObject({ body: "editada", edited: true });
    // A revocation of something never stored changes nothing (and stores nothing).
    await world.rm.record(inst, "message.revoked", { ...a.payload, messageId: "false_x@c.us_NOPE1234" });
    expect(await world.platform.redis.exists(world.rm.messageKey(inst.id, "NOPE1234"))).toBe(0);
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
    for (const m of [kept, lost]) await world.rm.record(inst, "message", m.payload, { networkId: m.networkId });
    const [k, l] = await world.rm.listMessages(inst, CHAT, q({ downloadMedia: true }));
    expect(k!.mediaUrl).toMatch(
      new RegExp(`/v1/files/${inst.id}/${k!.id.replace(/[.]/g, "\\.")}\\.pdf\\?exp=\\d+&sig=`),
    );
    expect(k!.media).toMatchObject({ mimetype: "application/pdf", filename: "a.pdf", error: null });
    expect(k!.media!.url).toBe(k!.mediaUrl);
    expect(l).toMatchObject({ mediaUrl: null, media: { url: null, mimetype: "image/png" } });
    expect(l!.media!.error).toMatch(/indisponível/);
    const [plain] = await world.rm.listMessages(inst, CHAT, q());
    expect(plain).not.toHaveProperty("mediaUrl");
    expect(plain!.media).toMatchObject({ url: null, mimetype: "application/pdf" });
  });

  it("quotes carry replyTo with the quoted message; contacts and locations keep their content", async () => {
    const inst = instance();
    const first = inbound({ text: "pergunta", timestamp: 1_767_225_600 });
    await world.rm.record(inst, "message", first.payload, { networkId: first.networkId });
    const reply = inbound({ text: "resposta", timestamp: 1_767_225_601, fromMe: true, quotedId: first.payload.id });
    await world.rm.record(inst, "message.any", reply.payload, { networkId: reply.networkId });
    const card = inbound({ timestamp: 1_767_225_602, type: "contact", fromMe: true });
    await world.rm.record(inst, "message.any", card.payload, {
      networkId: card.networkId,
      content: { type: "contacts", contacts: [{ fullName: "Bia", phoneNumber: "5511933334444" }] },
    });
    const place = inbound({ timestamp: 1_767_225_603, type: "location", fromMe: true, text: "Casa" });
    await world.rm.record(inst, "message.any", place.payload, {
      networkId: place.networkId,
      content: { type: "location", latitude: -23.5, longitude: -46.6, name: "Casa", address: "Rua A" },
    });
    const [p, c, r] = await world.rm.listMessages(inst, CHAT, q());
    expect(r!.replyTo).toMatchObject({ id: first.payload.id, body: "pergunta", hasMedia: false });
    expect(r!.quotedId).toBe(first.payload.id);
    expect(c!.vCards).toEqual([expect.stringContaining("FN:Bia")]);
    expect(c!.vCards[0]).toContain("waid=5511933334444:+5511933334444");
    expect(p!.location).toMatchObject({ latitude: "-23.5", longitude: "-46.6", name: "Casa", address: "Rua A" });
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
  expect(world.rm.docOf(m.payload, { networkId: m.networkId }, (t + 1) * 1000 + 2)!.sortKey).toBe(t * 1000 + 999);
});
