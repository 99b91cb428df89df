import {
  type BaileysEventMap,
  jidNormalizedUser,
  normalizeMessageContent,
  proto,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
} from "@whiskeysockets/baileys";
import { type AddressFallback, networkCodeOfAck } from "../../address-fallback.ts";
import type { ConversationAddressing } from "../../addressing.ts";
import type { AckStatus, ProviderContext } from "../../contract.ts";
import { type BaileysLogger, BoundedCache } from "../connection/auth-state.ts";
import type { GroupCache } from "../group-cache.ts";
import { toChatId } from "../jids.ts";
import { nowSeconds, secondsOf } from "../seconds.ts";
import { withTimeout } from "../with-timeout.ts";
import { type InboundLookups, storedForm, toInboundMessage } from "./inbound.ts";

/** proto.WebMessageInfo.Status → spec 2.9 ack status (ERROR 0, PENDING 1, SERVER_ACK 2, DELIVERY_ACK 3, READ 4, PLAYED 5). */
const ACK_OF_STATUS: Record<number, AckStatus> = {
  0: "failed",
  1: "pending",
  2: "sent",
  3: "delivered",
  4: "read",
  5: "played",
};

/** How long a message waits for its group's subject (`chatName`) when the group is new to us. */
const GROUP_NAME_TIMEOUT_MS = 5_000;

/** What the inbound side needs from the session. */
export interface InboundEventsDeps {
  readonly ctx: ProviderContext;
  readonly log: BaileysLogger;
  readonly groups: GroupCache;
  /** The stored message for a key (see `BaileysSessionOptions.loadMessage`). */
  loadMessage(key: WAMessageKey): Promise<WAMessage | undefined>;
  /** Whether `sock` is the session's current socket and open (a group lookup may go out on it). */
  isOpen(sock: WASocket): boolean;
  /** Which address each one-to-one conversation takes: learnt from what arrives. */
  readonly addressing: ConversationAddressing;
  /** Sends refused on their first address get one retry on the other (address-fallback.ts). */
  readonly fallback: AddressFallback;
  /** Sends message `id` again to `to` (the contact's other address), under the same id. */
  resend(id: string, to: string): Promise<void>;
}

/**
 * A socket's received messages, acks of our messages and contact names: mapped (inbound.ts),
 * deduplicated and reported as the provider's `message` / `ack` events.
 */
export class InboundEvents {
  /**
   * Messages already reported (or our own API sends, reported by the manager), by
   * `m:{fromMe}:{id}`, and edits by `e:{targetId}:{seconds}`: offline replays, placeholder
   * resends and the derived `messages.reaction` / `messages.update` events are dropped here.
   */
  private readonly seen = new BoundedCache(10_000, 6 * 60 * 60_000);
  /** Groups whose subject lookup failed: they wait a while before the next. */
  private readonly groupSubjectMisses = new BoundedCache(500, 2 * 60_000);
  /** Contact names by user JID (PN and LID): address-book name, else profile name (contacts events, push names). */
  private readonly contactNames = new BoundedCache(5_000, 24 * 60 * 60_000);
  /** Delivered / read / played already reported, by `{id}:{status}` (see `firstAck`). */
  private readonly acksReported = new BoundedCache(10_000, 6 * 60 * 60_000);
  /** Inbound messages and acks, one at a time in arrival order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: InboundEventsDeps) {}

  /** The session's inbound handlers on a new socket. */
  listen(sock: WASocket): void {
    // Received messages (and our copies from the phone): live ones are `notify`, those queued
    // while we were away arrive as `append` (reference §8.9); both are reported, once each.
    // Messages keep flowing from a socket being retired: the network considers them delivered.
    sock.ev.on("messages.upsert", ({ messages, type }) => {
      this.enqueue(async () => {
        for (const msg of messages) {
          await this.onInboundMessage(sock, msg, type === "append" ? "append" : "upsert");
          await this.onFoldedAck(sock, msg);
        }
      });
    });
    sock.ev.on("messages.update", (updates) => this.enqueue(() => this.onMessageUpdates(sock, updates)));
    sock.ev.on("messages.reaction", (reactions) => this.enqueue(() => this.onReactions(sock, reactions)));
    sock.ev.on("contacts.upsert", (contacts) => this.rememberContacts(contacts));
    sock.ev.on("contacts.update", (contacts) => this.rememberContacts(contacts));
  }

