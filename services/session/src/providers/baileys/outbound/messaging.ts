import {
  ApiError,
  type ExistsResult,
  invalid,
  type OutboundContent,
  type PresenceState,
  type SendOptions,
  type SendResult,
} from "@gw/contracts";
import {
  downloadMediaMessage,
  isJidGroup,
  normalizeMessageContent,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
} from "@whiskeysockets/baileys";
import type { AddressFallback } from "../../address-fallback.ts";
import type { ConversationAddressing } from "../../addressing.ts";
import type { Picture, ProviderContext } from "../../contract.ts";
import type { BaileysLogger } from "../connection/auth-state.ts";
import { networkCodeOf } from "../errors.ts";
import type { GroupCache } from "../group-cache.ts";
import { parseStoredMessage, storedForm } from "../inbound/inbound.ts";
import { brazilianAlternative, isBareMessageId, parseMessageId, toChatId, toJid } from "../jids.ts";
import { nowSeconds } from "../seconds.ts";
import { withTimeout } from "../with-timeout.ts";
import { linkPreviewsFromEnv } from "./link-preview.ts";
import { type OutboundContext, toBaileysContent } from "./outbound.ts";
import { buildPollVote } from "./poll-vote.ts";

/** What the messaging operations need from the session. */
export interface MessagingDeps {
  readonly ctx: ProviderContext;
  readonly log: BaileysLogger;
  readonly groups: GroupCache;
  /** How long `checkExists` waits for a LID (see `BaileysSessionOptions`); default 5 s. */
  readonly lidLookupTimeoutMs: number | undefined;
  /** The open socket, else `instance_not_connected`. */
  openSocket(): WASocket;
  /** A messaging call on the open socket, its errors mapped, aborted when it closes (socket-calls.ts). */
  call<T>(op: string, fn: () => Promise<T>): Promise<T>;
  /** The stored message for a key (see `BaileysSessionOptions.loadMessage`). */
  loadMessage(key: WAMessageKey): Promise<WAMessage | undefined>;
  /** One of our API sends: its echo from the socket is not reported as received. */
  markOwnSend(id: string): void;
  /** Which address each one-to-one conversation takes (LID or number). */
  readonly addressing: ConversationAddressing;
  /** One-to-one sends, for one retry on the other address when the network refuses the first. */
  readonly fallback: AddressFallback;
}

/** The session's messaging operations on the open socket (the `ProviderSession` messaging methods). */
export class BaileysMessaging {
  constructor(private readonly deps: MessagingDeps) {}

