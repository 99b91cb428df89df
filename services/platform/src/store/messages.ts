import { createHash } from "node:crypto";
import type { OutboundContent, OutboundMedia } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";
import { type MediaRef, type MediaStore, sha256Hex } from "../media/store.ts";

/** How long a message stays findable by id (forwards, reactions, quotes by bare id). */
export const MESSAGE_KEEP_MS = 7 * 86_400_000;
/**
 * Media above this are not kept: forwarding such a message answers that its media is gone. The
 * bytes live in the media store, not Redis, so the bound is the largest file a send takes
 * (MEDIA_MAX_BYTES' default), not what one Redis value should hold (16 MB before).
 */
export const MESSAGE_MEDIA_KEEP_MAX = 100 * 1024 * 1024;

export interface StoredMessage {
  /** The network's id. */
  id: string;
  chatId: string;
  fromMe: boolean;
  participant?: string;
  timestamp: number;
  /**
   * What was sent, in the provider contract's shape. Its media's `data` is empty: the bytes are
   * the media store's object {@link media} ({@link MessageStore.contentWithMedia} puts them back).
   */
  content: OutboundContent;
  /** False when the content had media whose bytes were not kept. */
  mediaKept: boolean;
  /** The media store's object holding the content's media bytes. */
  media?: MediaRef;
  /**
   * sha256 of the content as sent: a retry with the same id must carry the same content. Stored
   * when the content is not kept whole (media: its bytes are in the media store); else
   * {@link storedHash} computes it from the content when a retry asks (rarely), not at every send.
   */
  contentHash?: string;
}

/** The hash of what `message` carried when sent (null when its media is gone and no hash was kept). */
export function storedHash(message: StoredMessage): string | null {
  return message.contentHash ?? (message.mediaKept ? contentHash(message.content) : null);
}

/** The hash a retry under the same message id is compared with. */
export function contentHash(content: OutboundContent): string {
  return createHash("sha256").update(JSON.stringify(content)).digest("base64url");
}

