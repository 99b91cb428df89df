export type ImageType = "image/png" | "image/jpeg" | "image/webp";

/** The type and pixel size of a PNG, JPEG or WEBP, from its header; null for anything else. */
export function imageSize(buf: Buffer): { type: ImageType; width: number; height: number } | null {
  // PNG: signature, then the IHDR chunk (width and height, big-endian, at 16 and 20).
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString("latin1", 12, 16) === "IHDR") {
    return { type: "image/png", width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 30 && buf.toString("latin1", 0, 4) === "RIFF" && buf.toString("latin1", 8, 12) === "WEBP") {
    return webpSize(buf);
  }
  // JPEG: walk the segments to the first start-of-frame (SOF0–SOF15 but DHT, JPG, DAC).
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 < buf.length) {
    if (buf[at] !== 0xff) return null;
    const marker = buf[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = buf.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { type: "image/jpeg", height: buf.readUInt16BE(at + 5), width: buf.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * WEBP (RIFF container): the first chunk says the encoding, and where the size is. `VP8X`
 * (extended, also every animated WEBP): the canvas, 24-bit width-1 and height-1 at 24 and 27.
 * `VP8L` (lossless): after the 0x2f signature, 14-bit width-1 and height-1, little-endian.
 * `VP8 ` (lossy): after the frame tag and the 9d 01 2a start code, 14-bit width and height.
 */
function webpSize(buf: Buffer): { type: "image/webp"; width: number; height: number } | null {
  const chunk = buf.toString("latin1", 12, 16);
  if (chunk === "VP8X") {
    return { type: "image/webp", width: buf.readUIntLE(24, 3) + 1, height: buf.readUIntLE(27, 3) + 1 };
  }
  if (chunk === "VP8L" && buf[20] === 0x2f) {
    const bits = buf.readUInt32LE(21);
    return { type: "image/webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 " && buf[23] === 0x9d && buf[24] === 0x01 && buf[25] === 0x2a) {
    return { type: "image/webp", width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  }
  return null;
}
