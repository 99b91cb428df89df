// Channels (newsletters) on the simulated network: the channels (records in channels-types.ts)
// with their owner, admins, followers and posts; what a viewer sees of them; posting (a `send` to
// `<id>@newsletter`), reactions and deletions. The wire operations and control API are in
// channels.ts, the directory's order in channels-directory.ts (docs/simnet.md "Channels").
import { randomInt } from "node:crypto";
import { SimnetError } from "../errors.ts";
import { CROCKFORD, newMessageId, nowSeconds } from "../ids.ts";
import type { Origin, SendInput, SendResult } from "../messaging/types.ts";
import type { Account, SimPicture } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { Media, MessageContent, MessageFrame } from "../wire/protocol.ts";
import { countryOfPhone } from "./channels-directory.ts";
import type { Channel, ChannelRole, Post } from "./channels-types.ts";

interface ChannelsMemory {
  channels: Map<string, Channel>;
  byInvite: Map<string, string>;
}

export const channelsMemory = (state: SimnetState) =>
  state.area<ChannelsMemory>("channels", () => ({ channels: new Map(), byInvite: new Map() }));

export function requireChannel(state: SimnetState, ref: { id?: string; invite?: string }): Channel {
  const mem = channelsMemory(state);
  const id = ref.id ?? mem.byInvite.get(ref.invite ?? "");
  const ch = id ? mem.channels.get(id) : undefined;
  if (!ch) throw new SimnetError("not_found", `no channel ${ref.id ?? `with invite ${ref.invite}`}`);
  return ch;
}

export function roleOf(ch: Channel, phone: string): ChannelRole {
  if (ch.owner === phone) return "owner";
  if (ch.admins.has(phone)) return "admin";
  return ch.followers.has(phone) ? "subscriber" : "guest";
}

const isStaff = (ch: Channel, phone: string) => ch.owner === phone || ch.admins.has(phone);

/** The channel as `viewer` sees it; without a viewer, as the directory lists it (no role). */
export function channelView(ch: Channel, viewer: Account | null) {
  const role = viewer ? roleOf(ch, viewer.phone) : null;
  const muted = viewer
    ? (ch.followers.get(viewer.phone)?.muted ?? (isStaff(ch, viewer.phone) && ch.mutedStaff.has(viewer.phone)))
    : false;
  return {
    id: ch.id,
    name: ch.name,
    description: ch.description,
    invite: ch.invite,
    picture: ch.picture,
    // One rendition of the picture serves as its preview.
    preview: ch.picture,
    ...(role ? { role } : {}),
    subscribersCount: ch.followers.size,
    verified: ch.verified,
    ...(role && role !== "guest" ? { muted } : {}),
  };
}

// --- creating and following ----------------------------------------------------------------------

const randomCode = (n: number) => {
  const alphabet = `${CROCKFORD}abcdefghijkmnpqrstuvwxyz`;
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
};

export interface NewChannel {
  name: string;
  description?: string | undefined;
  picture?: SimPicture | null | undefined;
  category?: string | null | undefined;
  country?: string | null | undefined;
  verified?: boolean | undefined;
}

export function createChannel(state: SimnetState, owner: Account, input: NewChannel): Channel {
  const mem = channelsMemory(state);
  let id = `120363${String(randomInt(1e11, 1e12 - 1))}@newsletter`;
  while (mem.channels.has(id)) id = `120363${String(randomInt(1e11, 1e12 - 1))}@newsletter`;
  let invite = `0029Va${randomCode(16)}`;
  while (mem.byInvite.has(invite)) invite = `0029Va${randomCode(16)}`;
  const ch: Channel = {
    id,
    name: input.name,
    description: input.description ?? "",
    invite,
    picture: input.picture ?? null,
    owner: owner.phone,
    admins: new Set(),
    followers: new Map(),
    mutedStaff: new Set(),
    verified: input.verified ?? false,
    category: input.category ?? null,
    country: input.country === undefined ? countryOfPhone(owner.phone) : input.country,
    createdAt: Date.now(),
    seq: state.nextSeq(),
    posts: [],
    nextServerId: 100,
  };
  mem.channels.set(id, ch);
  mem.byInvite.set(invite, id);
  return ch;
}

