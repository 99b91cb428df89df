import { ApiError, type PresenceState } from "@gw/contracts";
import { PresenceBook } from "../../presence-book.ts";
import type { SimAreaModule } from "../area.ts";

/**
 * Presence on simnet (services/simnet/src/presence.ts): `presence.set` is simnet's `presence`
 * operation (the account's available/unavailable, or an indicator in a chat), `presence.subscribe`
 * its `presence-subscribe`. simnet's `presence` frames (heard only for what this connection
 * subscribed to) become `presence.update` events; on every connection the account's presence and
 * its live subscriptions are applied again (providers/presence-book.ts).
 */
export const simPresence: SimAreaModule = (area) => {
  const book = new PresenceBook(area.ctx);
  const errors = {
    not_on_network: () => new ApiError("not_found", "Conversa não encontrada: o número ou grupo não existe na rede."),
    network_rejected: () =>
      new ApiError("network_rejected", "A rede de mensagens recusou: a conta não participa deste grupo.", {
        chatId: "a conta não participa deste grupo",
      }),
  };

  area.onOpen(async (me) => {
    const { self, chats } = await book.load(me.phone);
    const log = area.ctx.log;
    if (self)
      await area.request("presence", { state: self }).catch((err) => log.warn({ err }, "presence not set again"));
    for (const chatId of chats) {
      await area
        .request("presence-subscribe", { to: chatId })
        .catch((err) => log.warn({ err, chatId }, "presence subscription not renewed"));
    }
  });

  area.onFrame("presence", (f) => {
    const from = f.from as { id?: string } | undefined;
    if (typeof f.chatId !== "string" || typeof from?.id !== "string" || typeof f.state !== "string") return;
    return book.report([
      {
        chatId: f.chatId,
        participant: from.id,
        state: f.state as PresenceState,
        lastSeen: typeof f.lastSeen === "number" ? f.lastSeen : null,
      },
    ]);
  });

  return {
    "presence.set": async ({ state, chatId }) => {
      const own = state === "available" || state === "unavailable";
      await area.request("presence", { state, ...(chatId && !own ? { to: chatId } : {}) }, errors);
      if (own) await book.setSelf(state);
      return {};
    },
    "presence.subscribe": async ({ chatId }) => {
      const undo = await book.subscribe(chatId);
      try {
        await area.request("presence-subscribe", { to: chatId }, errors);
      } catch (err) {
        await undo();
        throw err;
      }
      return {};
    },
  };
};
