import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ProviderEvent } from "../../contract.ts";
import { type AreaHarness, areaHarness, isIq } from "../test/area-rig.ts";

/**
 * Presence at Baileys' boundary (the rig of area-rig.ts): the `<presence>` and `<chatstate>` stanzas
 * each operation makes, the number or group checked before a subscription, the subscriptions and the
 * account's presence sent again on a new connection, and Baileys' `presence.update` notifications
 * becoming presence.update events for the chats subscribed to, in order, ids as numbers.
 */

const ME = "5511999999999@s.whatsapp.net";
const B = "5511988887777";
const B_JID = `${B}@s.whatsapp.net`;
const C_LID = "87654321012345@lid";
const C = "5511977776666";
const GROUP = "120363012345678901@g.us";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

const stanzas = (tag: "presence" | "chatstate") => h.sentNodes([tag]);
/**
 * A rig whose connection opened: Baileys has sent its own `unavailable` (the session's
 * markOnlineOnConnect is false); `presences()` are the `<presence>` stanzas sent after it.
 */
async function openRig() {
  const r = await h.open();
  await vi.waitFor(async () => expect((await stanzas("presence")).map((n) => n.attrs.type)).toEqual(["unavailable"]));
  // The contacts' privacy ids are known (a subscription's token lookup would otherwise ask the network).
  await r.sock.signalRepository.lidMapping.storeLIDPNMappings([{ lid: "11122233344455@lid", pn: B_JID }]);
  return { ...r, presences: async () => (await stanzas("presence")).slice(1) };
}
const presenceEvents = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === "event" && e.kind === "presence.update" ? [e.payload] : []));

/** The usync answer of `onWhatsApp`: the number is on the network (`in`) or not (`out`). */
const contactAnswer = (jid: string, type: "in" | "out"): BinaryNode[] => [
  {
    tag: "usync",
    attrs: {},
    content: [
      {
        tag: "list",
        attrs: {},
        content: [{ tag: "user", attrs: { jid }, content: [{ tag: "contact", attrs: { type } }] }],
      },
    ],
  },
];
const groupAnswer: BinaryNode[] = [
  {
    tag: "group",
    attrs: { id: GROUP.split("@")[0]!, subject: "Equipe", creation: "1700000000", creator: ME, s_t: "1" },
    content: [
      { tag: "participant", attrs: { jid: ME, type: "superadmin" } },
      { tag: "participant", attrs: { jid: C_LID, phone_number: `${C}@s.whatsapp.net` } },
    ],
  },
];
const errorAnswer = (code: string, text: string): BinaryNode[] => [{ tag: "error", attrs: { code, text } }];

