import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { type ApiError, invalid } from "@gw/contracts";
import type { LoadedFile } from "./load.ts";

/**
 * Media conversion with the `ffmpeg` binary (Debian package `ffmpeg`, installed by scripts/setup.sh;
 * `FFMPEG_PATH` overrides the command). Each conversion runs one child process on temp files in a
 * private directory under `os.tmpdir()` — files rather than pipes because MP4 input may keep its index
 * at the end and MP4 output with `+faststart` needs a seekable file — removed afterwards whatever
 * happens. A conversion past its timeout is killed (SIGKILL). At most `availableParallelism() - 1`
 * (at least 1) conversions run at once per process; the others wait their turn.
 *
 * A file ffmpeg cannot decode (or that lacks the stream needed, or that takes longer than the
 * timeout) is `422 validation_error` with `details[field]` "não foi possível converter o arquivo: …".
 * ffmpeg missing from the machine is a plain `Error` (a server fault, not the caller's).
 */

export interface ConvertOptions {
  /** Kill ffmpeg after this long; default 60 s for voice, 180 s for video. */
  timeoutMs?: number;
  /** Request field named in `details`; default `file`. */
  field?: string;
}

const ffmpegCommand = (): string => process.env.FFMPEG_PATH || "ffmpeg";

// ---------------------------------------------------------------------------------------------------
// Availability

let available: Promise<boolean> | undefined;

/**
 * True when `ffmpeg` runs and has the encoders the conversions use (libopus, libx264, aac). A positive
 * answer is cached; a negative one is asked again next time (ffmpeg may be installed meanwhile).
 */
