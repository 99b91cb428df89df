// The ack clock: each recipient's receipt (delivered, read, played), the sender's devices told of
// each step one `ackDelayMs` apart, a refused message's `failed`, and reading on the phone.
import { errorNote } from "../addressing-rules.ts";
import { nowSeconds } from "../ids.ts";
import type { Account, Device, Receipt, StoredMessage } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { ACK_STATUSES, type AckStatus } from "../wire/protocol.ts";

export const LEVEL = { sent: 0, delivered: 1, read: 2, played: 3 } as const;

export function receiptLevel(r: Receipt): number {
  return r.played ? LEVEL.played : r.read ? LEVEL.read : r.delivered ? LEVEL.delivered : LEVEL.sent;
}

/** What the sender should see: the least advanced recipient (all of a group's). */
function targetLevel(msg: StoredMessage): number {
  if (msg.receipts.size === 0) return LEVEL.sent;
  let min: number = LEVEL.played;
  for (const r of msg.receipts.values()) min = Math.min(min, receiptLevel(r));
  return msg.content.type === "voice" ? min : Math.min(min, LEVEL.read);
}

/**
 * The sender's devices learn that `msg` reached `status`, except `skip` (the device that sent
 * it: the answer to its `send` already was the server's acceptance, `sent`).
 */
export function announce(state: SimnetState, msg: StoredMessage, status: AckStatus | "failed", skip?: Device): void {
  const timestamp = nowSeconds();
  msg.acks.push({ status, timestamp, at: Date.now() });
  const sender = state.accounts.get(msg.senderPhone);
  if (!sender) return;
  const error = status === "failed" ? msg.failed : undefined;
  for (const id of sender.devices) {
    const device = state.devices.get(id);
    if (device && device !== skip) {
      state.deliverToDevice(device, {
        type: "ack",
        id: msg.id,
        chatId: msg.chatId,
        status,
        timestamp,
        ...(error ? { error } : {}),
      });
    }
  }
}

/**
 * Accepted, then refused (addressing-rules.ts): one ack step later every device of the sender gets
 * `failed` with the network's code, as Baileys gets a bad ack; the message reaches nobody.
 */
export function refuseLater(state: SimnetState, msg: StoredMessage, code: number): void {
  msg.failed = { code, message: errorNote(code) };
  state.later(state.opts.ackDelayMs, () => announce(state, msg, "failed"));
}

/** Emits the next ack, one step per `ackDelayMs`, until the sender has seen the target status. */
export function pump(state: SimnetState, msg: StoredMessage): void {
  if (msg.timer || msg.level >= targetLevel(msg)) return;
  msg.timer = state.later(state.opts.ackDelayMs, () => {
    msg.timer = null;
    msg.level++;
    announce(state, msg, ACK_STATUSES[msg.level] ?? "sent");
    pump(state, msg);
  });
}

/** Who hears each recipient's own receipt (groups: `message.ack.group` per participant). */
export const receiptListeners: ((state: SimnetState, msg: StoredMessage, phone: string, status: AckStatus) => void)[] =
  [];
const receipted = (state: SimnetState, msg: StoredMessage, phone: string, status: AckStatus) => {
  for (const listen of receiptListeners) listen(state, msg, phone, status);
};

export function markDelivered(state: SimnetState, msg: StoredMessage, phone: string): void {
  const receipt = msg.receipts.get(phone);
  if (!receipt || receipt.delivered) return;
  receipt.delivered = true;
  receipted(state, msg, phone, "delivered");
  const acc = state.accounts.get(phone);
  if (acc && acc.autoRead > 0)
    state.later(acc.autoRead * state.opts.ackDelayMs, () => readMessage(state, msg, phone, true));
  pump(state, msg);
}

/** The recipient `phone` reads (and, for voice, plays) the message. True if anything changed. */
function readMessage(state: SimnetState, msg: StoredMessage, phone: string, played: boolean): boolean {
  const receipt = msg.receipts.get(phone);
  if (!receipt) return false;
  const play = played && msg.content.type === "voice" && !receipt.played;
  if (receipt.read && !play) return false;
  receipt.delivered = true;
  receipt.read = true;
  if (play) receipt.played = true;
  receipted(state, msg, phone, play ? "played" : "read");
  pump(state, msg);
  return true;
}

/** Marks messages `acc` received as read: the given ids, or everything unread in its inbox. */
export function markRead(state: SimnetState, acc: Account, ids: string[] | undefined, played = true): number {
  const msgs = ids
    ? ids.flatMap((id) => {
        const m = state.messagesById.get(id);
        return m ? [m] : [];
      })
    : acc.inbox;
  let n = 0;
  for (const m of msgs) if (readMessage(state, m, acc.phone, played)) n++;
  return n;
}
