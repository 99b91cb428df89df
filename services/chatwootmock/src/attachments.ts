// Attachment bytes, served at the URLs messages give out. As Active Storage does, the `data_url`
// (`/rails/active_storage/blobs/redirect/<signed id>/<filename>`) redirects (302) to the file's
// service URL, which answers the bytes; neither needs the access token. A deleted message's files
// are gone (404).
import type { FastifyInstance } from "fastify";
import type { ChatwootMockState } from "./state.ts";

export function registerAttachments(app: FastifyInstance, state: ChatwootMockState): void {
  app.get("/rails/active_storage/blobs/redirect/:signedId/:filename", async (req, reply) => {
    const { signedId, filename } = req.params as { signedId: string; filename: string };
    if (!state.blobs.has(signedId)) return reply.code(404).type("text/plain").send("Not Found");
    return reply.redirect(
      `${state.publicUrl()}/rails/active_storage/disk/${signedId}/${encodeURIComponent(filename)}`,
      302,
    );
  });

  app.get("/rails/active_storage/disk/:key/:filename", async (req, reply) => {
    const a = state.blobs.get((req.params as { key: string }).key);
    if (!a) return reply.code(404).type("text/plain").send("Not Found");
    const inline = a.fileType !== "file";
    return reply
      .header("content-type", a.mimetype)
      .header(
        "content-disposition",
        `${inline ? "inline" : "attachment"}; filename="${a.filename.replace(/["\\\r\n]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
      )
      .send(a.data);
  });
}

/** Chatwoot's FileTypeHelper: previewable images and videos by exact type, audio by prefix, else file. */
export function fileType(mimetype: string): "image" | "audio" | "video" | "file" {
  const t = mimetype.split(";")[0]!.trim().toLowerCase();
  if (["image/jpeg", "image/png", "image/gif", "image/bmp", "image/webp"].includes(t)) return "image";
  if (["video/ogg", "video/mp4", "video/webm", "video/quicktime"].includes(t)) return "video";
  if (t.includes("audio/")) return "audio";
  return "file";
}
