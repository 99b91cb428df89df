import type { OutboundMedia } from "@gw/contracts";
import { extractImageThumb } from "@whiskeysockets/baileys";
import { invalidField, type OutboundContext } from "./outbound-context.ts";

/**
 * The media of an outbound content as Baileys takes it (outbound.ts): the bytes from base64,
 * captions, voice-note mimetypes, WebP stickers (animated or not) and link preview thumbnails.
 */

/** Width Baileys itself uses for link preview thumbnails (`linkPreviewImageThumbnailWidth`). */
const LINK_THUMBNAIL_WIDTH = 192;

/** The caption, when there is one. */
export function caption(text: string | undefined): { caption?: string } {
  return text ? { caption: text } : {};
}

/** The media's bytes from base64; an empty file or bad base64 is 422 on `field`. */
export function mediaBytes(media: OutboundMedia, field = "file"): Buffer {
  const bytes = Buffer.from(media.data, "base64");
  if (bytes.length === 0) throw invalidField(field, "arquivo vazio ou base64 inválido");
  return bytes;
}

/** A link preview's JPEG thumbnail: the context's, else Baileys' own at 192 px; a bad image is 422. */
export async function linkThumbnail(image: OutboundMedia, ctx: OutboundContext): Promise<Buffer> {
  const bytes = mediaBytes(image, "preview.image");
  try {
    if (ctx.thumbnail) return await ctx.thumbnail(bytes);
    return (await extractImageThumb(bytes, LINK_THUMBNAIL_WIDTH)).buffer;
  } catch {
    throw invalidField("preview.image", "imagem inválida ou em formato não suportado");
  }
}

/**
 * Voice notes are Opus in OGG; WhatsApp's clients expect the exact `audio/ogg; codecs=opus`
 * (Baileys' default) and may not draw an OGG voice note labelled otherwise. Others as given.
 */
export function voiceMimetype(mimetype: string): string {
  return /^audio\/(ogg|opus)\b/i.test(mimetype.trim()) ? "audio/ogg; codecs=opus" : mimetype;
}

/** `RIFF....WEBP`: the only sticker format Baileys sends as is. */
export function isWebp(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP";
}

/** `RIFF....WEBPVP8X` with the animation bit of the VP8X flags set. */
export function isAnimatedWebp(bytes: Buffer): boolean {
  return (
    bytes.length >= 21 &&
    bytes.toString("latin1", 0, 4) === "RIFF" &&
    bytes.toString("latin1", 8, 16) === "WEBPVP8X" &&
    (bytes[20]! & 0x02) !== 0
  );
}
