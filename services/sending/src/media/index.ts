/**
 * Media of the send routes (spec 2.5, 4.4): loading a `file` object (base64 or guarded download) and
 * converting voice notes to Ogg/Opus and videos to MP4/H.264 with ffmpeg.
 */
export type { HostLookup } from "@gw/platform/url-guard";
export { type ConvertOptions, convertVideo, convertVoice, ffmpegAvailable } from "./convert.ts";
export { keepMedia } from "./keep.ts";
export { type FileInput, type LoadedFile, type LoadOptions, loadFile } from "./load.ts";
export { sniffMimetype } from "./sniff.ts";
