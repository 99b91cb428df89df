// Status posts on the simulated network (spec 4.8; docs/simnet.md "Status posts"): a `send` to
// `status@broadcast` (messaging/send.ts routes it here) reaches the devices of its audience only,
// as a `message` frame with `chatId` `status@broadcast`; the network remembers who got each post,
// so a deletion (`revoke`) reaches the same people. The control API's views are in status.ts.
import { errorNote, statusVerdict } from "../addressing-rules.ts";
import { SimnetError } from "../errors.ts";
import { newMessageId, nowSeconds, phoneDigits } from "../ids.ts";
import type { Origin, SendInput, SendResult } from "../messaging/types.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { MessageContent, MessageFrame } from "../wire/protocol.ts";

export const STATUS_CHAT = "status@broadcast";

export interface StatusPost {
  seq: number;
  id: string;
  senderPhone: string;
  origin: "device" | "phone";
  deviceId: string | null;
  instanceId: string | null;
  timestamp: number;
  at: number;
  content: MessageContent;
  style: { backgroundColor?: string; font?: number };
  /** The phones it was shown to. */
  audience: string[];
  deletedAt: number | null;
  /** Accepted, then refused by the network (addressing-rules.ts): shown to nobody. */
  refused?: { code: number; message: string };
}

export interface FeedEntry {
  seq: number;
  at: number;
  post: StatusPost;
}

interface StatusMemory {
  /** By `<senderPhone>|<id>`. */
  posts: Map<string, StatusPost>;
  /** What each phone was shown, oldest first. */
  feeds: Map<string, FeedEntry[]>;
  /** What each phone posted, oldest first. */
  posted: Map<string, StatusPost[]>;
}

export const statusMemory = (state: SimnetState) =>
  state.area<StatusMemory>("status", () => ({ posts: new Map(), feeds: new Map(), posted: new Map() }));

/**
 * The accounts of an audience (numbers, `@c.us`, `@lid`); unknown ones are skipped, as the network
 * skips them. A linked device must name its audience (as Baileys' `statusJidList`); the phone
 * itself (control API) defaults to its one-to-one conversations, as the app does.
 */
function audienceOf(state: SimnetState, sender: Account, origin: Origin, ids: string[] | undefined): Account[] {
  if (!ids && origin.kind === "device") throw new SimnetError("bad_request", "a status post needs its audience");
  const out = new Map<string, Account>();
  const wanted = ids ?? [...sender.conversations];
  for (const raw of wanted) {
    const acc = raw.endsWith("@lid") ? state.accountsByLid.get(raw) : state.findAccount(phoneDigits(raw) ?? "");
    if (acc && acc !== sender) out.set(acc.phone, acc);
  }
  return [...out.values()];
}

/** The post as one device of `viewer` gets it (the style rides on the content). */
function frameOf(state: SimnetState, post: StatusPost, viewer: Account, content: MessageContent): MessageFrame {
  const sender = state.accounts.get(post.senderPhone) ?? viewer;
  const fromMe = viewer === sender;
  return {
    type: "message",
    id: post.id,
    chatId: STATUS_CHAT,
    chatLid: null,
    // The status chat has no name of its own (a contact's name would be learnt as its name).
    chatName: "",
    isGroup: false,
    fromMe,
    from: state.peer(sender, viewer.phone),
    ...(fromMe ? { origin: post.origin } : {}),
    timestamp: post.timestamp,
    message: content,
  };
}

/** To every device of the audience, and to the sender's other devices (`fromMe`). */
function fanOut(state: SimnetState, post: StatusPost, origin: Origin, content: MessageContent): void {
  const own = origin.kind === "device" ? origin.device : undefined;
  const sender = state.accounts.get(post.senderPhone);
  const viewers = post.audience.flatMap((p) => state.accounts.get(p) ?? []);
  for (const acc of sender ? [...viewers, sender] : viewers) {
    for (const id of acc.devices) {
      const device = state.devices.get(id);
      if (device && device !== own) state.deliverToDevice(device, frameOf(state, post, acc, content));
    }
  }
}

