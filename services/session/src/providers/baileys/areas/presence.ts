import { ApiError, invalid, type PresenceState } from "@gw/contracts";
import { isJidGroup, isLidUser, type WASocket } from "@whiskeysockets/baileys";
import { PresenceBook } from "../../presence-book.ts";
import { phoneFromJid } from "../account.ts";
import { mapNetworkError } from "../errors.ts";
import { toChatId, toJid } from "../jids.ts";
import type { BaileysAreaModule } from "./area.ts";

/**
 * Presence on the real network through Baileys 7 (rc14, `Socket/chats.js`):
 *
 * | operation | Baileys | on the wire |
 * |---|---|---|
 * | set available / unavailable | `sendPresenceUpdate(state)` | `<presence name="<push name>" type="…">`; Baileys drops it silently without a push name, so that is refused first |
 * | set composing / recording / paused | `sendPresenceUpdate(state, jid)` | `<chatstate to="jid"><composing/>` (recording: `<composing media="audio"/>`) |
 * | subscribe | the chat checked (`onWhatsApp` for a number, `groupMetadata` for a group), then `presenceSubscribe(jid)` | `<presence type="subscribe" to="jid">` |
 *
 * The network answers a subscription with the contact's presence and then sends its changes and
 * chat states while the connection lasts: Baileys' `presence.update` (`{id, presences: {participant:
 * {lastKnownPresence, lastSeen}}}`, a stopped indicator already read `available`) becomes the
 * `presence.update` event for the chats still subscribed. On every connection the account's
 * presence and its live subscriptions are sent again (providers/presence-book.ts).
 */
export const baileysPresence: BaileysAreaModule = (area) => {
  const book = new PresenceBook(area.ctx);
  const log = area.ctx.log;

  const resume = async (sock: WASocket, current: () => boolean) => {
    const { self, chats } = await book.load(phoneFromJid(sock.authState.creds.me?.id));
    if (!current()) return;
    // Baileys itself sends `unavailable` on every connection (the session sets markOnlineOnConnect
    // false): only an account set online needs saying so again.
    if (self === "available" && sock.authState.creds.me?.name) await sock.sendPresenceUpdate(self);
    for (const chatId of chats) {
      const jid = toJid(chatId);
      if (jid && current()) await sock.presenceSubscribe(jid);
    }
  };

  area.onSocket((sock, current) => {
    sock.ev.on("connection.update", (u) => {
      if (u.connection !== "open" || !current()) return;
      // After the session's own handler has marked the socket open.
      void Promise.resolve()
        .then(() => resume(sock, current))
        .catch((err) => log.warn({ err }, "presence not applied again on the new connection"));
    });
    sock.ev.on("presence.update", ({ id, presences }) => {
      if (!current()) return;
      void book.report(
        Object.entries(presences).map(([participant, p]) => ({
          chatId: toChatId(id),
          participant: toChatId(participant),
          state: p.lastKnownPresence as PresenceState,
          lastSeen: p.lastSeen ?? null,
        })),
      );
    });
  });

  /** The chat a subscription names, as the network registered it; 404 when the network has none. */
  const registered = async (sock: WASocket, jid: string): Promise<string> => {
    if (isJidGroup(jid)) {
      await sock.groupMetadata(jid).catch((err: unknown) => {
        const mapped = mapNetworkError(err);
        const status = (err as { data?: unknown; output?: { statusCode?: number } }).data;
        if (status === 404 || /item-not-found/i.test(String((err as Error).message))) {
          throw new ApiError("not_found", "Grupo não encontrado.");
        }
        if (mapped.code === "network_rejected") {
          throw new ApiError("network_rejected", "A rede de mensagens recusou: a conta não participa deste grupo.", {
            chatId: "a conta não participa deste grupo",
          });
        }
        throw mapped;
      });
      return jid;
    }
    if (isLidUser(jid)) return jid; // the network takes no number check for privacy ids
    const found = await sock.onWhatsApp(phoneFromJid(jid));
    if (!found) throw new ApiError("network_timeout", "A rede de mensagens não respondeu à consulta do número.");
    const hit = found.find((r) => r.exists && r.jid)?.jid;
    if (!hit) throw new ApiError("not_found", "Conversa não encontrada: o número não tem conta na rede.");
    return hit;
  };

  const jidOf = (chatId: string) => {
    const jid = toJid(chatId);
    if (!jid || /@newsletter$/.test(jid)) {
      throw invalid("chatId", "use um contato ou um grupo", "chatId inválido.");
    }
    return jid;
  };

  return {
    "presence.set": async ({ state, chatId }) => {
      const own = state === "available" || state === "unavailable";
      await area.call("presence.set", async (sock) => {
        if (own) {
          // Baileys drops a presence without the account's push name without a word.
          if (!sock.authState.creds.me?.name) {
            throw new ApiError(
              "bad_request",
              "A conta não tem nome de perfil: defina um nome (PUT /profile/name) para enviar presença online/offline.",
            );
          }
          await sock.sendPresenceUpdate(state);
          return;
        }
        if (!chatId) throw invalid("chatId", "informe o chatId", "Informe o chatId.");
        await sock.sendPresenceUpdate(state, jidOf(chatId));
      });
      if (own) await book.setSelf(state);
      return {};
    },

    "presence.subscribe": async ({ chatId }) => {
      const jid = await area.call("presence.subscribe", (sock) => registered(sock, jidOf(chatId)));
      const undo = await book.subscribe(toChatId(jid));
      try {
        await area.call("presence.subscribe", (sock) => sock.presenceSubscribe(jid));
      } catch (err) {
        await undo();
        throw err;
      }
      return {};
    },
  };
};
