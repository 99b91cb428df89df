// Media (reference cloud-api.md §1.5): multipart upload → id, `GET /{media-id}` → a URL valid
// 5 minutes, the download itself with the Bearer token, delete.
import { createHash, randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { GraphFault } from "./graph-errors.ts";
import { type GraphAuth, graphRoute } from "./graph-kit.ts";
import { parseMultipart } from "./multipart.ts";
import type { CloudMockState, StoredMedia } from "./state.ts";

const MiB = 1_048_576;
/** Types and sizes the operator takes (§1.5). */
const LIMITS: [RegExp, number][] = [
  [/^audio\/(aac|amr|mpeg|mp4|ogg)$/, 16 * MiB],
  [/^image\/(jpeg|png)$/, 5 * MiB],
  [/^image\/webp$/, 500 * 1024],
  [/^video\/(mp4|3gpp)$/, 16 * MiB],
  [/^(text\/plain|application\/(pdf|msword|vnd\..+))$/, 100 * MiB],
];
const URL_TTL_MS = 5 * 60_000;

export function storeMedia(
  state: CloudMockState,
  phoneNumberId: string,
  data: Buffer,
  mimetype: string,
  filename?: string,
): StoredMedia {
  const m: StoredMedia = {
    id: String(10n ** 15n + BigInt(state.next()) * 7919n + BigInt(randomBytes(2).readUInt16BE())),
    phoneNumberId,
    data,
    mimetype,
    sha256: createHash("sha256").update(data).digest("base64"),
    ...(filename ? { filename } : {}),
  };
  state.media.set(m.id, m);
  return m;
}

export function mediaInfo(state: CloudMockState, m: StoredMedia) {
  const token = randomBytes(18).toString("base64url");
  state.downloads.set(token, { mediaId: m.id, until: Date.now() + URL_TTL_MS });
  return {
    messaging_product: "whatsapp",
    url: `${state.publicUrl()}/media-download/${token}`,
    mime_type: m.mimetype,
    sha256: m.sha256,
    file_size: String(m.data.length),
    id: m.id,
  };
}

export function registerMedia(app: FastifyInstance, state: CloudMockState, auth: GraphAuth): void {
  graphRoute(app, state, auth, "POST", "/:version/:pnid/media", "media", async (req, n) => {
    const parts = parseMultipart(req.body as Buffer, String(req.headers["content-type"] ?? ""));
    if (!parts) throw new GraphFault(100, "the body must be multipart/form-data");
    const field = (name: string) => parts.find((p) => p.name === name);
    if (field("messaging_product")?.data.toString() !== "whatsapp") {
      throw new GraphFault(131008, "messaging_product must be whatsapp");
    }
    const file = field("file");
    if (!file) throw new GraphFault(131008, "file is required");
    const type = (field("type")?.data.toString() || file.contentType || "").split(";")[0]!.trim();
    const limit = LIMITS.find(([re]) => re.test(type));
    if (!limit) throw new GraphFault(131053, `media type ${type || "(none)"} is not supported`);
    if (file.data.length === 0 || file.data.length > limit[1]) {
      throw new GraphFault(131053, `media size ${file.data.length} is outside what ${type} allows (${limit[1]} bytes)`);
    }
    return { id: storeMedia(state, n.phoneNumberId, file.data, type, file.filename ?? undefined).id };
  });

  app.get("/media-download/:token", async (req, reply) => {
    const { token } = req.params as { token: string };
    const d = state.downloads.get(token);
    const m = d && d.until > Date.now() ? state.media.get(d.mediaId) : undefined;
    const n = m ? state.numbers.get(m.phoneNumberId) : undefined;
    if (!m || !n) return reply.code(404).send(new GraphFault(100, "URL signature expired or unknown").body());
    const presented = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
    if (presented !== n.accessToken || n.tokenExpired) {
      return reply.code(401).send(new GraphFault(190, "Invalid OAuth access token").body());
    }
    return reply.header("content-type", m.mimetype).send(m.data);
  });
}
