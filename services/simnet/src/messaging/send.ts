// Messages between accounts: a send routed to one account or a group (status and channel posts to
// their areas), refused when the network would, stored, delivered to the recipients' devices
// (queued while offline) and to the sender's other devices, then acked (acks.ts). Who a target
// is: targets.ts; frames: frames.ts; presence: areas/presence.ts.
import { addressForm, oneToOneVerdict } from "../addressing-rules.ts";
import { postToChannel } from "../areas/channels-model.ts";
import { blocks } from "../areas/contacts-model.ts";
import { postStatus, STATUS_CHAT } from "../areas/status-posts.ts";
import { SimnetError } from "../errors.ts";
import { newMessageId, nowSeconds } from "../ids.ts";
import type { Account, StoredMessage } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { MessageContent } from "../wire/protocol.ts";
import { announce, LEVEL, markDelivered, pump, refuseLater } from "./acks.ts";
import { frameFor } from "./frames.ts";
import { resolveTarget } from "./targets.ts";
import type { Origin, SendInput, SendResult } from "./types.ts";

function checkReferences(state: SimnetState, sender: Account, content: MessageContent): void {
  switch (content.type) {
    case "reaction":
    case "edit":
    case "revoke": {
      const target = state.messagesById.get(content.targetId);
      if (!target) throw new SimnetError("invalid_target", `unknown message ${content.targetId}`);
      if (content.type !== "reaction" && target.senderPhone !== sender.phone)
        throw new SimnetError("invalid_target", `only the sender can ${content.type} message ${content.targetId}`);
      return;
    }
    case "event_response": {
      const event = state.messagesById.get(content.targetId);
      if (event?.content.type !== "event") throw new SimnetError("invalid_target", `no event ${content.targetId}`);
      return;
    }
    case "poll_vote": {
      const poll = state.messagesById.get(content.pollId);
      if (poll?.content.type !== "poll") throw new SimnetError("invalid_target", `no poll ${content.pollId}`);
      const { options, multipleAnswers } = poll.content;
      const unknown = content.votes.filter((v) => !options.includes(v));
      if (unknown.length > 0)
        throw new SimnetError("validation_error", `not options of the poll: ${unknown.join(", ")}`);
      if (!multipleAnswers && content.votes.length > 1)
        throw new SimnetError("validation_error", "this poll takes one answer");
      return;
    }
  }
}

/** A first message to a peer opens a conversation: counted in the quota, refused while restricted. */
function openConversation(state: SimnetState, sender: Account, peer: Account): void {
  if (sender.conversations.has(peer.phone)) return;
  const timelock = state.timelock(sender);
  if (timelock.isActive && (timelock.timeEnforcementEnds === 0 || timelock.timeEnforcementEnds > nowSeconds()))
    throw new SimnetError("restricted", "this account cannot start new conversations now (timelock)");
  const capping = state.capping(sender);
  if (capping.cappingStatus !== "NONE" && capping.usedQuota >= capping.totalQuota)
    throw new SimnetError("restricted", "this account used its new-conversation quota (capping)");
  sender.usedQuota++;
  sender.conversations.add(peer.phone);
  peer.conversations.add(sender.phone);
}

