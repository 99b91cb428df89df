import type { Redis } from "ioredis";
import { randomBase32 } from "../infra/ids.ts";
import type { Keys } from "../infra/keys.ts";

export interface ConvertedFile {
  data: Buffer;
  mimetype: string;
  filename: string;
}

/** Ids of kept conversions: `cv_` + 26 base32 characters (the file route tells them from message ids). */
export const CONVERTED_ID_RE = /^cv_[0-9a-z]{26}$/;

/**
 * Converted files kept behind a signed link (`POST /media/convert/* {output: "url"}`,
 * docs/media.md): one hash per file in Redis with its own expiry, so any replica serves the link.
 */
export class ConvertedMediaStore {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
  ) {}

  async put(instanceId: string, file: ConvertedFile, ttlS: number): Promise<string> {
    const id = `cv_${randomBase32(26)}`;
    const key = this.k.converted(instanceId, id);
    await this.redis
      .multi()
      .hset(key, { data: file.data, mimetype: file.mimetype, filename: file.filename })
      .expire(key, ttlS)
      .exec();
    return id;
  }

  async get(instanceId: string, id: string): Promise<ConvertedFile | null> {
    if (!CONVERTED_ID_RE.test(id)) return null;
    const key = this.k.converted(instanceId, id);
    const [data, mimetype, filename] = await this.redis.hmgetBuffer(key, "data", "mimetype", "filename");
    if (!data || !mimetype) return null;
    return { data, mimetype: mimetype.toString(), filename: filename?.toString() ?? "file" };
  }
}