/** Follows (a no-op for its staff and for followers), stops following, mutes or unmutes. */
export function setFollowing(ch: Channel, acc: Account, action: "follow" | "unfollow" | "mute" | "unmute"): void {
  const phone = acc.phone;
  const staff = isStaff(ch, phone);
  switch (action) {
    case "follow":
      if (!staff && !ch.followers.has(phone)) ch.followers.set(phone, { muted: false, since: Date.now() });
      return;
    case "unfollow":
      if (ch.owner === phone) throw new SimnetError("network_rejected", "the owner cannot stop following its channel");
      ch.admins.delete(phone);
      ch.followers.delete(phone);
      return;
    default: {
      const muted = action === "mute";
      const follower = ch.followers.get(phone);
      if (follower) follower.muted = muted;
      else if (staff) muted ? ch.mutedStaff.add(phone) : ch.mutedStaff.delete(phone);
      else throw new SimnetError("network_rejected", `${phone} does not follow ${ch.id}`);
    }
  }
}

// --- posts ---------------------------------------------------------------------------------------

const channelPeer = (ch: Channel): MessageFrame["from"] => ({ id: ch.id, phone: null, lid: null, pushName: ch.name });

/** A post as one device of `viewer` gets it: from the channel, or (its sender's other devices) `fromMe`. */
function frameOf(state: SimnetState, ch: Channel, post: Post, viewer: Account, content: MessageContent): MessageFrame {
  const fromMe = viewer.phone === post.senderPhone;
  return {
    type: "message",
    id: post.id,
    chatId: ch.id,
    chatLid: null,
    chatName: ch.name,
    isGroup: false,
    fromMe,
    from: fromMe ? state.peer(viewer, viewer.phone) : channelPeer(ch),
    ...(fromMe ? { origin: post.origin } : {}),
    timestamp: post.timestamp,
    message: content,
  };
}

/** To the devices of its owner, admins and followers (muted ones too), but the one that sent it. */
function fanOut(state: SimnetState, ch: Channel, post: Post, origin: Origin, content: MessageContent): void {
  const own = origin.kind === "device" ? origin.device : undefined;
  const phones = new Set([ch.owner, ...ch.admins, ...ch.followers.keys()]);
  for (const phone of phones) {
    const acc = state.accounts.get(phone);
    for (const id of acc?.devices ?? []) {
      const device = state.devices.get(id);
      if (acc && device && device !== own) state.deliverToDevice(device, frameOf(state, ch, post, acc, content));
    }
  }
}

export function findPost(ch: Channel, ref: string): Post {
  const post = ch.posts.find((p) => p.id === ref || String(p.serverId) === ref);
  if (!post || post.deletedAt !== null) throw new SimnetError("invalid_target", `no post ${ref} in ${ch.id}`);
  return post;
}

const NOT_POSTS = new Set(["poll_vote", "event_response", "edit", "list"]);

/** A `send` to `<id>@newsletter` (messaging/send.ts routes it here): a post, a reaction, or a deletion. */
export function postToChannel(state: SimnetState, sender: Account, origin: Origin, args: SendInput): SendResult {
  if (!/^\d{5,25}@newsletter$/.test(args.to)) throw new SimnetError("bad_request", `not a chat id: ${args.to}`);
  const ch = requireChannel(state, { id: args.to });
  const content = args.message;
  const timestamp = nowSeconds();
  if (content.type === "reaction") {
    react(state, ch, findPost(ch, content.targetId), { phone: sender.phone, emoji: content.emoji });
    return { id: args.id ?? newMessageId(), timestamp, chatId: ch.id };
  }
  if (!isStaff(ch, sender.phone)) {
    throw new SimnetError("network_rejected", `only the owner and admins of ${ch.id} can post`);
  }
  if (args.id) {
    const prev = ch.posts.find((p) => p.id === args.id && p.senderPhone === sender.phone);
    if (prev) return { id: prev.id, timestamp: prev.timestamp, chatId: ch.id };
  }
  if (content.type === "revoke") {
    const post = findPost(ch, content.targetId);
    post.deletedAt = Date.now();
    const id = args.id ?? newMessageId();
    fanOut(state, ch, { ...post, id, timestamp, senderPhone: sender.phone, origin: origin.kind }, origin, content);
    return { id, timestamp, chatId: ch.id };
  }
  if (NOT_POSTS.has(content.type)) throw new SimnetError("bad_request", `a channel post cannot be a ${content.type}`);
  const post: Post = {
    id: args.id ?? newMessageId(),
    serverId: ch.nextServerId++,
    senderPhone: sender.phone,
    origin: origin.kind,
    timestamp,
    at: Date.now(),
    content,
    reactions: new Map(),
    reactors: new Map(),
    views: 0,
    deletedAt: null,
  };
  state.push(ch.posts, post);
  state.stats.messagesSent++;
  fanOut(state, ch, post, origin, content);
  return { id: post.id, timestamp, chatId: ch.id };
}

