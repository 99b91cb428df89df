// The control API's views of messages: what a phone sent (with its acks and receipts) and what it
// received (as its devices got it).
import type { Account, StoredMessage } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { ACK_STATUSES } from "../wire/protocol.ts";
import { receiptLevel } from "./acks.ts";
import { frameFor } from "./frames.ts";

export function sentView(msg: StoredMessage) {
  return {
    seq: msg.seq,
    id: msg.id,
    to: msg.to,
    chatId: msg.chatId,
    groupId: msg.groupId,
    recipient: msg.recipientPhone,
    origin: msg.origin,
    deviceId: msg.deviceId,
    instanceId: msg.instanceId,
    timestamp: msg.timestamp,
    at: msg.at,
    status: msg.failed ? "failed" : (ACK_STATUSES[msg.level] ?? "sent"),
    error: msg.failed ?? null,
    acks: msg.acks,
    receipts: Object.fromEntries(
      [...msg.receipts].map(([phone, r]) => [phone, ACK_STATUSES[receiptLevel(r)] ?? "sent"]),
    ),
    message: msg.content,
    quotedId: msg.quotedId ?? null,
    mentions: msg.mentions ?? null,
    forwarded: msg.forwarded ?? false,
  };
}

export function inboxView(state: SimnetState, msg: StoredMessage, acc: Account) {
  const { type: _type, ...frame } = frameFor(state, msg, acc, false);
  const receipt = msg.receipts.get(acc.phone);
  return {
    seq: msg.seq,
    at: msg.at,
    ...frame,
    status: receipt ? (ACK_STATUSES[receiptLevel(receipt)] ?? "sent") : "sent",
    delivered: receipt?.delivered ?? false,
  };
}
