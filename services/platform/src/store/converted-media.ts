import type { Redis } from "ioredis";
import { randomBase32 } from "../infra/ids.ts";
import type { Keys } from "../infra/keys.ts";
import type { MediaRef, MediaStore } from "../media/store.ts";

export interface ConvertedFile {
  data: Buffer;
  mimetype: string;
  filename: string;
}

/** A kept conversion as the file route serves it: the media store's object and how to name it. */
export interface ConvertedRef {
  media: MediaRef;
  mimetype: string;
  filename: string;
}

/** Ids of kept conversions: `cv_` + 26 base32 characters (the file route tells them from message ids). */
export const CONVERTED_ID_RE = /^cv_[0-9a-z]{26}$/;

/**
 * Converted files kept behind a signed link (`POST /media/convert/* {output: "url"}`,
 * docs/media.md): the bytes in the media store, and in Redis one small hash per link (the
 * object's hash and size, mimetype, filename) with the link's own expiry, so any replica serves
 * it. The object outlives the link (the store's retention); the link ends with the hash.
 */
export class ConvertedMediaStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly media: MediaStore,
  ) {}

  async put(instanceId: string, file: ConvertedFile, ttlS: number): Promise<string> {
    const ref = await this.media.put(instanceId, file.data);
    const id = `cv_${randomBase32(26)}`;
    const key = this.k.converted(instanceId, id);
    await this.redis
      .multi()
      .hset(key, { sha256: ref.sha256, size: ref.size, mimetype: file.mimetype, filename: file.filename })
      .expire(key, ttlS)
      .exec();
    return id;
  }

  async get(instanceId: string, id: string): Promise<ConvertedRef | null> {
    if (!CONVERTED_ID_RE.test(id)) return null;
    const key = this.k.converted(instanceId, id);
    const [sha256, size, mimetype, filename] = await this.redis.hmget(key, "sha256", "size", "mimetype", "filename");
    if (!sha256 || !size || !mimetype) return null; // expired, or kept before the media store (an hour at most)
    return { media: { sha256, size: Number(size) }, mimetype, filename: filename ?? "file" };
  }
}