/**
 * A reaction changes a post's counts: an account's own (replacing its earlier one; "" removes it)
 * or `count` anonymous ones (control API). The channel's owner and admins are told
 * (`message.reaction` with the emoji's new `count`).
 */
export function react(
  state: SimnetState,
  ch: Channel,
  post: Post,
  change: { phone?: string | undefined; emoji: string; count?: number | undefined },
): void {
  const bump = (emoji: string, by: number) => {
    const n = (post.reactions.get(emoji) ?? 0) + by;
    if (n > 0) post.reactions.set(emoji, n);
    else post.reactions.delete(emoji);
  };
  if (change.phone) {
    const before = post.reactors.get(change.phone);
    if (before) bump(before, -1);
    if (change.emoji) post.reactors.set(change.phone, change.emoji);
    else post.reactors.delete(change.phone);
  }
  if (change.emoji) bump(change.emoji, change.phone ? 1 : (change.count ?? 1));
  const timestamp = nowSeconds();
  for (const phone of new Set([ch.owner, ...ch.admins])) {
    const acc = state.accounts.get(phone);
    if (!acc) continue;
    const messageId = `${post.senderPhone === phone}_${ch.id}_${post.id}`;
    state.deliverEvent(acc, "message.reaction", {
      id: messageId,
      chatId: ch.id,
      isGroup: false,
      fromMe: false,
      from: { id: ch.id, phone: "", lid: null, pushName: ch.name },
      timestamp,
      messageId,
      serverId: String(post.serverId),
      emoji: change.emoji,
      count: change.emoji ? (post.reactions.get(change.emoji) ?? 0) : 0,
    });
  }
}

// --- what a viewer reads -------------------------------------------------------------------------

const TYPE: Record<string, string> = { link_preview: "text", contacts: "contact" };
const MEDIA = new Set(["image", "video", "audio", "voice", "document", "sticker"]);

function textOf(c: MessageContent): string | null {
  const v =
    (c as Record<string, unknown>).text ?? (c as Record<string, unknown>).caption ?? ("name" in c ? c.name : null);
  return typeof v === "string" ? v : null;
}

/** The newest `limit` posts, newest first, with their counts; media bytes only when asked for. */
export function previewOf(ch: Channel, viewer: Account, limit: number, withMedia: boolean) {
  const posts = ch.posts
    .filter((p) => p.deletedAt === null)
    .slice(-limit)
    .reverse();
  return posts.map((p) => {
    const c = p.content;
    const media = MEDIA.has(c.type) ? ((c as { media?: Media }).media ?? null) : null;
    const { media: _m, ...rest } = c as MessageContent & { media?: unknown };
    return {
      id: p.id,
      serverId: String(p.serverId),
      fromMe: p.senderPhone === viewer.phone,
      timestamp: p.timestamp,
      type: TYPE[c.type] ?? c.type,
      text: textOf(c),
      media: media
        ? {
            mimetype: media.mimetype,
            filename: media.filename ?? null,
            data: withMedia ? media.data : null,
            url: null,
          }
        : null,
      // Spec 2.8: coordinates as strings.
      location:
        c.type === "location"
          ? {
              latitude: String(c.latitude),
              longitude: String(c.longitude),
              name: c.name ?? null,
              address: c.address ?? null,
              url: c.url ?? null,
              live: Boolean(c.live),
            }
          : null,
      reactions: Object.fromEntries(p.reactions),
      viewCount: p.views,
      raw: media ? { ...rest, media: { mimetype: media.mimetype, filename: media.filename ?? null } } : c,
    };
  });
}
