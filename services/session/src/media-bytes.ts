import type { Platform } from "@gw/platform";
import type { SessionDirectory } from "./directory.ts";

/** Hot downloads are kept an hour, so a link opened by several people costs one download. */
const MEDIA_CACHE_MS = 3_600_000;
const MEDIA_CACHE_MAX = 16 * 1024 * 1024;

export interface MediaBytes {
  /** base64, as messages are kept. */
  data: string;
  mimetype: string;
  filename?: string | null;
}

/**
 * The bytes of a message's media, wherever they are: kept with the message (sent through the API,
 * inline on simnet), else downloaded by the instance's owner (Baileys, the Cloud API) through a
 * small Redis cache. Null when neither has them. The signed file route and the help-desk relay
 * both read media this way.
 */
export async function messageMedia(
  platform: Pick<Platform, "messages" | "keys" | "redis">,
  sessions: SessionDirectory,
  instanceId: string,
  networkId: string,
): Promise<MediaBytes | null> {
  const stored = await platform.messages.get(instanceId, networkId);
  const media = stored && "media" in stored.content ? stored.content.media : undefined;
  if (media?.data) return { data: media.data, mimetype: media.mimetype, filename: media.filename ?? null };
  const key = platform.keys.mediaCache(instanceId, networkId);
  const hit = await platform.redis.get(key);
  if (hit) return JSON.parse(hit) as MediaBytes;
  const owner = await sessions.ownerIfAny(instanceId);
  const fetched = owner ? await owner.downloadMedia(instanceId, networkId).catch(() => null) : null;
  if (fetched && fetched.data.length * 0.75 <= MEDIA_CACHE_MAX) {
    await platform.redis.set(key, JSON.stringify(fetched), "PX", MEDIA_CACHE_MS);
  }
  return fetched;
}
