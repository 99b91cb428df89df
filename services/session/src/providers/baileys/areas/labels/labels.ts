import {
  ApiError,
  labelChatNotFound,
  labelNotFound,
  nextLabelColor,
  nextLabelId,
  type ProviderLabel,
  personalAccountError,
} from "@gw/contracts";
import { isWABusinessPlatform, type WASocket } from "@whiskeysockets/baileys";
// The package root does not re-export this enum (Types/index.ts omits LabelAssociation); the file is public (no exports map).
import { LabelAssociationType } from "@whiskeysockets/baileys/lib/Types/LabelAssociation.js";
import { brazilianAlternative, toChatId, toJid } from "../../jids.ts";
import type { BaileysAreaModule } from "../area.ts";
import { type LabelEdit, labelBook } from "./labels-book.ts";

/**
 * Labels on the real network through Baileys 7 (rc14, `Socket/chats.js`, `Utils/chat-utils.js`).
 * Labels live in the account's app state (collection `regular`): each change is a patch that
 * `chatModify` builds (`chatModificationToAppPatch`) and `appPatch` encrypts and sends.
 *
 * | operation | Baileys | app-state mutation |
 * |---|---|---|
 * | create / update | `addLabel("", {id, name, color, predefinedId})` | `label_edit` `[id]`: `labelEditAction {name, color, predefinedId}` |
 * | delete | `addLabel("", {id, name, color, deleted: true})` (Baileys has no `deleteLabel`: a deletion is the edit with `deleted`) | `label_edit` `[id]`: `labelEditAction {deleted: true}` |
 * | tag / untag a chat | `addChatLabel(jid, id)` / `removeChatLabel(jid, id)` | `label_jid` `[id, jid]`: `labelAssociationAction {labeled}` |
 * | list, a chat's labels, a label's chats | none: the network has no label query | read from what app-state sync taught (labels-book.ts) |
 *
 * A new label's id is one past the highest id ever seen (the apps number labels the same way); its
 * color, when none is asked, the first palette color no label uses. Notifications: `labels.edit` →
 * `label.upsert` / `label.deleted`; `labels.association` of chats → `label.chat.added` /
 * `label.chat.deleted` (message labels, `label_message`, have no event in the spec and are ignored).
 *
 * A personal account's device learns no labels, and its patches would be kept by the network but
 * shown nowhere: the account's platform (`creds.platform`, `smba`/`smbi` for the business apps,
 * learnt at pairing) decides, and a personal one is refused before any call.
 */
