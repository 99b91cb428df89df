// A stored message as one device of a viewer receives it (the `message` frame): the chat it is in
// and who sent it, as that viewer sees them.
import type { Account, StoredMessage } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { MessageFrame } from "../wire/protocol.ts";

/** The message as one device of `viewer` receives it. */
export function frameFor(state: SimnetState, msg: StoredMessage, viewer: Account, fromMe: boolean): MessageFrame {
  const sender = state.accounts.get(msg.senderPhone) ?? viewer;
  const group = msg.groupId ? state.groups.get(msg.groupId) : undefined;
  let chatId: string;
  let chatLid: string | null = null;
  let chatName: string;
  // How the peer's conversations are addressed, as the real network shows it (`addressingMode`).
  let peerAddressing: Account["addressing"] = "any";
  if (msg.groupId) {
    chatId = msg.groupId;
    chatName = group?.subject ?? "";
  } else if (fromMe) {
    const peer = msg.recipientPhone ? state.accounts.get(msg.recipientPhone) : undefined;
    chatId = msg.chatId;
    chatLid = peer?.lid ?? sender.lid;
    chatName = peer?.pushName ?? sender.pushName;
    peerAddressing = peer?.addressing ?? "any";
  } else {
    chatId = state.peer(sender, viewer.phone).id;
    chatLid = sender.lid;
    chatName = sender.pushName;
    peerAddressing = sender.addressing;
  }
  return {
    type: "message",
    id: msg.id,
    chatId,
    chatLid,
    ...(peerAddressing !== "any" ? { addressingMode: peerAddressing } : {}),
    chatName,
    isGroup: msg.groupId !== null,
    fromMe,
    from: state.peer(sender, fromMe ? sender.phone : viewer.phone),
    ...(fromMe ? { origin: msg.origin } : {}),
    timestamp: msg.timestamp,
    message: msg.content,
    ...(msg.quotedId ? { quotedId: msg.quotedId } : {}),
    ...(msg.mentions ? { mentions: msg.mentions } : {}),
    ...(msg.forwarded ? { forwarded: true } : {}),
  };
}
