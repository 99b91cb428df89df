import {
  ApiError,
  type ChannelRole,
  type ProviderChannel,
  type ProviderPicture,
  type ProviderPost,
} from "@gw/contracts";
import {
  type BinaryNode,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  isJidNewsletter,
  normalizeMessageContent,
  proto,
  S_WHATSAPP_NET,
  type WASocket,
} from "@whiskeysockets/baileys";
import { channelReactionMessage } from "../../channel-reaction.ts";
import { parseStoredMessage, toInboundMessage } from "../inbound/inbound.ts";
import { nowSeconds } from "../seconds.ts";
import type { BaileysAreaModule } from "./area.ts";

/**
 * Channels (newsletters) on the real network through Baileys 7 (rc14, `Socket/newsletter.js`):
 *
 * | operation | Baileys |
 * |---|---|
 * | create | `newsletterCreate(name, description)`, then `newsletterUpdatePicture(jid, bytes)` and `newsletterMetadata("jid")` |
 * | get | `newsletterMetadata("jid" \| "invite", key)` (null: 404) |
 * | follow / unfollow / mute / unmute | `newsletterFollow` / `newsletterUnfollow` / `newsletterMute` / `newsletterUnmute` |
 * | preview | our own `<messages type="jid">` query ({@link fetchPosts}), whose `<message>` nodes carry the post (`<plaintext>`), `<views_count>` and `<reactions>` |
 * | list, directory search and lookups | none in the package: 501 from the capability table |
 *
 * Notifications: `newsletter.reaction` → a reaction message of the channel (providers/channel-reaction.ts),
 * which the session publishes as every reaction (`message.reaction`, `chatId` `<id>@newsletter`); views,
 * participant and settings notifications have no event of the spec and are not emitted. Posts
 * of followed channels arrive through the session's `messages.upsert` path as any message.
 */