  async send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    const sock = this.deps.openSocket();
    if (content.type === "poll_vote") return this.vote(sock, chatId, content.pollId, content.votes, options);
    // The address the network uses for this conversation (LID or number: addressing.ts).
    const dest = await this.deps.addressing.destination(chatId.trim());
    // Composed before the send proper: a connection lost while a link preview or a group's
    // participants are fetched left nothing on the network (`instance_not_connected`, not "may have left").
    const out = await this.deps.call("compose", () =>
      toBaileysContent(dest, content, options, this.outboundContext(sock, chatId, dest)),
    );
    return this.deps.call("send", async () => {
      const sent = await sock.sendMessage(out.jid, out.content, out.options);
      // Before Baileys echoes it back as an `append` upsert (emitOwnEvents, on a later tick):
      // the manager announces API sends itself.
      if (sent?.key.id) this.deps.markOwnSend(sent.key.id);
      const id = sent?.key.id;
      if (!sent || !id) throw new ApiError("network_error");
      this.deps.fallback.track(id, dest);
      const result = {
        id,
        // The number when known (spec 1 rule 3), whichever address the message took.
        chatId: pnFirst(chatId, toChatId(sent.key.remoteJid || out.jid)),
        timestamp: unixSecondsOf(sent.messageTimestamp),
      };
      // Kept for Baileys' retries (getMessage), quotes and reactions by bare id.
      await this.deps.ctx.rawMessages
        .save(id, storedForm(sent))
        .catch((err) => this.deps.log.warn({ err }, "keeping the sent message failed"));
      // Baileys never reports the server's ack of a send (reference §5): the manager announces
      // `sent` with every send it makes.
      return result;
    });
  }

  /** A poll vote: encrypted with the stored poll's secret and relayed as is (rc14 builds none). */
  private async vote(
    sock: WASocket,
    chatId: string,
    pollId: string,
    votes: string[],
    options: SendOptions,
  ): Promise<SendResult> {
    if (!toJid(chatId)) throw invalid("chatId", "chatId inválido");
    const dest = await this.deps.addressing.destination(chatId.trim());
    const jid = toJid(dest)!;
    const poll = await this.deps.loadMessage({ remoteJid: jid, id: parseMessageId(pollId)?.id ?? pollId });
    if (!poll) {
      throw invalid("pollMessageId", "enquete desconhecida (só as enviadas ou recebidas nos últimos 7 dias)");
    }
    const me = sock.authState.creds.me ?? {};
    const message = buildPollVote(poll, votes, voteIdentity(me, jid, this.deps.groups.addressingMode(jid)));
    return this.deps.call("send", async () => {
      const id = await sock.relayMessage(jid, message, options.id ? { messageId: options.id } : {});
      this.deps.fallback.track(id, dest);
      const result = { id, chatId: pnFirst(chatId, toChatId(jid)), timestamp: nowSeconds() };
      this.deps.markOwnSend(id);
      return result; // `sent` is announced by the manager, as for every send
    });
  }

  /**
   * The network answers a temporary CDN URL for the picture (or an error when none is visible to
   * us: privacy, no picture); we fetch its bytes so that our own signed link can serve them.
   */
  async picture(chatId: string): Promise<Picture | null> {
    const sock = this.deps.openSocket();
    const url = await this.deps.call("picture", async () => {
      try {
        return await sock.profilePictureUrl(chatJid(chatId), "image");
      } catch (err) {
        // No picture, or privacy: the server's `<error code>` (see networkCodeOf).
        const code = networkCodeOf(err);
        if (code === 404 || code === 401 || code === 403) return undefined;
        throw err;
      }
    });
    if (!url) return null;
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000) }).catch(() => null);
    if (!res?.ok) return null;
    const data = Buffer.from(await res.arrayBuffer()).toString("base64");
    return { data, mimetype: res.headers.get("content-type")?.split(";")[0] || "image/jpeg" };
  }

  async checkExists(phone: string): Promise<ExistsResult> {
    const sock = this.deps.openSocket();
    const raw = phone.trim();
    const digits = (raw.split("@")[0] ?? "").replace(/\D/g, "");
    if (/@lid$/.test(raw) || !/^\d{8,15}$/.test(digits)) {
      throw invalid(
        "phone",
        "informe o número no formato internacional, só dígitos",
        "Informe o número no formato internacional, só dígitos.",
      );
    }
    return this.deps.call("checkExists", async () => {
      let jid = await registeredJid(sock, digits);
      const alternative = brazilianAlternative(digits);
      if (!jid && alternative) jid = await registeredJid(sock, alternative);
      if (!jid) return { exists: false, chatId: null, lid: null };
      return { exists: true, chatId: toChatId(jid), lid: await this.lidFor(sock, jid) };
    });
  }

  async markRead(chatId: string, messageIds: string[]): Promise<void> {
    const sock = this.deps.openSocket();
    const asked = chatJid(chatId);
    // Receipts go where the conversation is: a receipt to the other address is not shown.
    const jid = chatJid(await this.deps.addressing.destination(chatId.trim()));
    const keys: WAMessageKey[] = [];
    for (const value of messageIds) {
      const parsed = parseMessageId(value);
      if (parsed) {
        // Our own messages get no read receipt (Baileys drops them too).
        if (!parsed.fromMe) keys.push(parsed.remoteJid === asked ? { ...parsed, remoteJid: jid } : parsed);
        continue;
      }
      if (!isBareMessageId(value)) {
        throw invalid("messageIds", "id de mensagem inválido", "Id de mensagem inválido.");
      }
      if (isJidGroup(jid)) {
        // A group receipt names the sender; a bare id does not say who it was.
        throw invalid(
          "messageIds",
          "em grupos, use o id completo {fromMe}_{chatId}_{id}_{participant}",
          "Em grupos, use o id completo da mensagem (com o participante).",
        );
      }
      keys.push({ remoteJid: jid, id: value.trim(), fromMe: false });
    }
    if (keys.length === 0) return;
    await this.deps.call("markRead", async () => {
      // readMessages asks for the privacy settings first (once per socket); unanswered, Baileys
      // fails with a TypeError on the missing response node: a timeout, not a bug of ours.
      await sock.readMessages(keys).catch((err: unknown) => {
        throw err instanceof TypeError ? new ApiError("network_timeout") : err;
      });
    });
  }

  async presence(state: PresenceState, chatId?: string): Promise<void> {
    const sock = this.deps.openSocket();
    let jid: string | undefined;
    if (state === "available" || state === "unavailable") {
      // Baileys silently skips a global presence when the account has no push name.
      if (!sock.authState.creds.me?.name) {
        throw new ApiError(
          "bad_request",
          "A conta não tem nome de perfil: defina um nome no WhatsApp para enviar presença online/offline.",
        );
      }
    } else {
      if (!chatId) throw invalid("chatId", "informe o chatId", "Informe o chatId.");
      chatJid(chatId);
      jid = chatJid(await this.deps.addressing.destination(chatId.trim()));
    }
    await this.deps.call("presence", () => sock.sendPresenceUpdate(state, jid));
  }

  /**
   * What the mapping needs; `asked` and `dest` are the chat as the client named it and the address
   * it goes to: stored messages of either are this conversation (quotes, reactions, edits).
   */
  private outboundContext(sock: WASocket, asked: string, dest: string): OutboundContext {
    const conversation = [toJid(asked), toJid(dest)].filter((j): j is string => Boolean(j));
    return {
      me: sock.authState.creds.me,
      conversation,
      lidOf: (pn) => this.lidJidFor(sock, pn),
      loadMessage: (key) => this.deps.loadMessage(key),
      groupParticipants: (jid) => this.deps.groups.participants(sock, jid),
      linkPreview: (text) => linkPreviewsFromEnv().preview(text, this.deps.log),
    };
  }

  /**
   * A send the network refused on its first address, again to the contact's other one under the
   * same id (address-fallback.ts): the stored message as it went, relayed as is.
   */
  async resend(id: string, to: string): Promise<void> {
    const sock = this.deps.openSocket();
    const jid = toJid(to);
    const raw = await this.deps.ctx.rawMessages.load(id);
    const stored = raw ? parseStoredMessage(raw) : undefined;
    if (!jid || !stored?.message) throw new ApiError("network_error", "A mensagem enviada não está mais guardada.");
    await this.deps.call("send", () => sock.relayMessage(jid, stored.message!, { messageId: id }));
    this.deps.markOwnSend(id);
    // Quotes, reactions and edits of it name the address it now has.
    await this.deps.ctx.rawMessages
      .save(id, storedForm({ ...stored, key: { ...stored.key, remoteJid: jid } }))
      .catch((err) => this.deps.log.warn({ err }, "keeping the re-sent message failed"));
  }

  async downloadMedia(networkId: string): Promise<Picture | null> {
    const sock = this.deps.openSocket();
    const msg = await this.deps.loadMessage({ id: networkId });
    const content = msg ? normalizeMessageContent(msg.message) : undefined;
    const node =
      content?.imageMessage ??
      content?.videoMessage ??
      content?.ptvMessage ??
      content?.audioMessage ??
      content?.documentMessage ??
      content?.stickerMessage;
    if (!msg || !node) return null;
    return this.deps.call("downloadMedia", async () => {
      const data = await downloadMediaMessage(
        msg,
        "buffer",
        {},
        { reuploadRequest: sock.updateMediaMessage, logger: sock.logger },
      );
      return { data: data.toString("base64"), mimetype: node.mimetype || "application/octet-stream" };
    });
  }

  /** The LID of a registered number as a chat id (`<id>@lid`); null when unknown. */
  private async lidFor(sock: WASocket, pnJid: string): Promise<string | null> {
    const lid = await this.lidJidFor(sock, pnJid);
    return lid ? toChatId(lid) : null;
  }

  /** The LID JID of a number: local mapping store, else one USync LID query; null on failure. */
  private async lidJidFor(sock: WASocket, pnJid: string): Promise<string | null> {
    try {
      const lid = await withTimeout(
        sock.signalRepository.lidMapping.getLIDForPN(pnJid),
        this.deps.lidLookupTimeoutMs ?? 5_000,
      );
      return lid ?? null;
    } catch (err) {
      this.deps.log.debug({ err }, "LID lookup failed");
      return null;
    }
  }
}

