// The read model of spec 4.5 (docs/read-model.md): messages that arrive or are sent, stored per
// instance as JSON strings found through sorted sets (per chat and lid: all messages by time, and
// per fromMe their acks), and the chat list built from them (indexed chat records, state hashes,
// order sets). One identity per person: reads rewrite privacy ids to numbers where the instance
// knows them, and merged reads find messages that arrived by lid.
import { formatMessageId, type Instance, parseMessageId } from "@gw/contracts";
import type { Redis } from "ioredis";
import { Repository } from "redis-om";
import type { MediaLinks } from "../auth/media-links.ts";
import type { Keys } from "../infra/keys.ts";
import type { OmClient } from "../infra/redis.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";
import type { IdentityMap } from "../store/identity.ts";
import { MESSAGE_KEEP_MS } from "../store/messages.ts";
import { ACK } from "./acks.ts";
import { ChatStore, readModelSchemas } from "./chats.ts";
import { docOf, sanitizeRaw, str } from "./doc.ts";
import { chatFamily, MessagePages } from "./pages.ts";
import type {
  ChatDoc,
  ChatQuery,
  ChatView,
  MessageDoc,
  MessageQuery,
  MessageView,
  Payload,
  ReadModelOptions,
  RecordExtra,
} from "./types.ts";
import { MessageViews } from "./views.ts";
import { MessageWrites } from "./writes.ts";

export * from "./acks.ts";
export { escapeTag, readModelSchemas } from "./chats.ts";
export { compareEntries, docJson, docOf, parseDoc, sanitizeRaw, sortKeyOf, vCardOf } from "./doc.ts";
export type {
  ChatDoc,
  ChatQuery,
  ChatSort,
  ChatState,
  ChatView,
  LastMessageSummary,
  MessageDoc,
  MessageMedia,
  MessageQuery,
  MessageView,
  ReadModelOptions,
  RecordExtra,
} from "./types.ts";

export class ReadModel {
  readonly chatsRepo: Repository;
  private readonly writes: MessageWrites;
  private readonly pages: MessagePages;
  private readonly messageViews: MessageViews;
  private readonly chats: ChatStore;
  private readonly retentionMs: number;

  constructor(
    redis: Redis,
    om: OmClient,
    private readonly k: Keys,
    batch: ScriptBatch,
    private readonly identity: IdentityMap,
    mediaLinks: MediaLinks,
    opts: ReadModelOptions,
  ) {
    this.chatsRepo = new Repository(readModelSchemas(k).chats, om);
    this.retentionMs = opts.retentionMs;
    // A message's writes go in the turn's batch (infra/script-batch.ts) with the events that announce
    // them; the rarer ones are scripts of their own.
    this.writes = new MessageWrites(redis, k, batch, opts.retentionMs, opts.pendingAckMs ?? 120_000);
    this.pages = new MessagePages(redis, k, identity);
    const docs = (instanceId: string, ids: string[], acks = true) => this.pages.docs(instanceId, ids, acks);
    this.messageViews = new MessageViews(identity, mediaLinks, docs);
    this.chats = new ChatStore(
      redis,
      this.chatsRepo,
      k,
      batch,
      identity,
      mediaLinks,
      this.messageViews,
      docs,
      opts.retentionMs,
    );
  }

  messageKey(instanceId: string, networkId: string): string {
    return this.k.readDoc(instanceId, networkId);
  }

  chatKey(instanceId: string, chatId: string): string {
    return this.chats.recordKey(instanceId, chatId);
  }

  chatStateKey(instanceId: string, chatId: string): string {
    return this.chats.stateKey(instanceId, chatId);
  }

  /**
   * What this process remembers to spare reads (memo.ts), forgotten for an instance: deleted, or
   * taken over by a pod (another process may have written meanwhile). Null: every instance's.
   */
  forget(instanceId: string | null): void {
    this.writes.forget(instanceId);
    this.chats.forget(instanceId);
  }

  // --- writes ------------------------------------------------------------------------------

  /**
   * An event the session manager publishes (spec 2.11 payload): messages are stored and update
   * their chat; edits and revocations change the message they name. What the instance's
   * `settings.storage` turns off is not stored.
   */
  async record(instance: Instance, kind: string, payload: Payload, extra: RecordExtra = {}): Promise<void> {
    const storage = instance.settings.storage;
    if (kind === "message" || kind === "message.any") {
      const doc = docOf(payload, extra);
      if (!doc || doc.chatId === "status@broadcast") return;
      await Promise.all([
        storage.messages ? this.writes.save(instance, doc) : null,
        storage.chats ? this.chats.touch(instance.id, doc, str(payload.chatName)) : null,
      ]);
      return;
    }
    if (!storage.messages) return;
    const raw = extra.targetId ?? str(payload.messageId);
    if (!raw) return;
    const target = parseMessageId(raw)?.id ?? raw;
    const at = Number(payload.timestamp) || Math.floor(Date.now() / 1000);
    if (kind === "message.edited") {
      const text = String(payload.text ?? "");
      await this.writes.rewrite(instance.id, target, (d) => ({ ...d, body: text, edited: true, editedAt: at }));
    } else if (kind === "message.revoked") {
      // Revoked for everyone: the message keeps its place in the history, without its content.
      await this.writes.rewrite(instance.id, target, (d) => {
        const { media: _media, hasMedia: _hasMedia, raw, keeps, ...rest } = d;
        const next: MessageDoc = { ...rest, revoked: true, revokedAt: at, type: "revoked", body: "" };
        // The kept message (forwards, quotes, retries by id) outlives a revocation, as it did in
        // a record of its own; reads show none of it.
        if (keeps) Object.assign(next, { raw, keeps });
        return next;
      });
    }
  }

