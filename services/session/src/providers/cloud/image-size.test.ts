// Image headers as the operator's checks read them (a sticker's 512x512, a profile picture's side).
import { describe, expect, it } from "vitest";
import { imageSize } from "./image-size.ts";

const riff = (chunk: string, data: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + 8 + data.length);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(data.length);
  return Buffer.concat([Buffer.from("RIFF"), size, Buffer.from("WEBP"), Buffer.from(chunk, "latin1"), len, data]);
};

/** Lossless: 0x2f, then width-1 and height-1 in 14 bits each. */
function vp8l(w: number, h: number): Buffer {
  const data = Buffer.alloc(10);
  data[0] = 0x2f;
  data.writeUInt32LE(((w - 1) | ((h - 1) << 14)) >>> 0, 1);
  return riff("VP8L", data);
}

/** Extended (animations): flags, reserved, then the canvas' width-1 and height-1 in 24 bits each. */
function vp8x(w: number, h: number, animated = true): Buffer {
  const data = Buffer.alloc(10);
  data[0] = animated ? 0x02 : 0;
  data.writeUIntLE(w - 1, 4, 3);
  data.writeUIntLE(h - 1, 7, 3);
  return riff("VP8X", data);
}

/** Lossy: a 3-byte frame tag, the 9d 01 2a start code, 14-bit width and height. */
function vp8(w: number, h: number): Buffer {
  const data = Buffer.alloc(10);
  data.set([0x9d, 0x01, 0x2a], 3);
  data.writeUInt16LE(w, 6);
  data.writeUInt16LE(h, 8);
  return riff("VP8 ", data);
}

describe("imageSize of WEBP", () => {
  it.each([
    ["lossless", vp8l(512, 512), 512, 512],
    ["lossless, not square", vp8l(300, 512), 300, 512],
    ["extended (animated)", vp8x(512, 512), 512, 512],
    ["extended, large canvas", vp8x(4000, 3000, false), 4000, 3000],
    ["lossy", vp8(512, 511), 512, 511],
  ])("%s", (_name, buf, width, height) => {
    expect(imageSize(buf)).toEqual({ type: "image/webp", width, height });
  });

  it("is null for a RIFF that is not a WEBP image it can read", () => {
    expect(imageSize(riff("ALPH", Buffer.alloc(10)))).toBeNull();
    expect(imageSize(Buffer.from("RIFF\0\0\0\0WAVEfmt "))).toBeNull();
  });
});
