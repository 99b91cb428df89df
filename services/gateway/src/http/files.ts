import { ApiError, normalizeChatId, parseMessageId } from "@gw/contracts";
import { CONVERTED_ID_RE, type Platform } from "@gw/platform";
import { messageMedia, type SessionDirectory } from "@gw/session";
import type { FastifyInstance, FastifyReply } from "fastify";

const FILE_RE = /^(.+)\.([A-Za-z0-9]{1,8})$/;
/** Pictures are cached a day (spec 4.5: "24 h cache by default"). */
export const AVATAR_CACHE_MS = 24 * 3_600_000;

const notFoundBody = { error: { code: "not_found", message: "Arquivo não encontrado ou link expirado." } };

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
): Promise<{ data: string; mimetype: string } | null> {
  const key = platform.keys.avatar(instanceId, chatId);
  if (!opts.refresh) {
    const hit = await platform.redis.get(key);
    if (hit) return hit === "none" ? null : (JSON.parse(hit) as { data: string; mimetype: string });
  }
  await opts.beforeNetwork?.();
  const owner = await sessions.ownerIfAny(instanceId);
  if (!owner) return null;
  const picture = await owner.picture(instanceId, chatId).catch(() => undefined);
  if (picture === undefined) return null; // not connected or the network failed: nothing cached
  await platform.redis.set(key, picture ? JSON.stringify(picture) : "none", "PX", AVATAR_CACHE_MS);
  return picture;
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

/** `data`: the bytes, or their base64 (as messages and pictures are stored). */
function sendBytes(reply: FastifyReply, data: Buffer | string, mimetype: string) {
  const bytes = typeof data === "string" ? Buffer.from(data, "base64") : data;
  return reply
    .header("content-type", mimetype)
    .header("content-length", bytes.length)
    .header("cache-control", "private, max-age=3600")
    .send(bytes);
}

/**
 * Signed links (spec 2.11, 5.7): `GET /v1/files/<instanceId>/<messageId>.<ext>` (media of a
 * message, or a kept conversion `cv_…`: docs/media.md) and `GET /v1/avatars/<instanceId>/<chatId>.jpg` (a picture), both with `?exp&sig`.
 * No token: the signature authorizes. Expired, tampered or unknown links, and contacts without
 * a visible picture, answer 404 alike. Bytes come from Redis (the message store, the picture
 * cache) or the instance's owner, so any replica serves any link.
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
      return sendBytes(reply, converted.data, converted.mimetype);
    }
    const ref = parseMessageId(name);
    if (!ref) return reply.code(404).send(notFoundBody);
    const fetched = await messageMedia(platform, sessions, instanceId, ref.id);
    if (!fetched) return reply.code(404).send(notFoundBody);
    return sendBytes(reply, fetched.data, fetched.mimetype);
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
    return sendBytes(reply, picture.data, picture.mimetype);
  });
}