export const baileysLabels: BaileysAreaModule = (area) => {
  const book = labelBook(area.ctx);
  // Notifications and our own bookkeeping one after the other: reshaping waits (Redis) must not reorder events.
  let chain: Promise<void> = Promise.resolve();
  const inOrder = (job: () => Promise<void>): Promise<void> => {
    chain = chain.then(job).catch((err) => area.ctx.log.warn({ err }, "label notification"));
    return chain;
  };

  area.onSocket((sock, current) => {
    sock.ev.on("labels.edit", (l) =>
      inOrder(async () => {
        if (current()) await book.edit(l as LabelEdit);
      }),
    );
    sock.ev.on("labels.association", ({ association, type }) =>
      inOrder(async () => {
        if (!current() || association.type !== LabelAssociationType.Chat) return;
        await book.associate(association.labelId, toChatId(association.chatId), type === "add");
      }),
    );
  });

  /**
   * The open socket of a business account (a personal one is refused, an unknown platform let
   * through), once the notifications already heard are recorded: an operation reads what they taught.
   */
  const businessSocket = async (): Promise<WASocket> => {
    const sock = area.socket();
    const platform = sock.authState.creds.platform;
    if (platform && !isWABusinessPlatform(platform)) throw personalAccountError();
    await inOrder(async () => {});
    return sock;
  };

  /**
   * Patches are encrypted with the account's app-state key, which the phone shares after pairing
   * (Baileys fails with "App state key not present!" before): a short wait, not a refusal.
   */
  const canPatch = (sock: WASocket) => {
    if (!sock.authState.creds.myAppStateKeyId) {
      throw new ApiError(
        "network_unavailable",
        "O celular ainda não compartilhou a chave de sincronização desta conexão (logo após o pareamento); tente de novo em instantes.",
        undefined,
        5,
      );
    }
  };

  const liveLabel = async (id: string, field = "labelId") => {
    const l = await book.get(id);
    if (!l) throw labelNotFound(id, field);
    return l;
  };

  /** Sends one label edit and records it at once (the decoded echo, when it comes first, makes this a no-op). */
  const sendEdit = async (edit: {
    id: string;
    name: string;
    color: number;
    deleted?: boolean;
    predefinedId?: string;
  }) => {
    await area.call("labels.edit", (s) =>
      s.addLabel("", {
        id: edit.id,
        name: edit.name,
        color: edit.color,
        ...(edit.deleted ? { deleted: true } : {}),
        ...(edit.predefinedId ? { predefinedId: Number(edit.predefinedId) } : {}),
      }),
    );
    await inOrder(() => book.edit(edit));
  };

  /**
   * The JID to tag a chat with: the form the network already used for it (a stored association),
   * else a group this number is in, a number with an account (its registered form, ninth digit
   * included), or a privacy id as given. Anything else is 404.
   */
  const chatJid = async (chatId: string, stored: string | null): Promise<string> => {
    if (stored) return toJid(stored) ?? stored;
    if (chatId.endsWith("@lid")) {
      const shown = await area.ctx.identity.rewrite(chatId);
      if (shown === chatId) return chatId;
      return chatJid(shown, null);
    }
    if (chatId.endsWith("@g.us")) {
      try {
        await area.call("labels.group", (s) => s.groupMetadata(chatId));
      } catch (err) {
        if (err instanceof ApiError && err.code === "network_rejected") throw labelChatNotFound(chatId);
        throw err;
      }
      return chatId;
    }
    const digits = chatId.split("@")[0]!;
    for (const candidate of [digits, brazilianAlternative(digits)]) {
      if (!candidate) continue;
      const found = await area.call("labels.exists", (s) => s.onWhatsApp(candidate));
      if (!found) throw new ApiError("network_timeout", "A rede de mensagens não respondeu à consulta do número.");
      const jid = found.find((r) => r.exists && r.jid)?.jid;
      if (jid) return jid;
    }
    throw labelChatNotFound(chatId);
  };

  const labelsOf = async (ids: string[]): Promise<ProviderLabel[]> => {
    const wanted = new Set(ids);
    return (await book.live()).filter((l) => wanted.has(l.id));
  };

  return {
    "labels.list": async () => {
      await businessSocket();
      return book.live();
    },

    "labels.create": async ({ name, color }) => {
      canPatch(await businessSocket());
      const all = await book.all();
      const live = [...all.values()].filter((l) => !l.deleted);
      const label = {
        id: nextLabelId([...all.keys()]),
        name,
        color: color ?? nextLabelColor(live.map((l) => l.color)),
      };
      await sendEdit(label);
      return label;
    },

    "labels.update": async ({ id, name, color }) => {
      canPatch(await businessSocket());
      const before = await liveLabel(id);
      const label = { id, name, color: color ?? before.color };
      await sendEdit({ ...label, ...(before.predefinedId ? { predefinedId: before.predefinedId } : {}) });
      return label;
    },

    "labels.delete": async ({ id }) => {
      canPatch(await businessSocket());
      const before = await liveLabel(id);
      await sendEdit({ id, name: before.name, color: before.color, deleted: true });
      return {};
    },

    "labels.chatLabels": async ({ chatId }) => {
      await businessSocket();
      const labels = await labelsOf((await book.chatAssociations(chatId)).map((a) => a.labelId));
      // Nothing stored for it: 404 if the network does not know the chat either.
      if (labels.length === 0) await chatJid(chatId, null);
      return labels;
    },

    "labels.setChatLabels": async ({ chatId, labelIds }) => {
      const sock = await businessSocket();
      const live = new Set((await book.live()).map((l) => l.id));
      const unknown = labelIds.filter((id) => !live.has(id));
      if (unknown.length > 0) throw labelNotFound(unknown.join(", "), "labels");
      // Associations with labels no longer known are not the chat's labels: left alone.
      const current = (await book.chatAssociations(chatId)).filter((a) => live.has(a.labelId));
      const jid = await chatJid(chatId, current[0]?.chatId ?? null);
      const toAdd = labelIds.filter((id) => !current.some((a) => a.labelId === id));
      const toRemove = current.filter((a) => !labelIds.includes(a.labelId));
      if (toAdd.length + toRemove.length > 0) canPatch(sock);
      // The missing ones added in the order given, then the others removed (each in the form it was stored).
      for (const id of toAdd) {
        await area.call("labels.tag", (s) => s.addChatLabel(jid, id));
        await inOrder(() => book.associate(id, toChatId(jid), true));
      }
      for (const a of toRemove) {
        await area.call("labels.untag", (s) => s.removeChatLabel(toJid(a.chatId) ?? a.chatId, a.labelId));
        await inOrder(() => book.associate(a.labelId, a.chatId, false));
      }
      return labelsOf((await book.chatAssociations(chatId)).map((a) => a.labelId));
    },

    "labels.labelChats": async ({ id }) => {
      await businessSocket();
      await liveLabel(id);
      const chats = await Promise.all((await book.chatsOf(id)).map(async (c) => (await book.shown(c)).chatId));
      return [...new Set(chats)];
    },
  };
};