describe("Baileys presence: operations", () => {
  it("available / unavailable: <presence name type> for the account (refused without a push name)", async () => {
    const r = await openRig();
    expect(await r.ops["presence.set"]!({ state: "available" })).toEqual({});
    expect(await r.ops["presence.set"]!({ state: "unavailable", chatId: `${B}@c.us` })).toEqual({});
    await vi.waitFor(async () => expect((await r.presences()).length).toBeGreaterThanOrEqual(2));
    expect((await r.presences()).map((n) => n.attrs)).toEqual([
      { name: "Ana", type: "available" },
      { name: "Ana", type: "unavailable" },
    ]);
    r.sock.authState.creds.me = { ...r.sock.authState.creds.me!, name: "" };
    const err = await r.ops["presence.set"]!({ state: "available" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "bad_request" });
    expect(await r.presences()).toHaveLength(2);
  });

  it("composing / recording / paused: <chatstate to> with the state (recording as composing media=audio)", async () => {
    const r = await openRig();
    await r.ops["presence.set"]!({ state: "composing", chatId: `${B}@c.us` });
    await r.ops["presence.set"]!({ state: "recording", chatId: GROUP });
    await r.ops["presence.set"]!({ state: "paused", chatId: `${B}@c.us` });
    await vi.waitFor(async () => expect(await stanzas("chatstate")).toHaveLength(3));
    const sent = await stanzas("chatstate");
    expect(
      sent.map((n) => [n.attrs.to, (n.content as BinaryNode[])[0]!.tag, (n.content as BinaryNode[])[0]!.attrs]),
    ).toEqual([
      [B_JID, "composing", {}],
      [GROUP, "composing", { media: "audio" }],
      [B_JID, "paused", {}],
    ]);
    expect(sent[0]!.attrs.from).toBe("5511999999999:12@s.whatsapp.net");
    const err = await r.ops["presence.set"]!({ state: "composing" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "validation_error", details: { chatId: expect.any(String) } });
  });

  it("subscribe to a number: checked with onWhatsApp, then <presence type=subscribe to>; none: 404, nothing sent", async () => {
    const r = await openRig();
    const done = r.ops["presence.subscribe"]!({ chatId: `${B}@c.us` });
    const q = await h.answer(r.sock, isIq("usync"), () => contactAnswer(B_JID, "in"));
    const user = getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(q, "usync"), "list"), "user")!;
    expect(Buffer.from(getBinaryNodeChild(user, "contact")!.content as Uint8Array).toString()).toBe(`+${B}`);
    expect(await done).toEqual({});
    await vi.waitFor(async () => expect(await r.presences()).toHaveLength(1));
    expect((await r.presences())[0]!.attrs).toMatchObject({ type: "subscribe", to: B_JID });

    const missing = r.ops["presence.subscribe"]!({ chatId: "5511900000000@c.us" }).catch((e: unknown) => e);
    await h.answer(r.sock, isIq("usync"), () => contactAnswer("5511900000000@s.whatsapp.net", "out"));
    expect(await missing).toMatchObject({ code: "not_found" });
    expect(await r.presences()).toHaveLength(1);
  });

  it("subscribe to a group: its metadata first; unknown 404, not a member network_rejected", async () => {
    const r = await openRig();
    const done = r.ops["presence.subscribe"]!({ chatId: GROUP });
    const q = await h.answer(r.sock, isIq("w:g2"), () => groupAnswer);
    expect(q.attrs).toMatchObject({ to: GROUP, type: "get" });
    expect(getBinaryNodeChildren(q, "query")[0]!.attrs).toEqual({ request: "interactive" });
    expect(await done).toEqual({});
    await vi.waitFor(async () => expect(await r.presences()).toHaveLength(1));
    expect((await r.presences())[0]!.attrs).toMatchObject({ type: "subscribe", to: GROUP });

    const unknown = r.ops["presence.subscribe"]!({ chatId: "120363000000000000@g.us" }).catch((e: unknown) => e);
    await h.answer(r.sock, isIq("w:g2"), () => errorAnswer("404", "item-not-found"));
    expect(await unknown).toMatchObject({ code: "not_found" });
    const outsider = r.ops["presence.subscribe"]!({ chatId: "120363000000000001@g.us" }).catch((e: unknown) => e);
    await h.answer(r.sock, isIq("w:g2"), () => errorAnswer("403", "forbidden"));
    expect(await outsider).toMatchObject({ code: "network_rejected", details: { chatId: expect.any(String) } });
    expect(await r.presences()).toHaveLength(1);
  });

  it("a new connection: the account's presence and its subscriptions are sent again", async () => {
    const r = await openRig();
    await r.ops["presence.set"]!({ state: "available" });
    const sub = r.ops["presence.subscribe"]!({ chatId: `${B}@c.us` });
    await h.answer(r.sock, isIq("usync"), () => contactAnswer(B_JID, "in"));
    await sub;
    await vi.waitFor(async () => expect(await r.presences()).toHaveLength(2));
    r.sock.ev.emit("connection.update", { connection: "open" });
    await vi.waitFor(async () => expect(await r.presences()).toHaveLength(5));
    expect((await r.presences()).slice(2).map((n) => n.attrs)).toEqual([
      { name: "Ana", type: "unavailable" }, // Baileys' own, on every connection
      { name: "Ana", type: "available" }, // the account was set online: said again
      expect.objectContaining({ type: "subscribe", to: B_JID }),
    ]);
  });
});

describe("Baileys presence: notifications", () => {
  it("presence.update of a subscribed contact and group become presence.update events, in order; others are dropped", async () => {
    const r = await openRig();
    r.known.set(C_LID, C);
    const sub = r.ops["presence.subscribe"]!({ chatId: `${B}@c.us` });
    await h.answer(r.sock, isIq("usync"), () => contactAnswer(B_JID, "in"));
    await sub;
    const g = r.ops["presence.subscribe"]!({ chatId: GROUP });
    await h.answer(r.sock, isIq("w:g2"), () => groupAnswer);
    await g;

    const emit = (id: string, participant: string, p: { lastKnownPresence: string; lastSeen?: number }) =>
      r.sock.ev.emit("presence.update", { id, presences: { [participant]: p as never } });
    emit(B_JID, B_JID, { lastKnownPresence: "unavailable", lastSeen: 1700000000 });
    emit("5511911112222@s.whatsapp.net", "5511911112222@s.whatsapp.net", { lastKnownPresence: "available" });
    emit(B_JID, B_JID, { lastKnownPresence: "available" });
    emit(B_JID, B_JID, { lastKnownPresence: "composing" });
    emit(GROUP, C_LID, { lastKnownPresence: "recording" });
    emit(B_JID, B_JID, { lastKnownPresence: "unavailable" });

    await vi.waitFor(() => expect(presenceEvents(r.events)).toHaveLength(5));
    const b = `${B}@c.us`;
    const got = presenceEvents(r.events);
    expect(got.map(({ timestamp: _t, ...p }) => p)).toEqual([
      { id: b, chatId: b, presences: [{ participant: b, lastKnownPresence: "offline", lastSeen: 1700000000 }] },
      { id: b, chatId: b, presences: [{ participant: b, lastKnownPresence: "online", lastSeen: null }] },
      { id: b, chatId: b, presences: [{ participant: b, lastKnownPresence: "typing", lastSeen: null }] },
      // A group member by its privacy id, known: its number (spec 1 rule 3).
      {
        id: GROUP,
        chatId: GROUP,
        presences: [{ participant: `${C}@c.us`, lastKnownPresence: "recording", lastSeen: null }],
      },
      // Offline without a last seen (the contact hides it).
      { id: b, chatId: b, presences: [{ participant: b, lastKnownPresence: "offline", lastSeen: null }] },
    ]);
    for (const p of got) expect(p.timestamp).toBeGreaterThan(1_600_000_000);
  });
});
