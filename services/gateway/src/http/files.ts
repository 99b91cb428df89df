import { ApiError, normalizeChatId, parseMessageId } from "@gw/contracts";
import { CONVERTED_ID_RE, isMediaRef, type MediaRef, type Platform, parseRange } from "@gw/platform";
import { messageMedia, type SessionDirectory } from "@gw/session";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

const FILE_RE = /^(.+)\.([A-Za-z0-9]{1,8})$/;
/** Pictures are cached a day (spec 4.5: "24 h cache by default"). */
export const AVATAR_CACHE_MS = 24 * 3_600_000;
/**
 * A picture up to this size stays inline in its Redis cache entry (a thumbnail: a store round trip
 * would cost more than the bytes); larger ones go to the media store ("pictures if large").
 */
export const PICTURE_INLINE_MAX = 4096;
/** A presigned URL (MEDIA_REDIRECT) lives at most this long, and never past the signed link. */
const PRESIGN_MAX_S = 3600;

const notFoundBody = { error: { code: "not_found", message: "Arquivo não encontrado ou link expirado." } };

/** A picture as its cache keeps it: inline base64 (up to {@link PICTURE_INLINE_MAX}) or a media store object. */
export interface CachedPicture {
  mimetype: string;
  data?: string;
  media?: MediaRef;
}

/**
 * A contact's or group's picture: the day's cache, else the instance's owner asks the network.
 * `beforeNetwork` runs on a cache miss, before asking (a route that must answer `instance_not_connected`
 * rather than 404 throws there).
 */
export async function avatarOf(
  platform: Platform,
  sessions: SessionDirectory,
  instanceId: string,
  chatId: string,
  opts: { refresh?: boolean; beforeNetwork?: () => Promise<unknown> } = {},
): Promise<CachedPicture | null> {
  const key = platform.keys.avatar(instanceId, chatId);
  if (!opts.refresh) {
    const hit = await platform.redis.get(key);
    if (hit) return hit === "none" ? null : (JSON.parse(hit) as CachedPicture);
  }
  await opts.beforeNetwork?.();
  const owner = await sessions.ownerIfAny(instanceId);
  if (!owner) return null;
  const picture = await owner.picture(instanceId, chatId).catch(() => undefined);
  if (picture === undefined) return null; // not connected or the network failed: nothing cached
  return cachePicture(platform, instanceId, chatId, picture);
}

/**
 * Keeps a picture's bytes for a day behind its avatar link (`null`: the chat has none): a
 * thumbnail-sized one inline, a larger one in the media store with its reference in Redis. Every
 * writer of the cache goes through here (contacts, groups, channels), so none leaves a large
 * picture's base64 in Redis.
 */
export async function cachePicture(
  platform: Platform,
  instanceId: string,
  chatId: string,
  picture: { data: string; mimetype: string } | null,
): Promise<CachedPicture | null> {
  let cached: CachedPicture | null = picture;
  const bytes = picture ? Buffer.from(picture.data, "base64") : null;
  if (picture && bytes && bytes.length > PICTURE_INLINE_MAX) {
    cached = { mimetype: picture.mimetype, media: await platform.media.put(instanceId, bytes) };
  }
  const key = platform.keys.avatar(instanceId, chatId);
  await platform.redis.set(key, cached ? JSON.stringify(cached) : "none", "PX", AVATAR_CACHE_MS);
  return cached;
}

/**
 * `GET …/picture` of chats and contacts: the signed link of a picture that is visible now (cached a
 * day; `refresh` asks the network again), else `404` with `notFound`.
 */
export async function pictureLink(
  platform: Platform,
  sessions: SessionDirectory,
  instanceId: string,
  chatId: string,
  opts: { refresh?: boolean; notFound: string; beforeNetwork?: () => Promise<unknown> },
): Promise<{ url: string }> {
  const picture = await avatarOf(platform, sessions, instanceId, chatId, opts);
  if (!picture) throw new ApiError("not_found", opts.notFound);
  return { url: platform.mediaLinks.avatar(instanceId, chatId) };
}

/** What a link serves: a media store object, or small inline bytes (a thumbnail-sized picture). */
interface Served {
  mimetype: string;
  filename?: string | null;
  media?: MediaRef;
  inline?: Buffer;
}

/**
 * The bytes of a link, streamed: `Content-Length`, `Accept-Ranges: bytes` and one range per request
 * (206 with `Content-Range`; 416 past the end); the store's stream is piped as it arrives — no
 * whole-file buffer, no base64. With MEDIA_REDIRECT and a store that presigns (s3), a 302 to the
 * store instead, valid no longer than the signed link (`exp`, seconds).
 */