  /** One of our API sends (the manager reports it): its echo from the socket is not reported again. */
  markOwnSend(id: string): void {
    this.seen.set(`m:1:${id}`, true);
  }

  private enqueue(job: () => Promise<void>): void {
    this.chain = this.chain.then(job).catch((err) => this.deps.log.error({ err }, "inbound handler failed"));
  }

  private inboundLookups(sock: WASocket): InboundLookups {
    return {
      me: sock.authState.creds.me,
      pnForLid: (lid) => this.pnForLid(sock, lid),
      loadMessage: (id) => this.deps.loadMessage({ id }),
      chatName: (chat) => this.chatName(sock, chat),
      onUndecrypted: (reason, key) =>
        this.deps.log.debug({ reason, id: key.id }, "poll vote / event response not decrypted"),
    };
  }

  /**
   * One message: mapped, kept in its own form (quotes, forwards and poll decryption find it by
   * id) and reported once. `upsert` / `append`: from `messages.upsert` of that type; `derived`: rebuilt from `messages.reaction` / `messages.update` (same
   * key as the upsert it came from, not kept); `derived-edit`: an edit rebuilt from
   * `messages.update`, whose key is the edited message's, so only the edit marker dedupes it.
   */
  private async onInboundMessage(
    sock: WASocket,
    msg: WAMessage,
    mode: "upsert" | "append" | "derived" | "derived-edit" = "upsert",
  ): Promise<void> {
    const key = msg.key;
    if (!key?.id) return;
    const idKey = mode === "derived-edit" ? null : `m:${key.fromMe ? 1 : 0}:${key.id}`;
    const editKey = editMarker(msg);
    // Our own API sends echoed back (emitOwnEvents, as `append`) are still PENDING, or ERROR when the
    // event buffer folded the server's refusal into them (onFoldedAck: only the sending device gets
    // one, so never a copy from the phone); `send` marks them too.
    const ownSend =
      mode === "append" &&
      key.fromMe &&
      (msg.status === proto.WebMessageInfo.Status.PENDING || msg.status === proto.WebMessageInfo.Status.ERROR);
    if ((idKey && this.seen.get(idKey)) || (editKey && this.seen.get(editKey)) || ownSend) {
      if (idKey) this.seen.set(idKey, true);
      if (editKey) this.seen.set(editKey, true);
      return;
    }
    let message: Awaited<ReturnType<typeof toInboundMessage>>;
    try {
      message = await toInboundMessage(msg, this.inboundLookups(sock));
    } catch (err) {
      this.deps.log.warn({ err, id: key.id }, "could not map a received message");
      return;
    }
    // Not marked when skipped: a decryption stub is followed by the content under the same key.
    if (!message) return;
    if (idKey) this.seen.set(idKey, true);
    if (editKey) this.seen.set(editKey, true);
    if (mode === "upsert" || mode === "append") {
      await this.deps.ctx.rawMessages
        .save(key.id, storedForm(msg))
        .catch((err) => this.deps.log.warn({ err }, "keeping the received message failed"));
    }
    await this.learnAddressing(msg, message);
    this.deps.ctx.emit({ type: "message", message });
  }

  /**
   * A one-to-one message tells how the network addresses its conversation: `addressingMode`
   * (decode-wa-message.js: the stanza's, else the sender's server), else the form of `remoteJid`.
   */
  private async learnAddressing(msg: WAMessage, message: { isGroup: boolean; chatId: string; chatLid: string | null }) {
    const remote = msg.key?.remoteJid;
    if (message.isGroup || !remote || !/@(s\.whatsapp\.net|lid)$/.test(remote)) return;
    const mode =
      msg.key.addressingMode === "lid" || msg.key.addressingMode === "pn"
        ? msg.key.addressingMode
        : remote.endsWith("@lid")
          ? "lid"
          : "pn";
    const phone = message.chatId.endsWith("@c.us") ? message.chatId : null;
    await this.deps.addressing
      .learn({ phone, lid: message.chatLid }, mode)
      .catch((err) => this.deps.log.debug({ err }, "keeping a conversation's addressing failed"));
  }

