import { formatMessageId } from "@gw/contracts";
import { type BaileysEventMap, isJidGroup, jidNormalizedUser, type WASocket } from "@whiskeysockets/baileys";
import { addressBookWriter } from "../../../address-book.ts";
import { toChatId } from "../../jids.ts";
import { secondsOf } from "../../seconds.ts";
import type { BaileysAreaModule } from "../area.ts";
import { contactOf } from "./groups.ts";

/**
 * `message.ack.group` (spec 6.2) through Baileys 7: in a group the server sends one `<receipt>` per
 * participant, which Baileys reports as `message-receipt.update` (not `messages.update`, which only
 * one-to-one chats get): `receiptTimestamp` when it reached them, `readTimestamp` when they read
 * it. One event per participant and receipt for the messages this number sent, with the payload
 * simnet gives: our message id as the API shows it, the group, the participant as a contact (a
 * privacy id shown by number when known) and `delivered` / `read` / `played`.
 *
 * Baileys 7 files a `played` receipt (a voice note listened to) under `readTimestamp` too, so on
 * this provider a play arrives as `read`; `played` only when a `playedTimestamp` is given.
 */

type ReceiptUpdate = BaileysEventMap["message-receipt.update"][number];

/**
 * The statuses a receipt update reports, in order: Baileys' event buffer merges one participant's
 * receipts that arrive together (delivered and read in one update), each is its own event.
 */
function statusesOf(r: ReceiptUpdate["receipt"]): { status: "delivered" | "read" | "played"; at: number }[] {
  const out: { status: "delivered" | "read" | "played"; at: number }[] = [];
  const delivered = secondsOf(r.receiptTimestamp);
  if (delivered) out.push({ status: "delivered", at: delivered });
  const read = secondsOf(r.readTimestamp);
  if (read) out.push({ status: "read", at: read });
  const played = secondsOf(r.playedTimestamp);
  if (played) out.push({ status: "played", at: played });
  return out;
}

export const baileysGroupAcks: BaileysAreaModule = (area) => {
  const book = addressBookWriter(area.ctx);
  // Receipts are reported one after the other: a read must not overtake its delivery.
  let chain: Promise<void> = Promise.resolve();

  async function onReceipts(sock: WASocket, updates: ReceiptUpdate[]): Promise<void> {
    const me = new Set(
      [sock.user?.id, sock.user?.lid, sock.authState.creds.me?.id, sock.authState.creds.me?.lid]
        .filter((j): j is string => !!j)
        .map((j) => jidNormalizedUser(j)),
    );
    for (const { key, receipt } of updates) {
      const group = key.remoteJid;
      if (!key.fromMe || !key.id || !group || !isJidGroup(group) || !receipt.userJid) continue;
      const user = jidNormalizedUser(receipt.userJid);
      // Our own devices' receipts (`sender`, `read-self`) are not a participant's.
      if (me.has(user)) continue;
      const statuses = statusesOf(receipt);
      if (statuses.length === 0) continue;
      const person = await contactOf(area, { id: user });
      // The lid's number from Baileys' own store when the instance has not learnt it yet.
      if (person.lid && !person.phone) {
        const pn = await sock.signalRepository.lidMapping.getPNForLID(person.lid).catch(() => null);
        if (pn) Object.assign(person, await contactOf(area, { id: person.lid, phoneNumber: jidNormalizedUser(pn) }));
      }
      const saved = await book.get(person.id).catch(() => null);
      const participant = { ...person, pushName: person.pushName || saved?.pushName || "" };
      const id = formatMessageId({ fromMe: true, chatId: toChatId(group), id: key.id });
      for (const { status, at } of statuses) {
        area.ctx.emit({
          type: "event",
          kind: "message.ack.group",
          payload: { id, chatId: toChatId(group), participant, status, timestamp: at },
        });
      }
    }
  }

  // Like the session's acks, a retired socket's receipts are still reported: the server has had
  // them acknowledged and will not send them again.
  const report = (sock: WASocket, updates: ReceiptUpdate[]) => {
    chain = chain.then(() => onReceipts(sock, updates)).catch((err) => area.ctx.log.warn({ err }, "group receipt"));
  };
  area.onSocket((sock) => {
    sock.ev.on("message-receipt.update", (updates) => report(sock, updates));
    // While Baileys buffers events (up to 30 s after a connect, ~100 ms around each send), receipts
    // of a message it still holds are folded into that message's `userReceipt` and never emitted
    // on their own (event-buffer.js, `message-receipt.update`): read them from the upsert.
    sock.ev.on("messages.upsert", ({ messages }) => {
      const folded = messages.flatMap((m) =>
        m.key?.fromMe && m.userReceipt?.length ? m.userReceipt.map((receipt) => ({ key: m.key, receipt })) : [],
      );
      if (folded.length) report(sock, folded);
    });
  });
  return {};
};
