/**
 * The media type each file route takes (spec 4.4 and 4.8): the send path and the status posts
 * check a loaded file against `prefix` (unless `convert: true` makes it so), and the document
 * states `types`, the canonical subset of what the check admits, on the file's `mimetype`, so a
 * declared type that matches is never refused for its type (issue 19 §4).
 */
export const MEDIA_KINDS = {
  image: { prefix: "image/", types: "^image/(jpeg|png|webp)$", text: "a imagem deve ser JPEG, PNG ou WEBP" },
  voice: {
    prefix: "audio/",
    types: "^audio/ogg(; ?codecs=opus)?$",
    text: "áudio esperado (OGG/Opus); use convert: true para converter",
  },
  video: {
    prefix: "video/",
    types: "^video/mp4$",
    text: "vídeo esperado (MP4/H.264); use convert: true para converter",
  },
  sticker: { prefix: "image/webp", types: "^image/webp$", text: "figurinhas são imagens WEBP" },
} as const;
export type MediaKind = keyof typeof MEDIA_KINDS;
/** Whether a route's file has a kind of its own to check. */
export const isMediaKind = (route: string): route is MediaKind => Object.hasOwn(MEDIA_KINDS, route);

/** Profile, group and channel pictures: JPEG or PNG. */
export const PICTURE_TYPES = ["image/jpeg", "image/png"] as const;
export const PICTURE_TYPES_PATTERN = `^(${PICTURE_TYPES.join("|")})$`;
/** Whether a loaded file's (normalized) type is a picture's. */
export const isPictureType = (mimetype: string): boolean => (PICTURE_TYPES as readonly string[]).includes(mimetype);

/** The route's message when `mimetype` is not of `kind` (null when it is). */
export function mediaKindProblem(kind: MediaKind, mimetype: string): string | null {
  const k = MEDIA_KINDS[kind];
  return mimetype.toLowerCase().startsWith(k.prefix) ? null : `${k.text} (recebido ${mimetype})`;
}
