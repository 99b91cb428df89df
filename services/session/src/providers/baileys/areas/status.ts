import type { WAMessage, WAMessageKey } from "@whiskeysockets/baileys";
import { type InboundLookups, toInboundMessage } from "../inbound/inbound.ts";
import { STATUS_JID } from "../jids.ts";
import type { BaileysAreaModule } from "./area.ts";

/**
 * The status sender's other id: its number when it posts by LID, its LID when by number. Baileys
 * keeps it in `remoteJidAlt` for every chat that is not a group, `status@broadcast` included, and
 * fills `participantAlt` for groups only (`Utils/decode-wa-message.js:180-187`); the latter is read
 * after, should a later release move it there.
 */
const senderAlt = (k: WAMessageKey): string | undefined => k.remoteJidAlt || k.participantAlt || undefined;

/**
 * Status posts on the real network through Baileys.
 *
 * Posting needs no operation: the session's send goes to `status@broadcast` with the audience as
 * `statusJidList` and the style as `backgroundColor` / `font` (outbound.ts), and a deletion is the
 * same send of `{delete: key}`.
 *
 * The posts of contacts (`messages.upsert` `notify` with `remoteJid` `status@broadcast`, which the
 * session's inbound mapping leaves out) are reported here as `message` events with `chatId`
 * `status@broadcast` and `from` the contact, as simnet reports them; a contact deleting its post is
 * `message.revoked` there. `settings.ignore.status` silences both. Our own posts (`fromMe`) are the
 * manager's to announce (API sends) and are not repeated.
 */
export const baileysStatus: BaileysAreaModule = (area) => {
  // Like the session's own messages, a retired socket's are still reported: the network
  // considers them delivered and will not send them again.
  area.onSocket((sock) => {
    const lookups: InboundLookups = {
      me: sock.authState.creds.me ?? null,
      pnForLid: async (lid) => (await sock.signalRepository.lidMapping.getPNForLID(lid)) ?? null,
    };
    sock.ev.on("messages.upsert", async ({ messages, type }) => {
      if (type !== "notify") return;
      for (const msg of messages) {
        const k = msg.key;
        if (k?.remoteJid !== STATUS_JID || k.fromMe || !k.participant) continue;
        // Mapped as the contact's own message (its number, name, content), then shown under the status chat.
        const asChat: WAMessage = {
          ...msg,
          key: { ...k, remoteJid: k.participant, remoteJidAlt: senderAlt(k), participant: null },
        };
        const inbound = await toInboundMessage(asChat, lookups).catch(() => null);
        if (!inbound) continue;
        area.ctx.emit({
          type: "message",
          // The status chat has no name of its own: the contact's would be learnt as its name.
          message: { ...inbound, chatId: STATUS_JID, chatLid: null, chatName: "", isGroup: false, raw: msg },
        });
      }
    });
  });
  return {};
};