  /** A `message.ack` of a message this account sent (spec 2.9 status). */
  async ack(instance: Instance, networkId: string, status: string): Promise<void> {
    if (!instance.settings.storage.messages) return;
    await this.writes.ack(instance.id, networkId, status);
  }

  /** Received messages read by this account (`POST …/messages/read`): ack READ; the chat's unread cleared. */
  async markRead(instance: Instance, networkIds: string[], chatId: string): Promise<void> {
    await Promise.all([
      this.writes.raise(instance.id, networkIds, ACK.READ),
      instance.settings.storage.chats ? this.chats.mark(instance.id, chatId, "read") : null,
    ]);
  }

  /** `POST /chats/{chatId}/unread`: the chat shows as unread (at least one) until read or answered. */
  async markUnread(instance: Instance, chatId: string): Promise<void> {
    if (!instance.settings.storage.chats) return;
    await this.chats.mark(instance.id, chatId, "unread");
  }

  /**
   * Whether a message sent through the API is kept by its read-model document (its `raw` is the
   * content whole) instead of a record of its own in the message store: messages stored, kept at
   * least as long as the store would (7 days), and a content without media bytes that `raw`
   * carries unchanged. The caller then records it with `keep: true` and skips the store's save:
   * one write per send instead of two.
   */
  keeps(instance: Instance, payload: Payload, content: unknown): boolean {
    return (
      instance.settings.storage.messages &&
      this.retentionMs >= MESSAGE_KEEP_MS &&
      payload.raw === content &&
      typeof content === "object" &&
      content !== null &&
      !("media" in content) &&
      // What record() stores: a message with an id, not a status post.
      typeof payload.id === "string" &&
      typeof payload.chatId === "string" &&
      payload.chatId !== "status@broadcast" &&
      sanitizeRaw(content) === content
    );
  }

  /** Messages already in stored form, pipelined (bulk loads and benchmarks). */
  saveMany(instanceId: string, docs: MessageDoc[]): Promise<void> {
    return this.writes.saveMany(instanceId, docs);
  }

  /** The stored form of a spec 2.11 message payload (null when it names no message). */
  docOf(payload: Payload, extra: RecordExtra = {}, now = Date.now()): MessageDoc | null {
    return docOf(payload, extra, now);
  }

  // --- reads -------------------------------------------------------------------------------

  /** Spec 4.5 `GET /chats/{chatId}/messages` (pages.ts). */
  async listMessages(instance: Instance, chatId: string, q: MessageQuery): Promise<MessageView[]> {
    if (!instance.settings.storage.messages) return [];
    return this.messageViews.views(instance, await this.pages.list(instance, chatId, q), q.downloadMedia);
  }

  /** Received messages of a chat not read yet (for `POST …/messages/read`), newest first. */
  async unreadMessages(
    instance: Instance,
    chatId: string,
    opts: { limit: number; sinceSeconds?: number },
  ): Promise<{ id: string; networkId: string; chatId: string; storedId: string }[]> {
    if (!instance.settings.storage.messages) return [];
    const { ids } = await chatFamily(this.identity, instance.id, chatId);
    const docs = await this.pages.unread(instance.id, ids, opts);
    const views = await this.messageViews.views(instance, docs, false);
    return views.map((v, i) => {
      const d = docs[i]!;
      // The id as the network knows the chat (a lid-era message is read in its lid chat).
      const storedId = formatStoredId(d);
      return { id: v.id, networkId: d.networkId, chatId: d.chatId, storedId };
    });
  }

  /** One message by its API id (or bare network id), if it belongs to the chat (merged: to the person). */
  async getMessage(
    instance: Instance,
    chatId: string,
    messageId: string,
    opts: { merge: boolean; downloadMedia: boolean },
  ): Promise<MessageView | null> {
    const doc = await this.getDoc(instance, chatId, messageId, opts.merge);
    if (!doc) return null;
    return (await this.messageViews.views(instance, [doc], opts.downloadMedia))[0] ?? null;
  }

  /** The stored message behind an id, if it belongs to the chat. */
  async getDoc(instance: Instance, chatId: string, messageId: string, merge = true): Promise<MessageDoc | null> {
    if (!instance.settings.storage.messages) return null;
    return this.pages.get(instance, chatId, messageId, merge);
  }

  /** Stored documents with their acks, by network id (null where none): tools and tests. */
  storedDocs(instanceId: string, networkIds: string[]): Promise<(MessageDoc | null)[]> {
    return this.pages.docs(instanceId, networkIds);
  }

  /** Stored messages → spec 2.8 read shapes (views.ts). */
  views(instance: Instance, docs: MessageDoc[], downloadMedia: boolean): Promise<MessageView[]> {
    return this.messageViews.views(instance, docs, downloadMedia);
  }

  /** Spec 4.5 `GET /chats` and the overview (chats.ts). */
  async listChats(instance: Instance, q: ChatQuery): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    if (!instance.settings.storage.chats) return [];
    return this.chats.list(instance, q);
  }

  /** One chat record (merged: the one that shows the person), or null. */
  async getChat(instance: Instance, chatId: string): Promise<ChatView | null> {
    if (!instance.settings.storage.chats) return null;
    return this.chats.get(instance, chatId);
  }
}

function formatStoredId(d: MessageDoc): string {
  return formatMessageId({
    fromMe: d.fromMe,
    chatId: d.chatId,
    id: d.networkId,
    ...(d.participant ? { participant: d.participant } : {}),
  });
}
