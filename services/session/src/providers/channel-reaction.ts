import type { InboundMessage } from "@gw/contracts";

/** What a network tells of a reaction to a channel post (channels are anonymous: no reactor). */
export interface ChannelReaction {
  /** The channel, `<id>@newsletter`. */
  channelId: string;
  /** Its name, when the provider knows it (simnet says; Baileys' notification does not). */
  channelName?: string | null;
  /** The post's sequence number in the channel (`server_id`). */
  serverId: string;
  /** The post's network id, when the provider knows it; null otherwise (`messageId` is then null). */
  postId: string | null;
  /** Whether the account posted it, when the provider knows. */
  postFromMe?: boolean | null;
  /** The emoji; `""` when a reaction was removed. */
  emoji: string;
  /** The emoji's total on the post now, when the network tells it (simnet). */
  count?: number | null;
  timestamp: number;
  /** The network's own notification. */
  raw: unknown;
}

/**
 * A reaction's own id, which the network does not give for channels: made of the post's sequence
 * number, the emoji's code points (`0` for a removal) and, when the network tells it, the emoji's
 * count — the same notification delivered again has the same id (receivers drop it by `id`).
 * Anonymous reactions that the network reports alike (the same emoji to the same post, without a
 * count) share it. Only the network id's characters (contracts `NETWORK_ID_RE`).
 */
export function channelReactionId(serverId: string, emoji: string, count?: number | null): string {
  const code = [...emoji].map((c) => c.codePointAt(0)!.toString(16)).join("-") || "0";
  const post = serverId.replace(/[^A-Za-z0-9]/g, "-") || "0";
  return `R${post}.${code}${typeof count === "number" ? `.${count}` : ""}`;
}

/**
 * A reaction to a channel post as the provider contract's inbound message (sim and Baileys alike):
 * the session builds its `message.reaction` payload as every other reaction's (events/inbound.ts),
 * `from` being the channel.
 */
export function channelReactionMessage(r: ChannelReaction): InboundMessage {
  return {
    id: channelReactionId(r.serverId, r.emoji, r.count),
    chatId: r.channelId,
    chatLid: null,
    chatName: r.channelName || null,
    isGroup: false,
    fromMe: false,
    from: { id: r.channelId, phone: null, lid: null, pushName: r.channelName || null },
    timestamp: r.timestamp,
    type: "reaction",
    text: null,
    media: null,
    targetId: r.postId,
    targetFromMe: r.postFromMe ?? null,
    emoji: r.emoji,
    serverId: r.serverId,
    ...(typeof r.count === "number" ? { count: r.count } : {}),
    raw: r.raw,
  };
}
