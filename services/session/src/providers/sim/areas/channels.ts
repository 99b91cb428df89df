import { ApiError, type ProviderChannel, type ProviderPost } from "@gw/contracts";
import type { SimAreaModule } from "../area.ts";

type Lookup = { name: string; value: string };

/**
 * Channels on simnet (services/simnet/src/channels.ts): each operation is the simnet operation of
 * the same name, answering the contract's provider shapes. Posts from followed channels arrive as
 * `message` frames (`chatId` `<id>@newsletter`) and reactions to the channels the account runs
 * as `event` frames: the session passes both on.
 */
export const simChannels: SimAreaModule = (area) => {
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