export function sendMessage(state: SimnetState, sender: Account, origin: Origin, args: SendInput): SendResult {
  // Status posts and channel posts have their own fan-out (areas/status-posts.ts, areas/channels-model.ts).
  if (args.to === STATUS_CHAT) return postStatus(state, sender, origin, args);
  if (args.to.endsWith("@newsletter")) return postToChannel(state, sender, origin, args);
  if (args.id) {
    // The same id again is the same message, unless the network refused it: then it is a new try
    // (to the contact's other address, say), as on the real network.
    const prev = state.messagesByKey.get(`${sender.phone}|${args.id}`);
    if (prev && !prev.failed) return { id: prev.id, timestamp: prev.timestamp, chatId: prev.chatId };
  }
  const target = resolveTarget(state, args.to);
  checkReferences(state, sender, args.message);
  let recipients: Account[];
  /** The network's error for a message it accepts and then refuses (addressing-rules.ts). */
  let refusal: number | null = null;
  if (target.kind === "group") {
    const g = target.group;
    if (!g.participants.has(sender.phone))
      throw new SimnetError("network_rejected", `${sender.phone} is not a participant of ${g.id}`);
    if (g.onlyAdminsCanSend && !g.admins.has(sender.phone))
      throw new SimnetError("network_rejected", `only admins can send to ${g.id}`);
    recipients = [...g.participants].flatMap((p) => {
      const acc = p === sender.phone ? undefined : state.accounts.get(p);
      return acc ? [acc] : [];
    });
  } else {
    if (target.acc !== sender) {
      // The app refuses to write to someone it blocked ("unblock to send").
      if (blocks(state, sender.phone, target.acc.phone))
        throw new SimnetError("blocked", `${sender.phone} blocked ${target.acc.phone}: unblock to send`);
      refusal = oneToOneVerdict(target.acc, addressForm(args.to), target.acc.wroteTo.has(sender.phone));
      if (refusal === null) {
        openConversation(state, sender, target.acc);
        sender.wroteTo.add(target.acc.phone);
      }
    }
    // Someone who blocked the sender never gets it: the server accepts it (`sent`) and delivers nothing.
    const unreached = target.acc === sender || refusal !== null || blocks(state, target.acc.phone, sender.phone);
    recipients = unreached ? [] : [target.acc];
  }

  const msg: StoredMessage = {
    seq: state.nextSeq(),
    id: args.id ?? newMessageId(),
    senderPhone: sender.phone,
    origin: origin.kind,
    deviceId: origin.kind === "device" ? origin.device.deviceId : null,
    instanceId: origin.kind === "device" ? origin.device.instanceId : null,
    to: args.to,
    chatId: target.chatId,
    groupId: target.kind === "group" ? target.group.id : null,
    recipientPhone: target.kind === "user" ? target.acc.phone : null,
    timestamp: nowSeconds(),
    at: Date.now(),
    content: args.message,
    ...(args.quotedId ? { quotedId: args.quotedId } : {}),
    ...(args.mentions ? { mentions: args.mentions } : {}),
    ...(args.forwarded ? { forwarded: true } : {}),
    receipts: new Map(),
    // Accepted by the server: `sent` from the start (as on the real network, where the server's
    // ack answers the send itself).
    level: LEVEL.sent,
    acks: [],
    timer: null,
  };
  const key = `${sender.phone}|${msg.id}`;
  state.messagesByKey.set(key, msg);
  state.messagesById.set(msg.id, msg);
  state.push(sender.sent, msg, (old) => {
    if (state.messagesByKey.get(`${old.senderPhone}|${old.id}`) === old)
      state.messagesByKey.delete(`${old.senderPhone}|${old.id}`);
    if (state.messagesById.get(old.id) === old) state.messagesById.delete(old.id);
    state.cancel(old.timer);
    old.timer = null;
  });
  state.stats.messagesSent++;

  for (const r of recipients) {
    msg.receipts.set(r.phone, { delivered: false, read: false, played: false });
    state.push(r.inbox, msg);
  }
  for (const r of recipients) {
    if (r.devices.size === 0) {
      markDelivered(state, msg, r.phone); // a virtual contact: the phone itself receives it
      continue;
    }
    for (const id of r.devices) {
      const device = state.devices.get(id);
      if (device)
        state.deliverToDevice(device, frameFor(state, msg, r, false), () => markDelivered(state, msg, r.phone));
    }
  }
  // The sender's other linked devices see what it sent (fromMe), then its `sent`; the device that
  // sent it has its answer instead.
  const own = origin.kind === "device" ? origin.device : undefined;
  for (const id of sender.devices) {
    const device = state.devices.get(id);
    if (device && device !== own) state.deliverToDevice(device, frameFor(state, msg, sender, true));
  }
  announce(state, msg, "sent", own);
  if (refusal !== null) refuseLater(state, msg, refusal);
  else pump(state, msg);
  return { id: msg.id, timestamp: msg.timestamp, chatId: msg.chatId };
}
