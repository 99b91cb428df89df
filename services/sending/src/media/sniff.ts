/**
 * Media type from the first bytes of a file (magic numbers), for downloads whose server says nothing
 * useful (no Content-Type, or `application/octet-stream`). Only signatures that are unambiguous at a
 * fixed offset are recognized; anything else is `undefined` and the caller falls back to
 * `application/octet-stream`. Looking at the first 64 bytes is enough for every rule below.
 */

export const SNIFF_BYTES = 64;

function startsWith(buf: Buffer, sig: readonly number[] | string, offset = 0): boolean {
  const bytes = typeof sig === "string" ? Buffer.from(sig, "latin1") : Buffer.from(sig);
  return buf.length >= offset + bytes.length && buf.subarray(offset, offset + bytes.length).equals(bytes);
}

/** ISO base media file (MP4, 3GP, MOV, M4A, HEIC, AVIF): `....ftyp<brand>` at the start. */
function isoBmffType(buf: Buffer): string | undefined {
  if (!startsWith(buf, "ftyp", 4) || buf.length < 12) return undefined;
  const brand = buf.subarray(8, 12).toString("latin1");
  if (brand.startsWith("3g2")) return "video/3gpp2";
  if (brand.startsWith("3g")) return "video/3gpp";
  if (brand === "qt  ") return "video/quicktime";
  if (brand === "M4A " || brand === "M4B ") return "audio/mp4";
  if (brand === "heic" || brand === "heix" || brand === "mif1" || brand === "msf1") return "image/heic";
  if (brand === "avif" || brand === "avis") return "image/avif";
  return "video/mp4";
}

/** The media type `buf` starts like, or `undefined` when no known signature matches. */
export function sniffMimetype(buf: Buffer): string | undefined {
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(buf, "GIF87a") || startsWith(buf, "GIF89a")) return "image/gif";
  if (startsWith(buf, "RIFF")) {
    if (startsWith(buf, "WEBP", 8)) return "image/webp";
    if (startsWith(buf, "WAVE", 8)) return "audio/wav";
    if (startsWith(buf, "AVI ", 8)) return "video/x-msvideo";
    return undefined;
  }
  const iso = isoBmffType(buf);
  if (iso) return iso;
  if (startsWith(buf, "OggS")) {
    // The first page carries the codec's identification header right after the 27-byte page
    // header and its segment table (one segment for the ID header in practice).
    const head = buf.subarray(0, SNIFF_BYTES).toString("latin1");
    if (head.includes("OpusHead")) return "audio/ogg; codecs=opus";
    if (head.includes("theora")) return "video/ogg";
    return "audio/ogg";
  }
  if (startsWith(buf, [0x1a, 0x45, 0xdf, 0xa3])) {
    return buf.subarray(0, SNIFF_BYTES).includes("webm") ? "video/webm" : "video/x-matroska";
  }
  if (startsWith(buf, "%PDF-")) return "application/pdf";
  if (startsWith(buf, "ID3")) return "audio/mpeg";
  if (startsWith(buf, "fLaC")) return "audio/flac";
  if (startsWith(buf, "#!AMR")) return "audio/amr";
  if (buf.length >= 2 && buf[0] === 0xff) {
    const b1 = buf[1]!;
    // MPEG audio frame sync: 11 set bits, then version and layer. Layer bits 00 are ADTS (AAC).
    if ((b1 & 0xf6) === 0xf0) return "audio/aac";
    if ((b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0 && (b1 & 0x18) !== 0x08) return "audio/mpeg";
  }
  if (startsWith(buf, [0x50, 0x4b, 0x03, 0x04])) return "application/zip";
  if (startsWith(buf, [0x1f, 0x8b])) return "application/gzip";
  return undefined;
}