async function serve(
  platform: Platform,
  instanceId: string,
  exp: number,
  req: FastifyRequest,
  reply: FastifyReply,
  what: Served,
) {
  const size = what.media?.size ?? what.inline?.length ?? 0;
  const { media } = what;
  if (media && platform.config.MEDIA_REDIRECT) {
    const expiresInS = Math.min(PRESIGN_MAX_S, Math.max(1, exp - Math.floor(Date.now() / 1000)));
    const url = await platform.media.presign(instanceId, media.sha256, {
      mimetype: what.mimetype,
      filename: what.filename ?? undefined,
      expiresInS,
    });
    if (url) return reply.code(302).header("location", url).header("cache-control", "no-store").send();
  }
  const etag = media ? `"${media.sha256}"` : undefined;
  // If-Range: a range of the same bytes only (an object's address is its hash, so its ETag never goes stale).
  const ifRange = req.headers["if-range"];
  const asked = ifRange && ifRange !== etag ? null : parseRange(req.headers.range, size);
  if (asked === "unsatisfiable") {
    return reply.code(416).header("accept-ranges", "bytes").header("content-range", `bytes */${size}`).send();
  }
  const range = asked ?? undefined;
  // HEAD: Fastify drains whatever stream it is given (and keeps our Content-Length): one byte
  // proves the object is there without reading the rest from the store.
  const head = req.method === "HEAD";
  const body = media
    ? await platform.media.open(instanceId, media.sha256, head ? { start: 0, end: 0 } : range)
    : (what.inline ?? null);
  if (!body) return reply.code(404).send(notFoundBody); // past the store's retention
  reply
    .header("content-type", what.mimetype)
    .header("accept-ranges", "bytes")
    .header("cache-control", "private, max-age=3600");
  if (etag) reply.header("etag", etag);
  if (range) {
    reply.code(206).header("content-range", `bytes ${range.start}-${range.end}/${size}`);
  }
  reply.header("content-length", range ? range.end - range.start + 1 : size);
  return reply.send(Buffer.isBuffer(body) && range ? body.subarray(range.start, range.end + 1) : body);
}

/**
 * Signed links (spec 2.11, 5.7): `GET /v1/files/<instanceId>/<messageId>.<ext>` (media of a
 * message, or a kept conversion `cv_…`: docs/media.md) and `GET /v1/avatars/<instanceId>/<chatId>.jpg` (a picture), both with `?exp&sig`.
 * No token: the signature authorizes. Expired, tampered or unknown links, and contacts without
 * a visible picture, answer 404 alike. Redis holds where the bytes are (a message's record, the
 * download and picture caches, a conversion's entry), the media store the bytes, or the instance's
 * owner downloads them first — so any replica serves any link.
 */
export function registerSignedFiles(app: FastifyInstance, platform: Platform, sessions: SessionDirectory): void {
  app.get("/v1/files/:instanceId/:file", async (req, reply) => {
    const { instanceId, file } = req.params as { instanceId: string; file: string };
    const { exp, sig } = req.query as { exp?: string; sig?: string };
    if (!platform.mediaLinks.verify(`/v1/files/${instanceId}/${file}`, exp, sig)) {
      return reply.code(404).send(notFoundBody);
    }
    const name = FILE_RE.exec(file)?.[1] ?? "";
    if (CONVERTED_ID_RE.test(name)) {
      const converted = await platform.converted.get(instanceId, name);
      if (!converted) return reply.code(404).send(notFoundBody);
      return serve(platform, instanceId, Number(exp), req, reply, converted);
    }
    const ref = parseMessageId(name);
    if (!ref) return reply.code(404).send(notFoundBody);
    const fetched = await messageMedia(platform, sessions, instanceId, ref.id);
    if (!fetched) return reply.code(404).send(notFoundBody);
    return serve(platform, instanceId, Number(exp), req, reply, fetched);
  });

  app.get("/v1/avatars/:instanceId/:file", async (req, reply) => {
    const { instanceId, file } = req.params as { instanceId: string; file: string };
    const { exp, sig } = req.query as { exp?: string; sig?: string };
    if (!platform.mediaLinks.verify(`/v1/avatars/${instanceId}/${file}`, exp, sig)) {
      return reply.code(404).send(notFoundBody);
    }
    const chatId = normalizeChatId(FILE_RE.exec(file)?.[1] ?? "");
    const picture = chatId ? await avatarOf(platform, sessions, instanceId, chatId) : null;
    if (!picture) return reply.code(404).send(notFoundBody);
    const served: Served = isMediaRef(picture.media)
      ? { mimetype: picture.mimetype, media: picture.media }
      : { mimetype: picture.mimetype, inline: Buffer.from(picture.data ?? "", "base64") };
    return serve(platform, instanceId, Number(exp), req, reply, served);
  });
}
