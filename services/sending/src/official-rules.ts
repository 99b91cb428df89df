import {
  invalid,
  OFFICIAL_CAPTION_MAX,
  OFFICIAL_LIST_MAX_ROWS,
  OFFICIAL_LIST_MAX_SECTIONS,
  OFFICIAL_MEDIA_RULES,
  OFFICIAL_STATIC_STICKER_MAX,
  OFFICIAL_TEXT_MAX,
  type SendRequest,
  type SendRoute,
} from "@gw/contracts";
import { imageSize } from "@gw/session/providers/cloud/image-size";

/** The operator's sticker: a WEBP of exactly 512x512 (spec 4.4, official gateway). */
export const OFFICIAL_STICKER_SIDE = 512;

/**
 * What the operator's Cloud API refuses, checked before anything is uploaded or sent (spec 4.4's
 * "official gateway" notes and spec 8): text and caption length, list size, media types and sizes,
 * a sticker's 512x512.
 */

type MediaRule = keyof typeof OFFICIAL_MEDIA_RULES;
const RULE_OF_ROUTE: Partial<Record<SendRoute, MediaRule>> = {
  image: "image",
  file: "document",
  voice: "voice",
  video: "video",
  sticker: "sticker",
};

/** The body's own limits (no file needed). */
export function officialBodyRules(req: SendRequest): void {
  if (req.route === "text" && req.body.text.length > OFFICIAL_TEXT_MAX) {
    throw invalid("text", `no gateway oficial o texto vai até ${OFFICIAL_TEXT_MAX} caracteres`);
  }
  // Media captions: 1,024 characters on the operator (the standard kind takes 4,096).
  if (req.route === "image" || req.route === "video" || req.route === "file") {
    const caption = req.body.caption;
    if (caption && caption.length > OFFICIAL_CAPTION_MAX) {
      throw invalid("caption", `no gateway oficial a legenda vai até ${OFFICIAL_CAPTION_MAX} caracteres`);
    }
  }
  if (req.route === "list") {
    const { sections } = req.body.message;
    if (sections.length > OFFICIAL_LIST_MAX_SECTIONS) {
      throw invalid("message.sections", `até ${OFFICIAL_LIST_MAX_SECTIONS} seções`);
    }
    const rows = sections.reduce((n, s) => n + s.rows.length, 0);
    if (rows > OFFICIAL_LIST_MAX_ROWS) {
      throw invalid("message.sections", `até ${OFFICIAL_LIST_MAX_ROWS} linhas no total (recebidas ${rows})`);
    }
  }
}

/** A WEBP with an animation chunk (VP8X flag or `ANIM`). */
export function isAnimatedWebp(bytes: Buffer): boolean {
  if (bytes.length >= 21 && bytes.toString("latin1", 12, 16) === "VP8X") return (bytes[20]! & 0x02) !== 0;
  return bytes.subarray(0, 4096).includes("ANIM");
}

/** A route's file against the operator's type and size rules (after any conversion). */
export function officialMediaRules(route: SendRoute, mimetype: string, bytes: Buffer, field = "file"): void {
  const key = RULE_OF_ROUTE[route];
  if (!key) return;
  const rule = OFFICIAL_MEDIA_RULES[key];
  const type = mimetype.split(";")[0]!.trim().toLowerCase();
  if (rule.types && !(rule.types as readonly string[]).includes(type)) {
    throw invalid(field, `no gateway oficial: ${rule.text} (recebido ${mimetype})`);
  }
  const max = key === "sticker" && !isAnimatedWebp(bytes) ? OFFICIAL_STATIC_STICKER_MAX : rule.maxBytes;
  if (bytes.length > max) {
    throw invalid(field, `no gateway oficial: ${rule.text} (recebidos ${bytes.length} bytes)`);
  }
  if (key === "sticker") {
    const size = imageSize(bytes);
    const side = OFFICIAL_STICKER_SIDE;
    if (size?.type !== "image/webp") throw invalid(field, "no gateway oficial: a figurinha deve ser WEBP");
    if (size.width !== side || size.height !== side) {
      throw invalid(field, `no gateway oficial: figurinha de ${side}x${side} (recebida ${size.width}x${size.height})`);
    }
  }
}
