import { isMediaRef, type MediaRef, mediaOf, type Platform } from "@gw/platform";
import type { SessionDirectory } from "./directory.ts";

const DAY_MS = 86_400_000;

export interface MediaBytes {
  /** The bytes: an object of the media store (streamed by the file route, read whole by the help desk). */
  media: MediaRef;
  mimetype: string;
  filename?: string | null;
}

/**
 * The bytes of a message's media, wherever they are: kept with the message (sent through the
 * API, inline on simnet: the record's media store object), else downloaded by the instance's owner
 * (Baileys, the Cloud API) once, put in the media store and remembered by a small Redis reference
 * for the store's retention — a link opened by several people, or again days later, costs one
 * download. Null when neither has them. The signed file route and the help-desk relay both read
 * media this way; neither holds base64 on the way.
 */
export async function messageMedia(
  platform: Pick<Platform, "messages" | "keys" | "redis" | "media">,
  sessions: SessionDirectory,
  instanceId: string,
  networkId: string,
): Promise<MediaBytes | null> {
  const stored = await platform.messages.get(instanceId, networkId);
  const kept = stored ? mediaOf(stored.content) : undefined;
  if (stored?.media && kept) return { media: stored.media, mimetype: kept.mimetype, filename: kept.filename ?? null };
  if (kept?.data) {
    // A record written before the media store held its bytes inline (for 7 days after the upgrade).
    const media = await platform.media.put(instanceId, Buffer.from(kept.data, "base64"));
    return { media, mimetype: kept.mimetype, filename: kept.filename ?? null };
  }
  const key = platform.keys.mediaCache(instanceId, networkId);
  const hit = await platform.redis.get(key);
  if (hit) {
    const known = JSON.parse(hit) as Partial<MediaBytes>;
    // An entry of the cache before the media store (base64 inline) is downloaded again.
    if (isMediaRef(known.media) && known.mimetype) return known as MediaBytes;
  }
  const owner = await sessions.ownerIfAny(instanceId);
  const fetched = owner ? await owner.downloadMedia(instanceId, networkId).catch(() => null) : null;
  if (!fetched) return null;
  const media = await platform.media.put(instanceId, Buffer.from(fetched.data, "base64"));
  const found: MediaBytes = { media, mimetype: fetched.mimetype, filename: null };
  await platform.redis.set(key, JSON.stringify(found), "PX", platform.media.retentionDays * DAY_MS);
  return found;
}
