import { parseMessageId } from "@gw/contracts";
import type { Platform } from "@gw/platform";
import type { FastifyInstance } from "fastify";

const FILE_RE = /^(.+)\.([A-Za-z0-9]{1,8})$/;

/**
 * Signed media links (spec 2.11, 5.7): `GET /v1/files/<instanceId>/<messageId>.<ext>?exp&sig`.
 * No token: the signature authorizes. Expired, tampered or unknown links answer 404 alike (a
 * prober learns nothing). Bytes come from the message store, so any replica serves any link.
 */
export function registerMediaFiles(app: FastifyInstance, platform: Platform): void {
  const notFound = { error: { code: "not_found", message: "Arquivo não encontrado ou link expirado." } };
  app.get("/v1/files/:instanceId/:file", async (req, reply) => {
    const { instanceId, file } = req.params as { instanceId: string; file: string };
    const { exp, sig } = req.query as { exp?: string; sig?: string };
    const path = `/v1/files/${instanceId}/${file}`;
    if (!platform.mediaLinks.verify(path, exp, sig)) return reply.code(404).send(notFound);
    const m = FILE_RE.exec(file);
    const ref = m ? parseMessageId(m[1]!) : null;
    if (!ref) return reply.code(404).send(notFound);
    const stored = await platform.messages.get(instanceId, ref.id);
    const media = stored && "media" in stored.content ? stored.content.media : undefined;
    if (!media?.data) return reply.code(404).send(notFound);
    const bytes = Buffer.from(media.data, "base64");
    return reply
      .header("content-type", media.mimetype)
      .header("content-length", bytes.length)
      .header("cache-control", "private, max-age=3600")
      .send(bytes);
  });
}
