import { ADDRESS_BOOK_RECORD } from "@gw/contracts";
import type { BinaryNode } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../../contract.ts";
import { type AreaHarness, areaHarness } from "../../test/area-rig.ts";

/**
 * `message.ack.group` at Baileys' boundary: the server's `<receipt>` stanzas for a message this
 * number sent to a group, handed to the socket as they arrive from the network; Baileys turns them
 * into `message-receipt.update`, and the instance reports one event per participant and receipt.
 */

const GROUP = "120363012345678901@g.us";
const MSG = "3EB0AABBCCDDEEFF0011";
const B = "5511988887777";
const C = "5511977776666";
const C_LID = "87654321012345@lid";
const E_LID = "11112222333344@lid";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

/** A participant's receipt as the server sends it (no `type`: delivered). */
const receipt = (participant: string, t: number, type?: string, id = MSG, from = GROUP): BinaryNode => ({
  tag: "receipt",
  attrs: { id, from, participant, t: String(t), ...(type ? { type } : {}) },
});

type Ack = {
  id: string;
  chatId: string;
  participant: { id: string; phone: string; lid: string | null; pushName: string };
  status: string;
  timestamp: number;
};
const acks = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === "event" && e.kind === "message.ack.group" ? [e.payload as Ack] : []));

describe("Baileys message.ack.group", () => {
  it("delivered and read per participant: our message's id, the group, the participant as a contact", async () => {
    const r = await h.open();
    r.known.set(C_LID, C);
    // B is in the address book with the name it shows.
    const bia = { id: `${B}@c.us`, phone: B, lid: null, pushName: "Bia", name: "Bia Souza" };
    r.records.set(ADDRESS_BOOK_RECORD, new Map([[bia.id, JSON.stringify(bia)]]));
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000100));
    await expect.poll(() => acks(r.events).length).toBe(1);
    r.sock.ws.emit("CB:receipt", receipt(C_LID, 1700000101));
    await expect.poll(() => acks(r.events).length).toBe(2);
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000200, "read"));
    await expect.poll(() => acks(r.events).length).toBe(3);
    expect(acks(r.events)).toEqual([
      {
        id: `true_${GROUP}_${MSG}`,
        chatId: GROUP,
        participant: { id: `${B}@c.us`, phone: B, lid: null, pushName: "Bia" },
        status: "delivered",
        timestamp: 1700000100,
      },
      {
        id: `true_${GROUP}_${MSG}`,
        chatId: GROUP,
        // A privacy id shown by number (known), the lid kept.
        participant: { id: `${C}@c.us`, phone: C, lid: C_LID, pushName: "" },
        status: "delivered",
        timestamp: 1700000101,
      },
      expect.objectContaining({ participant: expect.objectContaining({ id: `${B}@c.us` }), status: "read" }),
    ]);
  });

  it("receipts that arrive together (Baileys merges one participant's into one update) are each an event, in order", async () => {
    const r = await h.open();
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000100));
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000200, "read"));
    await expect.poll(() => acks(r.events).length).toBe(2);
    expect(acks(r.events).map((a) => [a.participant.id, a.status, a.timestamp])).toEqual([
      [`${B}@c.us`, "delivered", 1700000100],
      [`${B}@c.us`, "read", 1700000200],
    ]);
  });

  it("a receipt for several messages (<list><item>) is one event per message; an unknown lid stays a lid", async () => {
    const r = await h.open();
    r.sock.ws.emit("CB:receipt", {
      ...receipt(E_LID, 1700000300, "read"),
      content: [{ tag: "list", attrs: {}, content: [{ tag: "item", attrs: { id: "3EB0SECOND0000000001" } }] }],
    });
    await expect.poll(() => acks(r.events).length).toBe(2);
    expect(acks(r.events).map((a) => [a.id, a.status])).toEqual([
      [`true_${GROUP}_${MSG}`, "read"],
      [`true_${GROUP}_3EB0SECOND0000000001`, "read"],
    ]);
    expect(acks(r.events)[0]!.participant).toEqual({ id: E_LID, phone: "", lid: E_LID, pushName: "" });
  });

  it("a played voice note arrives as read (Baileys 7 files it under readTimestamp); our own devices' receipts and one-to-one chats are not group acks", async () => {
    const r = await h.open();
    // This number's other device read it (read-self), and its own server ack (sender).
    r.sock.ws.emit("CB:receipt", receipt("5511999999999:3@s.whatsapp.net", 1700000400, "read-self"));
    r.sock.ws.emit("CB:receipt", receipt("5511999999999@s.whatsapp.net", 1700000401, "sender"));
    // A one-to-one receipt: a `messages.update` (the session's message.ack), not this event.
    r.sock.ws.emit("CB:receipt", {
      tag: "receipt",
      attrs: { id: MSG, from: `${B}@s.whatsapp.net`, t: "1700000402", type: "read" },
    });
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000403, "played"));
    await expect.poll(() => acks(r.events).length).toBe(1);
    expect(acks(r.events)[0]).toMatchObject({
      participant: { id: `${B}@c.us` },
      status: "read",
      timestamp: 1700000403,
    });
    // The one-to-one receipt went its own way, as the session's ack.
    await expect.poll(() => r.events.some((e) => e.type === "ack" && e.status === "read")).toBe(true);
    expect(acks(r.events)).toHaveLength(1);
  });

  it("receipts Baileys folds into a message it still buffers (after a reconnect) are reported from the upsert", async () => {
    const r = await h.open();
    r.known.set(C_LID, C);
    // As after a connect: events buffered until the offline backlog is in. Our send's echo and its
    // participants' receipts arrive inside the window; the buffer merges them into one upsert.
    r.sock.ev.buffer();
    r.sock.ev.emit("messages.upsert", {
      type: "append",
      messages: [{ key: { remoteJid: GROUP, fromMe: true, id: MSG }, message: { conversation: "oi" }, status: 1 }],
    });
    r.sock.ws.emit("CB:receipt", receipt(`${B}@s.whatsapp.net`, 1700000300));
    r.sock.ws.emit("CB:receipt", receipt(C_LID, 1700000301, "read"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    r.sock.ev.flush();
    await expect.poll(() => acks(r.events).length).toBe(2);
    expect(acks(r.events).map((a) => [a.participant.id, a.status, a.timestamp])).toEqual([
      [`${B}@c.us`, "delivered", 1700000300],
      [`${C}@c.us`, "read", 1700000301],
    ]);
  });
});
