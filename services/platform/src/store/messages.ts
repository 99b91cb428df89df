import { createHash } from "node:crypto";
import type { OutboundContent } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";

/** How long a message stays findable by id (forwards, reactions, quotes by bare id). */
export const MESSAGE_KEEP_MS = 7 * 86_400_000;
/** Media above this are not kept: forwarding such a message answers that its media is gone. */
export const MESSAGE_MEDIA_KEEP_MAX = 16 * 1024 * 1024;

export interface StoredMessage {
  /** The network's id. */
  id: string;
  chatId: string;
  fromMe: boolean;
  participant?: string;
  timestamp: number;
  /** What was sent, in the provider contract's shape; media without bytes when too big to keep. */
  content: OutboundContent;
  /** False when the content had media whose bytes were not kept. */
  mediaKept: boolean;
  /**
   * sha256 of the content as sent: a retry with the same id must carry the same content. Stored
   * only when the content is not kept whole (its media left out); else {@link storedHash}
   * computes it from the content when a retry asks (rarely), not at every send.
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
 * message with a TTL: written once, read rarely.
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
  ) {
    batch.register("keepMessage", KEEP, { keys: 1, args: 2 });
  }

  async save(instanceId: string, message: Omit<StoredMessage, "mediaKept">): Promise<void> {
    let content = message.content;
    let hash = message.contentHash;
    let mediaKept = true;
    const media = "media" in content ? content.media : undefined;
    if (media && media.data.length * 0.75 > MESSAGE_MEDIA_KEEP_MAX) {
      hash ??= contentHash(content);
      content = { ...content, media: { ...media, data: "" } } as OutboundContent;
      mediaKept = false;
    }
    // Field by field, not `{...message, …}`: properties added after a spread are slow on Node 20 (sent.ts).
    const doc: StoredMessage = {
      id: message.id,
      chatId: message.chatId,
      fromMe: message.fromMe,
      ...(message.participant ? { participant: message.participant } : {}),
      timestamp: message.timestamp,
      content,
      mediaKept,
      ...(hash ? { contentHash: hash } : {}),
    };
    // In the turn's batch: a send's other writes (events, read model) go with it.
    await this.batch.run(
      "keepMessage",
      [this.k.message(instanceId, message.id)],
      [JSON.stringify(doc), MESSAGE_KEEP_MS],
    );
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