/** KEYS: the message. ARGV: json, ttl ms. */
const KEEP = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`;

/**
 * The messages an instance sent (and, with the read model, received), by network id, for the
 * operations that name an earlier message: forward, reaction, quote, vote. One JSON string per
 * message with a TTL: written once, read rarely. Media bytes are never in it: they go to the
 * media store (content-addressed, so a file sent to many chats is one object) and the record
 * keeps their {@link MediaRef}.
 *
 * A message sent through the API whose read-model document carries its content whole
 * (`keeps: true`, `raw` = the content; ReadModel.keeps) has no record here: {@link get} reads
 * that document instead, for 7 days after the send as a record here would live. One write per
 * send instead of two (docs/benchmarks.md, tenth round).
 */
export class MessageStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly batch: ScriptBatch,
    private readonly media: MediaStore,
  ) {
    batch.register("keepMessage", KEEP, { keys: 1, args: 2 });
  }

  /**
   * Keeps a message; its media bytes go to the media store. The record is written in the caller's
   * loop turn (with the send's events and read model: one script call) while the bytes upload
   * beside it; a send through the API uploaded them before the network send already
   * (`@gw/sending` media/keep.ts), so this is an existence check. If the store fails, the record
   * is written again without its media (a forward then answers that the media is gone) and the
   * error is thrown for the caller to log.
   */
  async save(instanceId: string, message: Omit<StoredMessage, "mediaKept" | "media">): Promise<void> {
    let content = message.content;
    let hash = message.contentHash;
    let ref: MediaRef | undefined;
    let upload: Promise<MediaRef> | null = null;
    const media = mediaOf(content);
    if (media?.data) {
      hash ??= contentHash(content);
      content = withMediaData(content, "");
      const bytes = Buffer.from(media.data, "base64");
      if (bytes.length <= MESSAGE_MEDIA_KEEP_MAX) {
        ref = { sha256: sha256Hex(bytes), size: bytes.length };
        upload = this.media.put(instanceId, bytes, ref.sha256);
      }
    }
    const doc = recordOf(message, content, hash, ref, !media?.data || ref !== undefined);
    const written = this.write(instanceId, doc);
    if (!upload) {
      await written;
      return;
    }
    const [w, u] = await Promise.allSettled([written, upload]);
    if (w.status === "rejected") throw w.reason;
    if (u.status === "rejected") {
      const { media: _lost, ...rest } = doc;
      await this.write(instanceId, { ...rest, mediaKept: false });
      throw new Error(`media store: the bytes of message ${message.id} were not kept`, { cause: u.reason });
    }
  }

  /** In the turn's batch: a send's other writes (events, read model) go with it. */
  private write(instanceId: string, doc: StoredMessage): Promise<unknown> {
    return this.batch.run("keepMessage", [this.k.message(instanceId, doc.id)], [JSON.stringify(doc), MESSAGE_KEEP_MS]);
  }

  /**
   * The kept content with its media bytes back (a forward sends them again); null when they are
   * gone (too big to keep, the store failed, or past the retention).
   */
  async contentWithMedia(instanceId: string, stored: StoredMessage): Promise<OutboundContent | null> {
    if (!stored.mediaKept) return null;
    if (!stored.media) return stored.content; // no media, or a record from before the media store
    const bytes = await this.media.read(instanceId, stored.media.sha256);
    return bytes ? withMediaData(stored.content, bytes.toString("base64")) : null;
  }

  /** The provider's own form of a message (Baileys: the WAMessage as BufferJSON), for its retries and quotes. */
  async saveRaw(instanceId: string, networkId: string, raw: string): Promise<void> {
    await this.redis.set(this.k.rawMessage(instanceId, networkId), raw, "PX", MESSAGE_KEEP_MS);
  }

  async getRaw(instanceId: string, networkId: string): Promise<string | null> {
    return this.redis.get(this.k.rawMessage(instanceId, networkId));
  }

  async get(instanceId: string, networkId: string): Promise<StoredMessage | null> {
    const [raw, doc] = await this.redis.mget(
      this.k.message(instanceId, networkId),
      this.k.readDoc(instanceId, networkId),
    );
    if (raw) return JSON.parse(raw) as StoredMessage;
    return doc ? keptInReadModel(doc) : null;
  }
}

/** The record of a message, field by field (not `{...message, …}`: properties added after a spread are slow on Node 20, sent.ts). */
function recordOf(
  message: Omit<StoredMessage, "mediaKept" | "media">,
  content: OutboundContent,
  hash: string | undefined,
  media: MediaRef | undefined,
  mediaKept: boolean,
): StoredMessage {
  return {
    id: message.id,
    chatId: message.chatId,
    fromMe: message.fromMe,
    ...(message.participant ? { participant: message.participant } : {}),
    timestamp: message.timestamp,
    content,
    mediaKept,
    ...(media ? { media } : {}),
    ...(hash ? { contentHash: hash } : {}),
  };
}

/** The one media object a content carries: a media kind's, a header's (buttons, template) or a link preview's image. */
export function mediaOf(content: OutboundContent): OutboundMedia | undefined {
  if ("media" in content) return content.media;
  if ((content.type === "buttons" || content.type === "template") && content.header && "media" in content.header) {
    return content.header.media;
  }
  if (content.type === "link_preview") return content.preview.image;
  return undefined;
}

/** The content with its media's base64 bytes replaced by `data` ("" leaves them out). */
export function withMediaData(content: OutboundContent, data: string): OutboundContent {
  if ("media" in content) return { ...content, media: { ...content.media, data } } as OutboundContent;
  if ((content.type === "buttons" || content.type === "template") && content.header && "media" in content.header) {
    return { ...content, header: { ...content.header, media: { ...content.header.media, data } } };
  }
  if (content.type === "link_preview" && content.preview.image) {
    return { ...content, preview: { ...content.preview, image: { ...content.preview.image, data } } };
  }
  return content;
}

/** The kept message a read-model document holds (`keeps`: an API send's content as `raw`), within 7 days. */
function keptInReadModel(json: string): StoredMessage | null {
  const d = JSON.parse(json) as {
    networkId: string;
    chatId: string;
    fromMe: boolean;
    participant?: string;
    timestamp: number;
    raw?: OutboundContent;
    keeps?: boolean;
  };
  if (!d.keeps || !d.raw || Date.now() - d.timestamp * 1000 >= MESSAGE_KEEP_MS) return null;
  return {
    id: d.networkId,
    chatId: d.chatId,
    fromMe: d.fromMe,
    ...(d.participant ? { participant: d.participant } : {}),
    timestamp: d.timestamp,
    content: d.raw,
    mediaKept: true,
  };
}
