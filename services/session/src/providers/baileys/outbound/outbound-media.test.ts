import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CHAT, downloadBack, map, media, picture, send, sha256 } from "../test/outbound-rig.ts";
import { apiError } from "../test/testing.ts";
import { isAnimatedWebp } from "./outbound-media.ts";

/**
 * Media contents (outbound-media.ts) through Baileys' own `generateWAMessage` with a local media
 * server (test/outbound-rig.ts): uploaded encrypted and decrypted back; stickers, voice notes and
 * their waveform (Baileys' optional add-on).
 */

describe("outbound content through Baileys' generateWAMessage", () => {
  it("image: uploaded encrypted, decrypts back; sha256, mimetype, caption, sharp thumbnail and size", async () => {
    const bytes = await picture().jpeg().toBuffer();
    const { m } = await send(CHAT, { type: "image", media: media(bytes, "image/jpeg"), caption: "foto" });
    const img = m.imageMessage!;
    expect(img).toMatchObject({ mimetype: "image/jpeg", caption: "foto", width: 64, height: 48 });
    expect(Buffer.from(img.fileSha256!).equals(sha256(bytes))).toBe(true);
    expect(Number(img.fileLength)).toBe(bytes.length);
    expect(img.url).toMatch(/^https:\/\/media\.test\/image\//);
    expect(img.mediaKey).toHaveLength(32);
    expect(img.jpegThumbnail?.length).toBeGreaterThan(0);
    expect((await downloadBack(img, "image")).equals(bytes)).toBe(true);
    const empty = await apiError(map(CHAT, { type: "image", media: media(Buffer.alloc(0), "image/jpeg") }));
    expect(empty.details).toHaveProperty("file");
  });

  it("video: videoMessage with caption; asNote becomes a round note (ptvMessage)", async () => {
    const bytes = Buffer.concat([Buffer.from("\0\0\0\x18ftypmp42"), Buffer.alloc(200, 7)]);
    const v = await send(CHAT, { type: "video", media: media(bytes, "video/mp4"), caption: "vídeo" });
    expect(v.m.videoMessage).toMatchObject({ mimetype: "video/mp4", caption: "vídeo" });
    expect((await downloadBack(v.m.videoMessage!, "video")).equals(bytes)).toBe(true);

    const note = await send(CHAT, { type: "video", media: media(bytes, "video/mp4"), asNote: true });
    expect(note.m.videoMessage).toBeFalsy();
    expect(note.m.ptvMessage?.mimetype).toBe("video/mp4");
    expect((await downloadBack(note.m.ptvMessage!, "video")).equals(bytes)).toBe(true);
    const captioned = await apiError(
      map(CHAT, { type: "video", media: media(bytes, "video/mp4"), asNote: true, caption: "x" }),
    );
    expect(captioned.details).toHaveProperty("caption");
  });

  it("audio is a file (ptt false); voice is a voice note (ptt true) with its duration", async () => {
    const bytes = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 3)]);
    const audio = await send(CHAT, { type: "audio", media: media(bytes, "audio/mpeg") });
    expect(audio.m.audioMessage).toMatchObject({ mimetype: "audio/mpeg", ptt: false });
    const voice = await send(CHAT, { type: "voice", media: media(bytes, "audio/ogg"), seconds: 7 });
    expect(voice.m.audioMessage).toMatchObject({ mimetype: "audio/ogg; codecs=opus", ptt: true, seconds: 7 });
    expect((await downloadBack(voice.m.audioMessage!, "audio")).equals(bytes)).toBe(true);
  });

  it("document: fileName, mimetype and caption", async () => {
    const bytes = Buffer.from("%PDF-1.4\n%fake\n");
    const { m } = await send(CHAT, {
      type: "document",
      media: media(bytes, "application/pdf", "Relatório 2026.pdf"),
      caption: "segue",
    });
    expect(m.documentMessage).toMatchObject({
      fileName: "Relatório 2026.pdf",
      mimetype: "application/pdf",
      caption: "segue",
    });
    expect((await downloadBack(m.documentMessage!, "document")).equals(bytes)).toBe(true);
  });

  it("sticker: WebP as stickerMessage; the animation flag read from the VP8X header", async () => {
    const still = await picture().webp().toBuffer();
    const { m } = await send(CHAT, { type: "sticker", media: media(still, "image/webp") });
    expect(m.stickerMessage).toMatchObject({ mimetype: "image/webp", isAnimated: false });
    expect((await downloadBack(m.stickerMessage!, "sticker")).equals(still)).toBe(true);

    const header = Buffer.alloc(30);
    header.write("RIFF", 0, "latin1");
    header.write("WEBPVP8X", 8, "latin1");
    header[20] = 0x02;
    expect(isAnimatedWebp(header)).toBe(true);
    const animated = await send(CHAT, { type: "sticker", media: media(header, "image/webp") });
    expect(animated.m.stickerMessage?.isAnimated).toBe(true);
    const png = await picture().png().toBuffer();
    const notWebp = await apiError(map(CHAT, { type: "sticker", media: media(png, "image/webp") }));
    expect(notWebp.details).toEqual({ file: "figurinhas precisam ser WebP" });
  });
});

// ── what Baileys' optional add-ons would do: voice waveforms, link previews ──

/** A voice note as the gateway converts them (OGG/Opus, mono, 48 kHz, 32 kb/s): a tone rising from silence. */
function voiceNote(seconds: number): Buffer {
  const args = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`];
  args.push("-af", `volume='min(1,t/${seconds})':eval=frame`, "-ac", "1", "-ar", "48000");
  args.push("-c:a", "libopus", "-b:a", "32k", "-f", "ogg", "pipe:1");
  return execFileSync("ffmpeg", args, { maxBuffer: 16 * 1024 * 1024 });
}

const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("voice notes carry a waveform (audio-decode, Baileys' optional peer, patched)", () => {
  it("64 samples, 0–100, drawn from the audio: with the duration given (converted notes) and without", async () => {
    const bytes = voiceNote(3);
    for (const seconds of [3, undefined]) {
      const { m } = await send(CHAT, {
        type: "voice",
        media: media(bytes, "audio/ogg"),
        ...(seconds !== undefined ? { seconds } : {}),
      });
      expect(m.audioMessage).toMatchObject({ ptt: true, seconds: 3 });
      const wave = [...(m.audioMessage?.waveform ?? [])];
      expect(wave).toHaveLength(64);
      expect(Math.max(...wave)).toBe(100);
      expect(Math.min(...wave)).toBeGreaterThanOrEqual(0);
      // the tone rises from silence: the end of the waveform is louder than its start
      expect(total(wave.slice(-8))).toBeGreaterThan(total(wave.slice(0, 8)) * 2);
    }
  });

  it("an audio file (ptt false) has none", async () => {
    const { m } = await send(CHAT, { type: "audio", media: media(voiceNote(1), "audio/ogg") });
    expect(m.audioMessage?.ptt).toBe(false);
    expect(m.audioMessage?.waveform ?? undefined).toBeUndefined();
  });
});