/**
 * A `send` to `status@broadcast` (messaging/send.ts routes it here): a new post, or, with a `revoke`
 * of one of the sender's posts, its deletion for everyone who got it.
 */
export function postStatus(state: SimnetState, sender: Account, origin: Origin, args: SendInput): SendResult {
  const mem = statusMemory(state);
  if (args.id) {
    const prev = mem.posts.get(`${sender.phone}|${args.id}`);
    if (prev) return { id: prev.id, timestamp: prev.timestamp, chatId: STATUS_CHAT };
  }
  const content = args.message;
  if (content.type === "revoke") return deleteStatus(state, sender, origin, content.targetId, args.id);
  if (!["text", "image", "video", "voice", "audio", "link_preview"].includes(content.type)) {
    throw new SimnetError("bad_request", `a status post cannot be a ${content.type}`);
  }
  const style = {
    ...(args.status?.backgroundColor ? { backgroundColor: args.status.backgroundColor } : {}),
    ...(args.status?.font !== undefined ? { font: args.status.font } : {}),
  };
  const post: StatusPost = {
    seq: state.nextSeq(),
    id: args.id ?? newMessageId(),
    senderPhone: sender.phone,
    origin: origin.kind,
    deviceId: origin.kind === "device" ? origin.device.deviceId : null,
    instanceId: origin.kind === "device" ? origin.device.instanceId : null,
    timestamp: nowSeconds(),
    at: Date.now(),
    content,
    style,
    audience: audienceOf(state, sender, origin, args.status?.audience).map((a) => a.phone),
    deletedAt: null,
  };
  // A linked device names its audience; the network may refuse how it did (the phone app never errs).
  const refusal = origin.kind === "device" ? statusVerdict(sender, args.status?.audience ?? []) : null;
  if (refusal !== null) {
    post.audience = [];
    post.refused = { code: refusal, message: errorNote(refusal) };
  }
  mem.posts.set(`${sender.phone}|${post.id}`, post);
  const posted = mem.posted.get(sender.phone) ?? [];
  mem.posted.set(sender.phone, posted);
  state.push(posted, post, (old) => mem.posts.delete(`${old.senderPhone}|${old.id}`));
  for (const phone of post.audience) {
    const feed = mem.feeds.get(phone) ?? [];
    mem.feeds.set(phone, feed);
    state.push(feed, { seq: state.nextSeq(), at: Date.now(), post });
  }
  state.stats.messagesSent++;
  if (post.refused) refuseLater(state, sender, post);
  else fanOut(state, post, origin, { ...content, ...style } as MessageContent);
  return { id: post.id, timestamp: post.timestamp, chatId: STATUS_CHAT };
}

/** One ack step later the sender's devices learn the post was refused (`failed`, with the code). */
function refuseLater(state: SimnetState, sender: Account, post: StatusPost): void {
  state.later(state.opts.ackDelayMs, () => {
    for (const id of sender.devices) {
      const device = state.devices.get(id);
      if (!device) continue;
      state.deliverToDevice(device, {
        type: "ack",
        id: post.id,
        chatId: STATUS_CHAT,
        status: "failed",
        timestamp: nowSeconds(),
        ...(post.refused ? { error: post.refused } : {}),
      });
    }
  });
}

function deleteStatus(
  state: SimnetState,
  sender: Account,
  origin: Origin,
  targetId: string,
  id: string | undefined,
): SendResult {
  const post = statusMemory(state).posts.get(`${sender.phone}|${targetId}`);
  if (!post || post.deletedAt !== null) {
    throw new SimnetError("invalid_target", `${sender.phone} has no status post ${targetId}`);
  }
  post.deletedAt = Date.now();
  const revoke: StatusPost = { ...post, id: id ?? newMessageId(), timestamp: nowSeconds(), origin: origin.kind };
  fanOut(state, revoke, origin, { type: "revoke", targetId });
  return { id: revoke.id, timestamp: revoke.timestamp, chatId: STATUS_CHAT };
}