export function ffmpegAvailable(): Promise<boolean> {
  if (available) return available;
  const probe = new Promise<boolean>((resolve) => {
    let out = "";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(ffmpegCommand(), ["-hide_banner", "-nostdin", "-encoders"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      resolve(false);
      return;
    }
    child.stdout?.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.on("error", () => resolve(false));
    child.on("close", (code) => {
      resolve(code === 0 && /\blibopus\b/.test(out) && /\blibx264\b/.test(out) && /\baac\b/.test(out));
    });
  });
  available = probe;
  void probe.then((ok) => {
    if (!ok && available === probe) available = undefined;
  });
  return probe;
}

// ---------------------------------------------------------------------------------------------------
// Running ffmpeg

const MAX_CONCURRENT = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function conversionFailed(field: string, reason: string): ApiError {
  return invalid(field, `não foi possível converter o arquivo: ${reason}`, "Não foi possível converter o arquivo.");
}

/** ffmpeg's complaint (from `-loglevel error` output) in the caller's terms. */
function describeFailure(stderr: string, dir: string): string {
  const text = stderr.split(dir).join("").trim();
  if (/Stream map '0:a[^']*' matches no streams/i.test(text)) return "o arquivo não contém áudio";
  if (/Stream map '0:v[^']*' matches no streams/i.test(text)) return "o arquivo não contém vídeo";
  if (/Invalid data found when processing input|could not find codec parameters|moov atom not found/i.test(text)) {
    return "formato não reconhecido ou arquivo corrompido";
  }
  if (/does not contain any stream/i.test(text)) return "o arquivo não contém áudio nem vídeo utilizáveis";
  const last =
    text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .pop() ?? "";
  const clean = last.replace(/^\/?in:\s*/, "").trim();
  return clean === "" ? "o ffmpeg falhou" : clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** Runs `ffmpeg -i <input file> ...args <output file>` and returns the output file's bytes. */
async function runFfmpeg(input: Buffer, args: string[], outName: string, timeoutMs: number, field: string) {
  return withSlot(async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-media-"));
    try {
      const inPath = join(dir, "in");
      const outPath = join(dir, outName);
      await writeFile(inPath, input);
      const argv = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", inPath, ...args, outPath];
      const { code, timedOut, stderr } = await new Promise<{ code: number | null; timedOut: boolean; stderr: string }>(
        (resolve, reject) => {
          const child = spawn(ffmpegCommand(), argv, { stdio: ["ignore", "ignore", "pipe"] });
          let err = "";
          let timedOut = false;
          child.stderr.setEncoding("utf8").on("data", (s: string) => {
            err = (err + s).slice(-16_384);
          });
          const timer = setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, timeoutMs);
          child.on("error", (e: NodeJS.ErrnoException) => {
            clearTimeout(timer);
            reject(
              e.code === "ENOENT"
                ? new Error(`ffmpeg não encontrado (${ffmpegCommand()}): instale o pacote ffmpeg (scripts/setup.sh)`)
                : e,
            );
          });
          child.on("close", (code) => {
            clearTimeout(timer);
            resolve({ code, timedOut, stderr: err });
          });
        },
      );
      if (timedOut) {
        throw conversionFailed(field, `tempo esgotado (limite de ${Number((timeoutMs / 1000).toFixed(1))} s)`);
      }
      if (code !== 0) throw conversionFailed(field, describeFailure(stderr, dir));
      const out = await readFile(outPath).catch(() => Buffer.alloc(0));
      if (out.length === 0) throw conversionFailed(field, "a conversão não produziu conteúdo");
      return out;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

function renamed(filename: string | undefined, ext: string, fallback: string): string {
  if (!filename) return fallback;
  const base = filename.replace(/\.[^.]*$/, "");
  return `${base === "" ? fallback.replace(/\.[^.]*$/, "") : base}${ext}`;
}

// ---------------------------------------------------------------------------------------------------
// Voice

/**
 * Exact duration of an Ogg/Opus stream in seconds: granule position of the last page (always in
 * 48 kHz samples for Opus) minus the pre-skip of the OpusHead header. `undefined` if not Ogg/Opus.
 */
export function oggOpusDuration(buf: Buffer): number | undefined {
  let offset = 0;
  let preSkip: number | undefined;
  let lastGranule = -1n;
  while (offset + 27 <= buf.length && buf.toString("latin1", offset, offset + 4) === "OggS") {
    const segments = buf[offset + 26]!;
    const headerLen = 27 + segments;
    if (offset + headerLen > buf.length) break;
    let bodyLen = 0;
    for (let i = 0; i < segments; i++) bodyLen += buf[offset + 27 + i]!;
    const body = offset + headerLen;
    if (preSkip === undefined && buf.toString("latin1", body, body + 8) === "OpusHead" && body + 12 <= buf.length) {
      preSkip = buf.readUInt16LE(body + 10);
    }
    const granule = buf.readBigInt64LE(offset + 6);
    if (granule >= 0n) lastGranule = granule;
    offset = body + bodyLen;
  }
  if (preSkip === undefined || lastGranule < 0n) return undefined;
  return Math.max(0, Number(lastGranule) - preSkip) / 48_000;
}

/**
 * Any audio (or the first audio stream of a video) to a voice note: Ogg/Opus, mono, 48 kHz, 32 kbit/s
 * VBR tuned for speech. `seconds` is the duration in whole seconds (rounded, at least 1 for a
 * non-empty recording) as the network's voice message expects.
 */
export async function convertVoice(
  input: LoadedFile,
  opts: ConvertOptions = {},
): Promise<LoadedFile & { seconds: number }> {
  const field = opts.field ?? "file";
  const data = await runFfmpeg(
    input.data,
    [
      ...["-map", "0:a:0", "-vn", "-sn", "-dn", "-map_metadata", "-1"],
      ...["-ac", "1", "-ar", "48000", "-c:a", "libopus", "-b:a", "32k", "-vbr", "on", "-application", "voip"],
      ...["-f", "ogg"],
    ],
    "out.ogg",
    opts.timeoutMs ?? 60_000,
    field,
  );
  const exact = oggOpusDuration(data) ?? 0;
  return {
    data,
    mimetype: "audio/ogg; codecs=opus",
    filename: renamed(input.filename, ".ogg", "voice.ogg"),
    seconds: exact > 0 ? Math.max(1, Math.round(exact)) : 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// Video

/**
 * Any video to MP4 that phones play: H.264 (libx264, yuv420p, even dimensions, `veryfast`, CRF 23),
 * AAC 128 kbit/s when the input has audio, index at the front (`+faststart`) so playback can start
 * before the download ends. Only the first video and first audio streams are kept.
 */
export async function convertVideo(input: LoadedFile, opts: ConvertOptions = {}): Promise<LoadedFile> {
  const field = opts.field ?? "file";
  const data = await runFfmpeg(
    input.data,
    [
      ...["-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn", "-map_metadata", "-1"],
      ...["-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23"],
      ...["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-f", "mp4"],
    ],
    "out.mp4",
    opts.timeoutMs ?? 180_000,
    field,
  );
  return { data, mimetype: "video/mp4", filename: renamed(input.filename, ".mp4", "video.mp4") };
}