/** The JID of a chat id, or 422 `chatId`. */
function chatJid(chatId: string): string {
  const jid = toJid(chatId);
  if (!jid) {
    throw invalid("chatId", "use <número>@c.us, um @lid, um @g.us ou um @newsletter", "chatId inválido.");
  }
  return jid;
}

/**
 * The JID the network registered for a number. `onWhatsApp` lists only numbers that exist (an
 * empty list: none), and answers undefined when the query got no answer in time.
 */
async function registeredJid(sock: WASocket, digits: string): Promise<string | undefined> {
  const results = await sock.onWhatsApp(digits);
  if (!results) throw new ApiError("network_timeout", "A rede de mensagens não respondeu à consulta do número.");
  return results.find((r) => r.exists && r.jid)?.jid;
}

/** The chat id a send answers: the number's form when either id is one (spec 1 rule 3). */
function pnFirst(asked: string, sentTo: string): string {
  const a = asked.trim();
  if (/@c\.us$/.test(sentTo)) return sentTo;
  return /^\d+@c\.us$/.test(a) ? a : sentTo;
}

/**
 * Who signs a poll vote: the identity the network will show as its sender. Baileys sends to a
 * group as our LID unless the group is addressed by number (`addressing_mode`, default `lid`:
 * messages-send.js), and to a person as our LID when sent to a LID; the poll's creator is named
 * the same way when it is us.
 */
function voteIdentity(
  me: { id?: string | null; lid?: string | null },
  jid: string,
  groupMode: "lid" | "pn" | undefined,
): { id?: string | null; lid?: string | null; lidAddressed: boolean } {
  const lidAddressed = isJidGroup(jid) ? groupMode !== "pn" : jid.endsWith("@lid");
  return { id: me.id, lid: me.lid, lidAddressed };
}

/** `messageTimestamp` (number or protobuf Long, seconds) as a number; now when absent. */
function unixSecondsOf(ts: WAMessage["messageTimestamp"]): number {
  if (typeof ts === "number") return ts;
  if (ts) return Number(ts.toString());
  return nowSeconds();
}