  /**
   * `messages.update`: acks of our messages; edits and revocations, which Baileys derives from a
   * protocol message it upserted first (reported from there, so these only fill gaps). Calendar
   * event answers (`eventResponses`) likewise come from an upserted `encEventResponseMessage`,
   * which the mapping decrypts itself; they are not taken from here.
   */
  private async onMessageUpdates(sock: WASocket, updates: BaileysEventMap["messages.update"]): Promise<void> {
    for (const { key, update } of updates) {
      if (typeof update.status === "number" && this.firstAck(key, update.status)) await this.onAck(sock, key, update);
      const edited = update.message?.editedMessage?.message;
      if (update.message === null && update.messageStubType === proto.WebMessageInfo.StubType.REVOKE && update.key) {
        await this.onInboundMessage(
          sock,
          {
            key: update.key,
            message: { protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE, key: { ...key } } },
            messageTimestamp: update.messageTimestamp ?? null,
          },
          "derived",
        );
      } else if (edited && key.id) {
        await this.onInboundMessage(
          sock,
          {
            key,
            message: {
              protocolMessage: {
                type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
                key: { ...key },
                editedMessage: edited,
              },
            },
            messageTimestamp: update.messageTimestamp ?? null,
          },
          "derived-edit",
        );
      }
    }
  }

  /** `messages.reaction`: reported from the reaction's own upsert already; this fills gaps. */
  private async onReactions(sock: WASocket, reactions: BaileysEventMap["messages.reaction"]): Promise<void> {
    for (const { key, reaction } of reactions) {
      if (!reaction.key?.id) continue;
      const ms = secondsOf(reaction.senderTimestampMs);
      await this.onInboundMessage(
        sock,
        {
          key: reaction.key,
          message: {
            reactionMessage: { key, text: reaction.text ?? "", senderTimestampMs: reaction.senderTimestampMs },
          },
          messageTimestamp: ms ? Math.floor(ms / 1000) : null,
        },
        "derived",
      );
    }
  }

  /**
   * An ack Baileys' event buffer folded into an upserted message of ours. While it buffers (up to
   * 30 s after a reconnect, socket.js ~826-841; and ~100 ms around every upsert, including our own
   * send's echo, chats.js ~917 / event-buffer.js ~141-167), a `messages.update` for a message it
   * still holds is `Object.assign`ed onto it and never emitted (event-buffer.js ~425-444; one that
   * comes first is absorbed the same way, ~409-413): the upsert then carries the receipt's status
   * (and its time as `messageTimestamp`, handleReceipt in messages-recv.js), or a refusal's ERROR
   * and `messageStubParameters` (handleBadAck). Reported through `onAck` as the update would have
   * been, after the message itself (a copy from the phone is reported as received first).
   */
  private async onFoldedAck(sock: WASocket, msg: WAMessage): Promise<void> {
    const { key, status } = msg;
    if (!key?.fromMe || !key.id || typeof status !== "number") return;
    const { ERROR, SERVER_ACK } = proto.WebMessageInfo.Status;
    // PENDING is the echo as sent, SERVER_ACK a copy from the phone as decoded: nothing folded.
    if ((status !== ERROR && status <= SERVER_ACK) || !this.firstAck(key, status)) return;
    await this.onAck(
      sock,
      key,
      status === ERROR
        ? { status, messageStubParameters: msg.messageStubParameters ?? [] }
        : { status, messageTimestamp: msg.messageTimestamp ?? null },
    );
  }

  /**
   * Whether a delivered / read / played of one of our messages is reported for the first time:
   * each is reported once, whether it came folded into an upsert or as a `messages.update` (a
   * receipt sent again, a message upserted again). Other statuses always pass: a failure may
   * recur for a send retried under the same id (address-fallback.ts).
   */
  private firstAck(key: WAMessageKey, status: number): boolean {
    if (!key.fromMe || !key.id || status <= proto.WebMessageInfo.Status.SERVER_ACK) return true;
    const marker = `${key.id}:${status}`;
    if (this.acksReported.get(marker)) return false;
    this.acksReported.set(marker, true);
    return true;
  }

  /** A status change of one of our messages (spec 2.9). "sent" is announced by the manager with every send. */
  private async onAck(sock: WASocket, key: WAMessageKey, update: Partial<WAMessage>): Promise<void> {
    const status = typeof update.status === "number" ? ACK_OF_STATUS[update.status] : undefined;
    if (!key.fromMe || !key.id || !key.remoteJid || !status || status === "sent") return;
    let error: string | Exclude<Awaited<ReturnType<AddressFallback["onRejected"]>>, "retried"> | undefined;
    if (status === "failed") {
      // handleBadAck (messages-recv.js): `messageStubParameters` is `[code]` or `[code, reason]`.
      const networkCode = networkCodeOfAck(update.messageStubParameters);
      const id = key.id;
      const outcome = await this.deps.fallback.onRejected(id, networkCode, (to) => this.deps.resend(id, to));
      if (outcome === "retried") return; // its own acks follow
      error = networkCode !== undefined ? outcome : (update.messageStubParameters ?? []).join(": ") || "failed";
    } else if (status !== "pending") {
      await this.deps.fallback.onDelivered(key.id);
    }
    this.deps.ctx.emit({
      type: "ack",
      id: key.id,
      // 1:1 receipts may name the chat by its LID although we sent to the number (reference §4).
      chatId: await this.ackChatId(sock, key.remoteJid),
      status,
      timestamp: secondsOf(update.messageTimestamp) ?? nowSeconds(),
      ...(error !== undefined ? { error } : {}),
    });
  }

  private async ackChatId(sock: WASocket, jid: string): Promise<string> {
    if (!jid.endsWith("@lid")) return toChatId(jid);
    const pn = await this.pnForLid(sock, jid);
    return toChatId(pn ?? jid);
  }

  /** The number behind a LID from Baileys' local store (`getPNForLID` answers with a device suffix). */
  private async pnForLid(sock: WASocket, lid: string): Promise<string | null> {
    try {
      const pn = await sock.signalRepository.lidMapping.getPNForLID(lid);
      return pn ? jidNormalizedUser(pn) : null;
    } catch (err) {
      this.deps.log.debug({ err }, "LID → number lookup failed");
      return null;
    }
  }

  /** Spec 1 rule 7: a group's subject, a contact's address-book name or profile name. */
  private async chatName(
    sock: WASocket,
    chat: { jid: string; pn: string | null; lid: string | null; isGroup: boolean },
  ): Promise<string | null> {
    if (!chat.isGroup) {
      for (const jid of [chat.pn, chat.lid]) {
        const known = jid ? this.contactNames.get<{ name?: string; notify?: string }>(jid) : undefined;
        if (known?.name || known?.notify) return known.name || known.notify || null;
      }
      return null;
    }
    const cached = this.deps.groups.subject(chat.jid);
    if (cached) return cached;
    if (this.groupSubjectMisses.get(chat.jid) || !this.deps.isOpen(sock)) return null;
    try {
      await withTimeout(this.deps.groups.participants(sock, chat.jid), GROUP_NAME_TIMEOUT_MS);
    } catch (err) {
      this.deps.log.debug({ err }, "group subject lookup failed");
    }
    const subject = this.deps.groups.subject(chat.jid);
    if (!subject) this.groupSubjectMisses.set(chat.jid, true);
    return subject ?? null;
  }

  private rememberContacts(contacts: BaileysEventMap["contacts.update"]): void {
    for (const c of contacts) {
      const name = c.name || undefined;
      const notify = c.notify || c.verifiedName || undefined;
      if (!name && !notify) continue;
      for (const jid of [c.id, c.lid, c.phoneNumber]) {
        if (!jid || !/@(s\.whatsapp\.net|lid)$/.test(jidNormalizedUser(jid))) continue;
        const k = jidNormalizedUser(jid);
        const prev = this.contactNames.get<{ name?: string; notify?: string }>(k) ?? {};
        this.contactNames.set(k, { name: name ?? prev.name, notify: notify ?? prev.notify });
      }
    }
  }
}

/** `e:{targetId}:{seconds}` for a message that edits another (as Baileys times the edit it derives); else null. */
function editMarker(msg: WAMessage): string | null {
  const p = normalizeMessageContent(msg.message)?.protocolMessage;
  if (p?.type !== proto.Message.ProtocolMessage.Type.MESSAGE_EDIT || !p.key?.id) return null;
  const at = p.timestampMs ? Math.floor(Number(String(p.timestampMs)) / 1000) : secondsOf(msg.messageTimestamp);
  return `e:${p.key.id}:${at ?? ""}`;
}
