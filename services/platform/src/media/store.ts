import { createHash } from "node:crypto";
import type { Readable } from "node:stream";

/**
 * The media store (docs/media.md "Where media bytes live"): every media byte the gateway keeps —
 * media sent through the API, media received inline or downloaded on demand, converted files,
 * large pictures — is an object here; Redis keeps only a {@link MediaRef} beside its record.
 *
 * Objects are content-addressed per instance: `<instanceId>/sha256/<hex>`. The same file sent
 * to 1,000 chats is one object. The instance in the address (instead of one global
 * `sha256/<hex>`) is what makes deleting an instance's media one prefix delete, with no
 * reference count to keep exact across processes, retries and TTL expiries that Redis never
 * reports; a file shared by two instances costs two objects, which is rare (a number's own
 * campaign is the common repeat) and bounded by the retention.
 *
 * Retention: an object lives {@link MediaStore.retentionDays} days after the last put of its
 * bytes (a put of bytes already there refreshes an object older than {@link TOUCH_AFTER_MS}), and
 * is removed one day later at most (the directory store's sweep, the bucket's lifecycle rule).
 */

/** A stored object as a record keeps it: its hash and size (the instance is the record's own). */
export interface MediaRef {
  sha256: string;
  size: number;
}

/** Inclusive byte positions, as HTTP ranges count them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PresignOptions {
  mimetype: string;
  filename?: string | undefined;
  expiresInS: number;
}

export interface MediaStore {
  readonly kind: "dir" | "s3";
  /** Days an object is kept after its last put (the 7-day rule by default). */
  readonly retentionDays: number;
  /** Stores the bytes (nothing is written when the same bytes are there and fresh). */
  put(instanceId: string, bytes: Uint8Array, sha256?: string): Promise<MediaRef>;
  /** A stream of the object's bytes (a range of them), opened; null when there is no such object. */
  open(instanceId: string, sha256: string, range?: ByteRange): Promise<Readable | null>;
  /** The whole object in memory (the help desk's upload, a forward): null when gone. */
  read(instanceId: string, sha256: string): Promise<Buffer | null>;
  /** A time-limited URL the client may fetch directly; null when the store has none (a directory). */
  presign(instanceId: string, sha256: string, opts: PresignOptions): Promise<string | null>;
  /** Deletes every object of the instance (a deleted instance); answers how many. */
  removeInstance(instanceId: string): Promise<number>;
  close(): Promise<void>;
}

/** An object older than this is touched when its bytes are put again, so that it outlives the new message. */
export const TOUCH_AFTER_MS = 86_400_000;

const HEX_RE = /^[0-9a-f]{64}$/;
const INSTANCE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** The object's address; throws on anything that is not an instance id and a sha256 (no path tricks). */
export function objectKey(instanceId: string, sha256: string): string {
  if (!INSTANCE_RE.test(instanceId)) throw new Error(`media store: bad instance id ${JSON.stringify(instanceId)}`);
  if (!HEX_RE.test(sha256)) throw new Error("media store: bad sha256");
  return `${instanceId}/sha256/${sha256}`;
}

/** The prefix of every object of an instance. */
export function instancePrefix(instanceId: string): string {
  if (!INSTANCE_RE.test(instanceId)) throw new Error(`media store: bad instance id ${JSON.stringify(instanceId)}`);
  return `${instanceId}/`;
}

export const isMediaRef = (v: unknown): v is MediaRef =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as MediaRef).sha256 === "string" &&
  HEX_RE.test((v as MediaRef).sha256) &&
  Number.isInteger((v as MediaRef).size);

/**
 * What this process knows was fresh in the store (key → its last-modified ms): a campaign's
 * 1,000 sends of one file cost one existence check, not 1,000. Bounded; an entry is trusted
 * only while younger than {@link TOUCH_AFTER_MS}, which the retention's extra day covers.
 */
export class FreshObjects {
  private readonly known = new Map<string, number>();
  constructor(private readonly max = 10_000) {}

  isFresh(key: string, now = Date.now()): boolean {
    const at = this.known.get(key);
    return at !== undefined && now - at < TOUCH_AFTER_MS;
  }

  mark(key: string, at = Date.now()): void {
    this.known.delete(key);
    this.known.set(key, at);
    if (this.known.size > this.max) this.known.delete(this.known.keys().next().value as string);
  }

  forgetPrefix(prefix: string): void {
    for (const key of this.known.keys()) if (key.startsWith(prefix)) this.known.delete(key);
  }
}
