// Media conversion end to end (spec 4.14 "media"): audio to an OGG/Opus voice note, video to MP4,
// answered inline or kept an hour behind a signed link that needs no token — real HTTP, Redis, ffmpeg.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";
import { wav } from "../support/media.ts";

let c: Cluster;
const a = { id: "", token: "" };
let avi = Buffer.alloc(0);

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);

type Converted = {
  mimetype: string;
  filename: string;
  size: number;
  seconds?: number;
  data?: string;
  url?: string;
  expiresAt?: string;
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "media-convert-"));
  try {
    const out = join(dir, "v.avi");
    const r = spawnSync("ffmpeg", [
      "-hide_banner",
      "-loglevel",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=duration=1:size=64x64:rate=10",
      "-c:v",
      "mpeg4",
      "-y",
      out,
    ]);
    if (r.status !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
    avi = readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  c = await startCluster();
  Object.assign(a, await c.createInstance()); // never started: conversion needs no connection
});
afterAll(() => c?.close());

describe("POST /media/convert/voice", () => {
  it("answers the voice note inline: OGG/Opus with the duration the network shows", async () => {
    const res = await api("/media/convert/voice", {
      method: "POST",
      json: { file: { data: wav(1.6).toString("base64"), mimetype: "audio/wav", filename: "recado.wav" } },
    });
    const out = await expectJson<Converted>(res);
    expect(out).toMatchObject({ mimetype: "audio/ogg; codecs=opus", filename: "recado.ogg", seconds: 2 });
    const bytes = Buffer.from(out.data!, "base64");
    expect(bytes.subarray(0, 4).toString()).toBe("OggS");
    expect(out.size).toBe(bytes.length);
    expect(out.url).toBeUndefined();
  });

  it("output url: kept behind a signed link that needs no token; a tampered or foreign link is 404", async () => {
    const res = await api("/media/convert/voice", {
      method: "POST",
      json: { file: { data: wav(1).toString("base64"), mimetype: "audio/wav" }, output: "url" },
    });
    const out = await expectJson<Converted>(res);
    expect(out.data).toBeUndefined();
    expect(out.url).toMatch(new RegExp(`/v1/files/${a.id}/cv_[0-9a-z]{26}\\.ogg\\?exp=\\d+&sig=`));
    const expires = Date.parse(out.expiresAt!) - Date.now();
    expect(expires).toBeGreaterThan(3_500_000);
    expect(expires).toBeLessThanOrEqual(3_600_000);
    const link = new URL(out.url!);
    const got = await c.request(link.pathname + link.search);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("audio/ogg; codecs=opus");
    const bytes = Buffer.from(await got.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe("OggS");
    expect(bytes.length).toBe(out.size);
    const tampered = `${link.pathname}${link.search.replace(/sig=./, "sig=A")}`;
    expect((await c.request(tampered)).status).toBe(404);
    const other = await c.createInstance();
    const foreign = link.pathname.replace(a.id, other.id) + link.search;
    expect((await c.request(foreign)).status).toBe(404);
  });

  it("refuses what it cannot convert and malformed bodies with the field named", async () => {
    const junk = await api("/media/convert/voice", {
      method: "POST",
      json: { file: { data: Buffer.from("not audio at all").toString("base64"), mimetype: "audio/wav" } },
    });
    expect((await expectError(junk, 422, "validation_error")).error.details?.file).toMatch(/converter/);
    const none = await expectError(
      await api("/media/convert/voice", { method: "POST", json: {} }),
      422,
      "validation_error",
    );
    expect(none.error.details).toHaveProperty("file");
    const output = await expectError(
      await api("/media/convert/voice", {
        method: "POST",
        json: { file: { url: "https://x.example/a.wav" }, output: "link" },
      }),
      422,
      "validation_error",
    );
    expect(output.error.details).toHaveProperty("output");
  });
});

describe("POST /media/convert/video", () => {
  it("turns an AVI into an MP4 that phones play", async () => {
    const res = await api("/media/convert/video", {
      method: "POST",
      json: { file: { data: avi.toString("base64"), mimetype: "video/x-msvideo", filename: "clipe.avi" } },
    });
    const out = await expectJson<Converted>(res);
    expect(out).toMatchObject({ mimetype: "video/mp4", filename: "clipe.mp4" });
    expect(out.seconds).toBeUndefined();
    expect(Buffer.from(out.data!, "base64").subarray(4, 8).toString()).toBe("ftyp");
  });

  it("works on official-gateway instances too (their voice notes must be OGG/Opus)", async () => {
    const o = await c.createInstance({ kind: "official", provider: undefined });
    const res = await c.as(o.token)(`/v1/instances/${o.id}/media/convert/voice`, {
      method: "POST",
      json: { file: { data: wav(1).toString("base64"), mimetype: "audio/wav" } },
    });
    expect((await expectJson<Converted>(res)).mimetype).toBe("audio/ogg; codecs=opus");
  });
});

describe("limits: body size, refused URLs, ffmpeg's time limit", () => {
  // A gateway that refuses internal addresses (as in production), with a small file body limit and a
  // short conversion time limit; an ffmpeg that never finishes stands in for a conversion too long.
  let strict: Cluster;
  let s = { id: "", token: "" };
  const FILE_LIMIT = 64 * 1024;
  const strictApi = (path: string, json: unknown) =>
    strict.as(s.token)(`/v1/instances/${s.id}${path}`, { method: "POST", json });
  beforeAll(async () => {
    strict = await startCluster({
      env: { WEBHOOK_ALLOW_PRIVATE: "false", FILE_BODY_LIMIT: String(FILE_LIMIT), MEDIA_CONVERT_TIMEOUT_MS: "300" },
    });
    s = await strict.createInstance();
  });
  afterAll(() => strict?.close());

  it("a body above the file body limit → 413 payload_too_large; just under it is read", async () => {
    const file = (bytes: number) => ({ data: Buffer.alloc(bytes, 1).toString("base64"), mimetype: "audio/wav" });
    await expectError(await strictApi("/media/convert/voice", { file: file(FILE_LIMIT) }), 413, "payload_too_large");
    // Under the limit the body is read: what follows is about the file (not audio at all).
    const junk = await strictApi("/media/convert/voice", { file: file(1024) });
    expect((await expectError(junk, 422, "validation_error")).error.details?.file).toMatch(/converter/);
  });

  it("a URL the guard refuses → 400 url_not_allowed (internal addresses here; other schemes everywhere)", async () => {
    for (const url of ["http://127.0.0.1:8080/a.wav", "http://10.1.2.3/a.wav", "http://[::1]/a.mp4"]) {
      await expectError(await strictApi("/media/convert/voice", { file: { url } }), 400, "url_not_allowed");
    }
    await expectError(
      await strictApi("/media/convert/video", { file: { url: "https://example.com:8443/a.mp4" } }),
      400,
      "url_not_allowed",
    );
    // The default test gateway allows private addresses, never another scheme.
    await expectError(
      await api("/media/convert/voice", { method: "POST", json: { file: { url: "ftp://example.com/a.wav" } } }),
      400,
      "url_not_allowed",
    );
  });

  it("a conversion past the time limit: ffmpeg is killed, 422 with details.file saying so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "slow-ffmpeg-"));
    const script = join(dir, "ffmpeg");
    writeFileSync(script, "#!/bin/sh\nexec sleep 600\n");
    chmodSync(script, 0o755);
    const before = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = script; // the cluster runs in this process
    try {
      for (const [kind, file] of [
        ["voice", { data: wav(1).toString("base64"), mimetype: "audio/wav" }],
        ["video", { data: avi.toString("base64"), mimetype: "video/x-msvideo" }],
      ] as const) {
        const res = await strictApi(`/media/convert/${kind}`, { file });
        const err = await expectError(res, 422, "validation_error");
        expect(err.error.details?.file).toBe("não foi possível converter o arquivo: tempo esgotado (limite de 0.3 s)");
      }
      // Killed, not left running: no sleeping ffmpeg stand-in remains.
      const left = spawnSync("pgrep", ["-f", script]);
      expect(left.stdout.toString().trim()).toBe("");
    } finally {
      if (before === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