const CDN = "https://mmg.whatsapp.net";
const ROLES: Record<string, ChannelRole> = { OWNER: "owner", ADMIN: "admin", SUBSCRIBER: "subscriber", GUEST: "guest" };
const NOT_FOUND = () => new ApiError("not_found", "Canal não encontrado.");

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose => (v && typeof v === "object" ? (v as Loose) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");
/** A text field of the metadata: `{text}` in the network's answer, a plain string in Baileys' parsed create. */
const text = (v: unknown): string => (typeof v === "string" ? v : str(obj(v).text));

function picture(v: unknown): ProviderPicture {
  const p = obj(v);
  const path = str(p.direct_path) || str(p.directPath);
  if (path) return { url: `${CDN}${path.startsWith("/") ? "" : "/"}${path}` };
  return str(p.url) ? { url: str(p.url) } : null;
}

/**
 * A channel from `newsletterMetadata` (the network's `{id, thread_metadata, viewer_metadata}`, which
 * rc14 returns as is despite its type) or from `newsletterCreate` (Baileys' flattened form).
 */
export function channelOf(raw: unknown, fallbackRole?: ChannelRole): ProviderChannel {
  const m = obj(raw);
  const thread = Object.keys(obj(m.thread_metadata)).length ? obj(m.thread_metadata) : m;
  const viewer = obj(m.viewer_metadata);
  const role = ROLES[str(viewer.role).toUpperCase()] ?? fallbackRole;
  const mute = str(viewer.mute) || str(m.mute_state);
  const count = Number(thread.subscribers_count ?? thread.subscribers ?? 0);
  return {
    id: str(m.id),
    name: text(thread.name),
    description: text(thread.description),
    invite: str(thread.invite),
    picture: picture(thread.picture),
    preview: picture(thread.preview),
    ...(role ? { role } : {}),
    subscribersCount: Number.isFinite(count) ? Math.floor(count) : 0,
    verified: str(thread.verification) === "VERIFIED",
    ...(role && role !== "guest" && mute ? { muted: mute === "ON" } : {}),
  };
}

/**
 * A channel's latest posts with their content: WA Web's "get newsletter messages" IQ, to the server,
 * `<messages type="jid" jid count>`, as whatsmeow's `GetNewsletterMessages` and Baileys' unreleased
 * newsletter branches send it. rc14 has no call for it: its `newsletterFetchMessages` sends
 * `<message_updates>` to the channel (`Socket/newsletter.js:124-150`), which the network answers
 * with view and reaction counts only, no `<plaintext>`.
 */
function fetchPosts(sock: WASocket, jid: string, count: number): Promise<unknown> {
  return sock.query({
    tag: "iq",
    attrs: { id: sock.generateMessageTag(), type: "get", xmlns: "newsletter", to: S_WHATSAPP_NET },
    content: [{ tag: "messages", attrs: { type: "jid", jid, count: String(count) } }],
  });
}

/** The post nodes of a {@link fetchPosts} answer: `<iq><messages jid><message>…`. */
function postNodes(result: unknown): BinaryNode[] {
  const root = obj(result) as unknown as BinaryNode;
  if (!root.tag) return [];
  return getBinaryNodeChildren(getBinaryNodeChild(root, "messages"), "message");
}

function mediaPath(m: proto.IMessage | undefined): string | null {
  const c = normalizeMessageContent(m);
  const node =
    c?.imageMessage ?? c?.videoMessage ?? c?.ptvMessage ?? c?.audioMessage ?? c?.documentMessage ?? c?.stickerMessage;
  return node?.directPath ? `${CDN}${node.directPath}` : null;
}

/** One `<message>` node as a post; media as the network's public link (channel media is not encrypted). */
async function postOf(
  jid: string,
  node: BinaryNode,
  withMedia: boolean,
  sentByUs: (id: string) => Promise<boolean>,
): Promise<ProviderPost | null> {
  const serverId = node.attrs.server_id ?? "";
  const id = node.attrs.id || node.attrs.message_id || serverId;
  if (!id) return null;
  const plaintext = getBinaryNodeChild(node, "plaintext")?.content;
  let message: proto.Message | undefined;
  if (plaintext instanceof Uint8Array) {
    try {
      message = proto.Message.decode(plaintext);
    } catch {
      message = undefined;
    }
  }
  const fromMe = await sentByUs(id);
  const timestamp = Number(node.attrs.t) || nowSeconds();
  const inbound = message
    ? await toInboundMessage({ key: { remoteJid: jid, id, fromMe }, message, messageTimestamp: timestamp })
    : null;
  const reactions: Record<string, number> = {};
  for (const r of getBinaryNodeChildren(getBinaryNodeChild(node, "reactions"), "reaction")) {
    if (r.attrs.code) reactions[r.attrs.code] = Number(r.attrs.count) || 0;
  }
  const content = inbound?.content;
  return {
    id,
    serverId,
    fromMe,
    timestamp,
    type: inbound?.type ?? "unknown",
    text: inbound?.text ?? null,
    media: inbound?.media
      ? {
          mimetype: inbound.media.mimetype,
          filename: inbound.media.filename ?? null,
          data: null,
          url: withMedia ? mediaPath(message) : null,
        }
      : null,
    location:
      content?.type === "location"
        ? {
            latitude: String(content.latitude),
            longitude: String(content.longitude),
            name: content.name ?? null,
            address: content.address ?? null,
          }
        : null,
    reactions,
    viewCount: Number(getBinaryNodeChild(node, "views_count")?.attrs.count) || 0,
    raw: message ? message.toJSON() : { attrs: node.attrs },
  };
}

/** Channel posts seen live (`messages.upsert`): reactions name them by server id. */
const MAX_KNOWN_POSTS = 5_000;

export const baileysChannels: BaileysAreaModule = (area) => {
  const posts = new Map<string, { id: string; fromMe: boolean }>();
  const remember = (jid: string, serverId: string, id: string, fromMe: boolean) => {
    if (posts.size >= MAX_KNOWN_POSTS) posts.delete(posts.keys().next().value as string);
    posts.set(`${jid}|${serverId}`, { id, fromMe });
  };

  area.onSocket((sock, current) => {
    sock.ev.on("messages.upsert", ({ messages }) => {
      for (const m of messages) {
        const k = m.key;
        if (k?.remoteJid && isJidNewsletter(k.remoteJid) && k.server_id && k.id) {
          remember(k.remoteJid, k.server_id, k.id, Boolean(k.fromMe));
        }
      }
    });
    sock.ev.on("newsletter.reaction", (notification) => {
      const { id, server_id, reaction } = notification;
      if (!current() || !server_id) return;
      // The post's id is known once it was seen live; the reaction's own id never depends on it.
      const post = posts.get(`${id}|${server_id}`);
      const message = channelReactionMessage({
        channelId: id,
        serverId: String(server_id),
        postId: post?.id ?? null,
        postFromMe: post?.fromMe ?? null,
        emoji: reaction.removed ? "" : (reaction.code ?? ""),
        timestamp: nowSeconds(),
        raw: notification,
      });
      area.ctx.emit({ type: "message", message });
    });
  });

  const meta = async (sock: WASocket, type: "jid" | "invite", key: string) => {
    const found = await sock.newsletterMetadata(type, key).catch((err: unknown) => {
      // The network answers an unknown channel with a GraphQL "not found" (404), or nothing.
      const status = (err as { output?: { statusCode?: number } }).output?.statusCode;
      if (status === 404 || /not.?found|item-not-found/i.test(String((err as Error).message))) throw NOT_FOUND();
      throw err;
    });
    if (!found || !obj(found).id) throw NOT_FOUND();
    return found;
  };
  const act = (op: string, run: (sock: WASocket, jid: string) => Promise<unknown>) => (input: { id: string }) =>
    area.call(op, async (sock) => {
      await meta(sock, "jid", input.id); // an unknown channel is a 404, not the network's generic refusal
      await run(sock, input.id);
      return {};
    });

  return {
    "channels.create": (input) =>
      area.call("channels.create", async (sock) => {
        const created = await sock.newsletterCreate(input.name, input.description);
        if (!input.picture) return channelOf(created, "owner");
        await sock.newsletterUpdatePicture(created.id, Buffer.from(input.picture.data, "base64"));
        return channelOf(await meta(sock, "jid", created.id), "owner");
      }),
    "channels.get": (input) =>
      area.call("channels.get", async (sock) =>
        channelOf("id" in input ? await meta(sock, "jid", input.id) : await meta(sock, "invite", input.invite)),
      ),
    "channels.follow": act("channels.follow", (sock, jid) => sock.newsletterFollow(jid)),
    "channels.unfollow": act("channels.unfollow", (sock, jid) => sock.newsletterUnfollow(jid)),
    "channels.mute": act("channels.mute", (sock, jid) => sock.newsletterMute(jid)),
    "channels.unmute": act("channels.unmute", (sock, jid) => sock.newsletterUnmute(jid)),
    "channels.preview": (input) =>
      area.call("channels.preview", async (sock) => {
        await meta(sock, "jid", input.id);
        const result = await fetchPosts(sock, input.id, input.limit);
        // The session keeps what it sends and receives: ours are those kept with `fromMe`.
        const sentByUs = async (id: string) => {
          const raw = await area.ctx.rawMessages.load(id).catch(() => null);
          if (!raw) return false;
          try {
            return parseStoredMessage(raw).key?.fromMe === true;
          } catch {
            return false;
          }
        };
        const out: ProviderPost[] = [];
        for (const node of postNodes(result)) {
          const post = await postOf(input.id, node, input.media, sentByUs);
          if (post) out.push(post);
        }
        // Newest first, as the other reads.
        return out
          .sort((a, b) => b.timestamp - a.timestamp || Number(b.serverId) - Number(a.serverId))
          .slice(0, input.limit);
      }),
  };
};
