import { ApiError, type InboundMessage, type ProviderChannel, type ProviderPost, parseMessageId } from "@gw/contracts";
import { channelReactionMessage } from "../../channel-reaction.ts";
import type { SimAreaModule } from "../area.ts";

type Lookup = { name: string; value: string };

/**
 * Channels on simnet (services/simnet/src/channels.ts): each operation is the simnet operation of
 * the same name, answering the contract's provider shapes. Posts from followed channels arrive as
 * `message` frames (`chatId` `<id>@newsletter`) and reactions to the channels the account runs
 * as `event` frames (`message.reaction`), which become reaction messages of the channel
 * (providers/channel-reaction.ts, as on Baileys): the session passes both on.
 */
export const simChannels: SimAreaModule = (area) => {
  area.onEventMessage("message.reaction", channelReactionOf);
  const errors = {
    not_found: () => new ApiError("not_found", "Canal não encontrado."),
    invalid_target: () => new ApiError("not_found", "Publicação não encontrada neste canal."),
    network_rejected: () =>
      new ApiError(
        "network_rejected",
        "A rede de mensagens recusou: o dono não deixa de seguir o próprio canal, e só quem segue o canal pode silenciá-lo.",
      ),
  };
  const call = <T>(op: string, args: unknown) => area.request(op, args, errors) as Promise<T>;
  return {
    "channels.list": (input) => call<ProviderChannel[]>("channels.list", input),
    "channels.create": (input) => call<ProviderChannel>("channels.create", input),
    "channels.get": (input) => call<ProviderChannel>("channels.get", input),
    "channels.follow": (input) => call<Record<string, never>>("channels.follow", input),
    "channels.unfollow": (input) => call<Record<string, never>>("channels.unfollow", input),
    "channels.mute": (input) => call<Record<string, never>>("channels.mute", input),
    "channels.unmute": (input) => call<Record<string, never>>("channels.unmute", input),
    "channels.preview": (input) => call<ProviderPost[]>("channels.preview", input),
    "channels.searchByView": (input) =>
      call<{ channels: ProviderChannel[]; hasMore: boolean }>("channels.search-by-view", input),
    "channels.searchByText": (input) =>
      call<{ channels: ProviderChannel[]; hasMore: boolean }>("channels.search-by-text", input),
    "channels.views": () => call<Lookup[]>("channels.views", {}),
    "channels.countries": () => call<{ name: string; code: string }[]>("channels.countries", {}),
    "channels.categories": () => call<Lookup[]>("channels.categories", {}),
  };
};

const str = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * simnet's `message.reaction` event of a channel (docs/simnet.md "Channels": `messageId` the post as
 * the owner sees it, `serverId`, `emoji`, `count`, `from` the channel) as a reaction message.
 */
export function channelReactionOf(p: Record<string, unknown>): InboundMessage | null {
  const channelId = str(p.chatId);
  const serverId = str(p.serverId) ?? (typeof p.serverId === "number" ? String(p.serverId) : null);
  if (!channelId?.endsWith("@newsletter") || !serverId) return null;
  const post = parseMessageId(str(p.messageId) ?? "");
  const from = (p.from ?? {}) as { pushName?: unknown };
  return channelReactionMessage({
    channelId,
    channelName: str(from.pushName),
    serverId,
    postId: post?.id ?? null,
    postFromMe: post ? post.fromMe : null,
    emoji: str(p.emoji) ?? "",
    count: typeof p.count === "number" ? p.count : null,
    timestamp: typeof p.timestamp === "number" ? p.timestamp : Math.floor(Date.now() / 1000),
    raw: p,
  });
}
