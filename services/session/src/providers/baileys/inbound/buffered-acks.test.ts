import { generateWAMessage, proto, type WAMessage, type WAMessageKey, type WASocket } from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import type { ProviderEvent } from "../../contract.ts";
import { openPaired, silentSuite } from "../test/paired-rig.ts";
import { PAIRED_ME } from "../test/testing.ts";

/**
 * Acks that Baileys' event buffer folds into an upserted message (event-buffer.js: a
 * `messages.update` for a message the buffer still holds is merged into it and not emitted).
 * Everything runs on a real socket and its real buffer: `sock.ev.buffer()` is what the socket
 * itself calls on connecting with registered creds (socket.js ~826), and our sends' echoes go
 * through the socket's own `upsertMessage` (a buffered function, chats.js ~917), as
 * `sendMessage` does after the relay (messages-send.js ~1135-1139). Only the relay is left out:
 * the local endpoint is silent.
 */

const suite = silentSuite();

const CONTACT = "5511988887777@c.us";
const CONTACT_PN = "5511988887777@s.whatsapp.net";
const T = 1_790_000_000;
const { ERROR, SERVER_ACK, DELIVERY_ACK, READ } = proto.WebMessageInfo.Status;

type Ack = Extract<ProviderEvent, { type: "ack" }>;

/** A paired session whose socket's `sendMessage` builds the message and echoes it as Baileys does. */
async function wired() {
  const w = await openPaired(suite, { connectTimeoutMs: 5_000 });
  const sentTo: string[] = [];
  vi.spyOn(w.sock, "sendMessage").mockImplementation(async (jid, content, options) => {
    const full = await generateWAMessage(jid, content as never, {
      ...(options as object),
      userJid: PAIRED_ME.id,
      upload: (async () => {
        throw new Error("no uploads here");
      }) as never,
    });
    sentTo.push(jid);
    // emitOwnEvents: the echo goes through the socket's buffered `upsertMessage` on the next tick.
    process.nextTick(() => void (w.sock as WASocket & { upsertMessage: UpsertMessage }).upsertMessage(full, "append"));
    return full;
  });
  const acks = () => w.events.flatMap((e) => (e.type === "ack" ? [e] : []));
  const messages = () => w.events.flatMap((e) => (e.type === "message" ? [e.message] : []));
  return { ...w, sentTo, acks, messages };
}
type UpsertMessage = (msg: WAMessage, type: "append" | "notify") => Promise<void>;

/** What handleReceipt (messages-recv.js) emits for a one-to-one receipt of our message. */
const receipt = (key: WAMessageKey, status: number, t: number) => [{ key, update: { status, messageTimestamp: t } }];

/** Lets the echo's tick, the buffer's own flush timers and the session's queue run. */
const settle = (ms = 200) => new Promise((r) => setTimeout(r, ms));

describe("Baileys session: acks folded by the event buffer", () => {
  it("a send's delivery receipt inside the reconnect buffer: the `delivered` ack is emitted at the flush, once", async () => {
    const w = await wired();
    w.sock.ev.buffer(); // as on connecting with registered creds, until `ib offline`
    const sent = await w.session.send(CONTACT, { type: "text", text: "logo depois de reconectar" });
    await settle(20); // the echo is in the buffer
    const key = { remoteJid: w.sentTo[0]!, fromMe: true, id: sent.id };
    w.sock.ev.emit("messages.update", receipt(key, DELIVERY_ACK, T + 5));
    await settle();
    expect(w.acks()).toEqual([]); // still held: nothing has left the buffer

    // What the flush emits: one upsert carrying the receipt, and no messages.update.
    const seen: string[] = [];
    w.sock.ev.on("messages.upsert", ({ messages }) => seen.push(...messages.map((m) => `upsert:${m.status}`)));
    w.sock.ev.on("messages.update", (u) => seen.push(...u.map((x) => `update:${x.update.status}`)));
    w.sock.ev.flush();
    expect(seen).toEqual([`upsert:${DELIVERY_ACK}`]);

    await vi.waitFor(() => expect(w.acks().length).toBe(1));
    expect(w.acks().map(({ id, chatId, status, timestamp }: Ack) => ({ id, chatId, status, timestamp }))).toEqual([
      { id: sent.id, chatId: CONTACT, status: "delivered", timestamp: T + 5 },
    ]);
    // Our API send is not reported as received (the manager announced it).
    expect(w.messages()).toEqual([]);

    // The same receipt again, now unbuffered: not reported twice; the next status is.
    w.sock.ev.emit("messages.update", receipt(key, DELIVERY_ACK, T + 6));
    w.sock.ev.emit("messages.update", receipt(key, READ, T + 7));
    await vi.waitFor(() => expect(w.acks().length).toBe(2));
    await settle(50);
    expect(w.acks().map((a) => [a.status, a.timestamp])).toEqual([
      ["delivered", T + 5],
      ["read", T + 7],
    ]);
  });

  it("a refusal arriving while the send's own echo is buffered (~100 ms): the `failed` ack is emitted", async () => {
    const w = await wired();
    // No reconnect buffer: upsertMessage opens its own and flushes it ~100 ms later.
    const sent = await w.session.send(CONTACT, { type: "text", text: "recusada" });
    await new Promise((r) => setImmediate(r));
    // What handleBadAck emits for the server's refusal of the stanza.
    w.sock.ev.emit("messages.update", [
      {
        key: { remoteJid: w.sentTo[0]!, fromMe: true, id: sent.id },
        update: { status: ERROR, messageStubParameters: ["479"] },
      },
    ]);
    await vi.waitFor(() => expect(w.acks().length).toBe(1));
    await settle(50);
    const [ack] = w.acks();
    expect({ id: ack!.id, chatId: ack!.chatId, status: ack!.status }).toEqual({
      id: sent.id,
      chatId: CONTACT,
      status: "failed",
    });
    expect(ack!.error).toBeTruthy();
    expect(w.messages()).toEqual([]);
  });

  it("a copy from the phone with its receipt folded in: reported as received, then its `read` ack", async () => {
    const w = await wired();
    w.sock.ev.buffer();
    const key = { remoteJid: CONTACT_PN, fromMe: true, id: "3A00PHONE00000000001" };
    // As decodeMessageNode gives our phone's message (status SERVER_ACK), queued while we were away.
    const copy = proto.WebMessageInfo.fromObject({
      key,
      message: { conversation: "do celular" },
      messageTimestamp: T,
      status: SERVER_ACK,
    }) as WAMessage;
    w.sock.ev.emit("messages.upsert", { messages: [copy], type: "append" });
    w.sock.ev.emit("messages.update", receipt(key, DELIVERY_ACK, T + 1));
    w.sock.ev.emit("messages.update", receipt(key, READ, T + 2));
    w.sock.ev.flush();
    await vi.waitFor(() => expect(w.events.filter((e) => e.type === "ack" || e.type === "message").length).toBe(2));
    await settle(50);
    expect(w.events.filter((e) => e.type === "ack" || e.type === "message").map((e) => e.type)).toEqual([
      "message",
      "ack",
    ]);
    expect(w.messages().map((m) => [m.id, m.text])).toEqual([["3A00PHONE00000000001", "do celular"]]);
    expect(w.acks().map((a) => [a.id, a.chatId, a.status, a.timestamp])).toEqual([
      ["3A00PHONE00000000001", CONTACT, "read", T + 2],
    ]);
  });
});
