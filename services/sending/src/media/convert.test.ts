import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "@gw/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { convertVideo, convertVoice, ffmpegAvailable, oggOpusDuration } from "./convert.ts";

// These tests need ffmpeg (with libopus, libx264, aac) and ffprobe: scripts/setup.sh installs the
// Debian package. Without it they fail on purpose — a conversion that silently never ran is no test.

beforeAll(async () => {
  const ok = await ffmpegAvailable();
  if (!ok) {
    throw new Error(
      "ffmpeg with libopus, libx264 and aac is required for the media conversion tests: run scripts/setup.sh " +
        "(apt-get install ffmpeg)",
    );
  }
});

/** A mono 16-bit PCM WAV of a sine tone. */
function sineWav(seconds: number, rate = 16_000, freq = 440): Buffer {
  const samples = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write("RIFF", 0, "latin1");
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write("WAVEfmt ", 8, "latin1");
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28); // byte rate
  buf.writeUInt16LE(2, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write("data", 36, "latin1");
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * freq * i) / rate) * 12_000), 44 + i * 2);
  }
  return buf;
}

/** A small AVI (MPEG-4 part 2 + MP2) from ffmpeg's test sources: odd size on purpose. */
function testVideo(opts: { audio: boolean; seconds?: number }): Buffer {
  const t = String(opts.seconds ?? 1);
  const args = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc=size=65x49:rate=10:duration=${t}`];
  if (opts.audio) args.push("-f", "lavfi", "-i", `sine=frequency=440:duration=${t}`, "-c:a", "mp2");
  args.push("-c:v", "mpeg4", "-f", "avi", "pipe:1");
  return execFileSync("ffmpeg", args, { maxBuffer: 64 * 1024 * 1024 });
}

interface Probe {
  streams: {
    codec_type: string;
    codec_name: string;
    channels?: number;
    sample_rate?: string;
    pix_fmt?: string;
    width?: number;
    height?: number;
  }[];
  format: { format_name: string; duration?: string };
}

/** ffprobe on a temp file (from a pipe it cannot seek, so no duration for Ogg). */
function ffprobe(data: Buffer): Probe {
  const dir = mkdtempSync(join(tmpdir(), "probe-test-"));
  try {
    const path = join(dir, "media");
    writeFileSync(path, data);
    const out = execFileSync("ffprobe", ["-v", "error", "-show_entries", "stream:format", "-of", "json", path], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(out.toString()) as Probe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** Top-level ISO BMFF boxes in order. */
function boxes(buf: Buffer): string[] {
  const out: string[] = [];
  let offset = 0;
  while (offset + 8 <= buf.length) {
    let size = buf.readUInt32BE(offset);
    const type = buf.toString("latin1", offset + 4, offset + 8);
    if (size === 1) size = Number(buf.readBigUInt64BE(offset + 8));
    if (size === 0) size = buf.length - offset;
    out.push(type);
    if (size < 8) break;
    offset += size;
  }
  return out;
}

const gwTempDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("gw-media-"));

describe("convertVoice", () => {
  it("turns a WAV into mono 48 kHz Ogg/Opus with its duration", async () => {
    const voice = await convertVoice({ data: sineWav(3.2), mimetype: "audio/wav", filename: "gravação.wav" });
    expect(voice.data.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(voice.mimetype).toBe("audio/ogg; codecs=opus");
    expect(voice.filename).toBe("gravação.ogg");
    expect(voice.seconds).toBe(3);
    expect(oggOpusDuration(voice.data)).toBeCloseTo(3.2, 1);
    const probe = ffprobe(voice.data);
    expect(probe.format.format_name).toBe("ogg");
    expect(probe.streams).toHaveLength(1);
    expect(probe.streams[0]).toMatchObject({
      codec_type: "audio",
      codec_name: "opus",
      channels: 1,
      sample_rate: "48000",
    });
    expect(Number(probe.format.duration)).toBeCloseTo(3.2, 1);
  });

  it("names the output voice.ogg without an input name and rounds short clips up to 1 s", async () => {
    const voice = await convertVoice({ data: sineWav(0.4), mimetype: "audio/wav" });
    expect(voice.filename).toBe("voice.ogg");
    expect(voice.seconds).toBe(1);
  });

  it("takes the audio of a video and drops the picture", async () => {
    const voice = await convertVoice({ data: testVideo({ audio: true, seconds: 2 }), mimetype: "video/x-msvideo" });
    const probe = ffprobe(voice.data);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["opus"]);
    expect(voice.seconds).toBe(2);
  });

  it("answers validation_error for garbage and for a file without audio", async () => {
    const garbage = await apiError(
      convertVoice({ data: Buffer.from("this is not audio at all".repeat(50)), mimetype: "audio/mpeg" }),
    );
    expect(garbage.code).toBe("validation_error");
    expect(garbage.status).toBe(422);
    expect(garbage.details?.file).toMatch(/^não foi possível converter o arquivo: /);

    const silentMovie = await apiError(
      convertVoice({ data: testVideo({ audio: false }), mimetype: "video/x-msvideo" }),
    );
    expect(silentMovie.details).toEqual({ file: "não foi possível converter o arquivo: o arquivo não contém áudio" });
  });

  it("names the field given", async () => {
    const err = await apiError(convertVoice({ data: Buffer.from("nope"), mimetype: "audio/ogg" }, { field: "audio" }));
    expect(Object.keys(err.details ?? {})).toEqual(["audio"]);
  });
});

describe("convertVideo", () => {
  it("turns an AVI into faststart MP4 with H.264 yuv420p and AAC, even dimensions", async () => {
    const video = await convertVideo({
      data: testVideo({ audio: true }),
      mimetype: "video/x-msvideo",
      filename: "clip.avi",
    });
    expect(video.mimetype).toBe("video/mp4");
    expect(video.filename).toBe("clip.mp4");
    expect(video.data.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const top = boxes(video.data);
    expect(top.indexOf("moov")).toBeGreaterThan(-1);
    expect(top.indexOf("moov")).toBeLessThan(top.indexOf("mdat")); // +faststart
    const probe = ffprobe(video.data);
    const v = probe.streams.find((s) => s.codec_type === "video");
    const a = probe.streams.find((s) => s.codec_type === "audio");
    expect(v).toMatchObject({ codec_name: "h264", pix_fmt: "yuv420p", width: 64, height: 48 });
    expect(a).toMatchObject({ codec_name: "aac" });
  });

  it("converts a video without sound to a video-only MP4", async () => {
    const video = await convertVideo({ data: testVideo({ audio: false }), mimetype: "video/x-msvideo" });
    expect(video.filename).toBe("video.mp4");
    expect(ffprobe(video.data).streams.map((s) => s.codec_name)).toEqual(["h264"]);
  });

  it("answers validation_error for garbage and for audio without video", async () => {
    const garbage = await apiError(convertVideo({ data: Buffer.alloc(4096, 0x5a), mimetype: "video/mp4" }));
    expect(garbage.code).toBe("validation_error");
    expect(garbage.details?.file).toMatch(/^não foi possível converter o arquivo: /);
    const audioOnly = await apiError(convertVideo({ data: sineWav(0.5), mimetype: "audio/wav" }));
    expect(audioOnly.details).toEqual({ file: "não foi possível converter o arquivo: o arquivo não contém vídeo" });
  });

  it("kills ffmpeg after the timeout and removes its temp files", async () => {
    const before = gwTempDirs();
    const err = await apiError(
      convertVideo({ data: testVideo({ audio: true, seconds: 20 }), mimetype: "video/x-msvideo" }, { timeoutMs: 50 }),
    );
    expect(err.code).toBe("validation_error");
    expect(err.details?.file).toMatch(/tempo esgotado/);
    expect(gwTempDirs()).toEqual(before);
  });
});
