// Messages between accounts: routing (one-to-one, groups, lids), delivery to devices (queued while
// offline), the ack clock, read receipts, number lookups (presence: presence.ts).
import { addressForm, errorNote, oneToOneVerdict } from "./addressing-rules.ts";
import { postToChannel } from "./channels-model.ts";
import { blocks } from "./contacts-model.ts";
import { SimnetError } from "./errors.ts";
import { newMessageId, nowSeconds, phoneDigits } from "./ids.ts";
import {
  ACK_STATUSES,
  type AckStatus,
  type GroupMetadata,
  type MessageContent,
  type MessageFrame,
  type SendArgs,
} from "./protocol.ts";
import type { Account, Device, Group, Receipt, SimnetState, StoredMessage } from "./state.ts";
import { postStatus, STATUS_CHAT } from "./status.ts";

export type Origin = { kind: "device"; device: Device } | { kind: "phone" };

type Target = { kind: "user"; acc: Account; chatId: string } | { kind: "group"; group: Group; chatId: string };

/** `to` as digits (ninth-digit tolerant), `<digits>@c.us`, `<digits>@lid` or `<digits>@g.us`. */
export function resolveTarget(state: SimnetState, to: string): Target {
  if (to.endsWith("@g.us")) {
    const group = state.groups.get(to);
    if (!group) throw new SimnetError("not_on_network", `no group ${to}`);
    return { kind: "group", group, chatId: group.id };
  }
  if (to.endsWith("@lid")) {
    const acc = state.accountsByLid.get(to);
    if (!acc) throw new SimnetError("not_on_network", `no account has the lid ${to}`);
    return { kind: "user", acc, chatId: acc.lid };
  }
  if (!phoneDigits(to)) throw new SimnetError("bad_request", `not a chat id: ${to}`);
  const acc = state.findAccount(to);
  if (!acc) throw new SimnetError("not_on_network", `${to} is not on the network`);
  return { kind: "user", acc, chatId: `${acc.phone}@c.us` };
}

// --- frames ------------------------------------------------------------------------------------

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

// --- the ack clock -----------------------------------------------------------------------------

const LEVEL = { sent: 0, delivered: 1, read: 2, played: 3 } as const;

function receiptLevel(r: Receipt): number {
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
function announce(state: SimnetState, msg: StoredMessage, status: AckStatus | "failed", skip?: Device): void {
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
function pump(state: SimnetState, msg: StoredMessage): void {
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

function markDelivered(state: SimnetState, msg: StoredMessage, phone: string): void {
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

// --- sending -----------------------------------------------------------------------------------

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

export interface SendResult {
  id: string;
  timestamp: number;
  chatId: string;
}

export interface SendInput extends Omit<SendArgs, "message"> {
  message: MessageContent;
}

export function sendMessage(state: SimnetState, sender: Account, origin: Origin, args: SendInput): SendResult {
  // Status posts and channel posts have their own fan-out (status.ts, channels-model.ts).
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

// --- lookups -----------------------------------------------------------------------------------

export function checkExists(
  state: SimnetState,
  viewerPhone: string | null,
  raw: string,
): { exists: boolean; chatId: string | null; lid: string | null } {
  if (!phoneDigits(raw)) throw new SimnetError("bad_request", `not a phone number: ${raw}`);
  const acc = state.findAccount(raw);
  if (!acc) return { exists: false, chatId: null, lid: null };
  return {
    exists: true,
    chatId: `${acc.phone}@c.us`,
    lid: state.phoneVisible(acc, viewerPhone) ? acc.lid : null,
  };
}

export function groupMetadata(state: SimnetState, group: Group, viewerPhone: string | null): GroupMetadata {
  return {
    id: group.id,
    subject: group.subject,
    onlyAdminsCanSend: group.onlyAdminsCanSend,
    creation: group.creation,
    participants: [...group.participants].flatMap((p) => {
      const acc = state.accounts.get(p);
      return acc ? [{ ...state.peer(acc, viewerPhone), admin: group.admins.has(p) }] : [];
    }),
  };
}

// --- control API views -------------------------------------------------------------------------

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
