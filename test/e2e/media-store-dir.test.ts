// The media store's directory path end to end (the embedded default: MEDIA_STORE=dir, this run's
// temporary MEDIA_DIR): sent media, converted files and large pictures are files there, Redis
// keeps references, links stream with ranges, a deleted instance's folder goes with it.

import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson, until } from "../support/e2e-helpers.ts";
import { wav } from "../support/media.ts";
import { footprint, needlesOf } from "../support/redis-media.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531988880001" };
const ana = "5531988880002";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const api = (path: string, json?: unknown) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, json === undefined ? {} : { method: "POST", json });
const dirOf = (instanceId: string) => join(c.platform.config.MEDIA_DIR, instanceId);
const fileOf = (instanceId: string, hex: string) => join(dirOf(instanceId), "sha256", hex.slice(0, 2), hex);
const local = (link: string) => {
  const u = new URL(link);
  return `${c.url}${u.pathname}${u.search}`;
};

beforeAll(async () => {
  c = await startCluster();
  Object.assign(a, await c.createInstance());
  await api("/start", {});
  await c.pair(a.id, a.phone);
  await c.sim("POST", "/simnet/phones", { phone: ana, pushName: "Ana" });
}, 120_000);
afterAll(() => c?.close());

describe("the directory store", () => {
  it("a document sent is one file at its sha256; the link streams it with ranges; Redis holds none of it", async () => {
    const doc = randomBytes(120_000);
    const out = await expectJson<{ id: string }>(
      await api("/messages/file", {
        phone: ana,
        file: { data: doc.toString("base64"), mimetype: "application/pdf", filename: "contrato.pdf" },
      }),
      201,
    );
    expect(existsSync(fileOf(a.id, sha256(doc)))).toBe(true);
    const ev = await until(
      async () => (await c.events(a.id, "message.any")).find((e) => (e.payload as { id: string }).id === out.id),
      "message.any",
    );
    const link = local((ev.payload as { media: { url: string } }).media.url);
    const part = await fetch(link, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${doc.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(doc.subarray(100, 200));
    const head = await fetch(link, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(doc.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const whole = await fetch(link);
    expect(whole.headers.get("content-length")).toBe(String(doc.length));
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(doc);
    const found = await footprint(c.platform.redis, c.platform.config.KEY_PREFIX, needlesOf(doc));
    expect(found.holding).toEqual([]);
  });

  it("a converted file kept behind a link is a file of the store; its Redis entry a reference", async () => {
    const out = await expectJson<{ url: string; size: number }>(
      await api("/media/convert/voice", {
        file: { data: wav(1).toString("base64"), mimetype: "audio/wav" },
        output: "url",
      }),
    );
    const got = await fetch(local(out.url), { headers: { range: "bytes=0-3" } });
    expect(got.status).toBe(206);
    expect(Buffer.from(await got.arrayBuffer()).toString()).toBe("OggS");
    const id = /\/(cv_[0-9a-z]{26})\./.exec(out.url)![1]!;
    const entry = await c.platform.redis.hgetall(c.platform.keys.converted(a.id, id));
    expect(Object.keys(entry).sort()).toEqual(["filename", "mimetype", "sha256", "size"]);
    expect(existsSync(fileOf(a.id, entry.sha256!))).toBe(true);
    expect(Number(entry.size)).toBe(out.size);
  });

  it("a large picture goes to the store, its day's cache keeps the reference", async () => {
    const big = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), randomBytes(20_000)]);
    await c.sim("PUT", `/simnet/phones/${ana}/picture`, {
      picture: { data: big.toString("base64"), mimetype: "image/png" },
    });
    const res = await expectJson<{ url: string }>(await api(`/contacts/${ana}@c.us/picture?refresh=true`));
    const got = await fetch(local(res.url));
    expect(got.status).toBe(200);
    expect(got.headers.get("content-length")).toBe(String(big.length));
    expect(Buffer.from(await got.arrayBuffer())).toEqual(big);
    const cached = JSON.parse((await c.platform.redis.get(c.platform.keys.avatar(a.id, `${ana}@c.us`)))!);
    expect(cached).toEqual({ mimetype: "image/png", media: { sha256: sha256(big), size: big.length } });
    expect(existsSync(fileOf(a.id, sha256(big)))).toBe(true);
  });

  it("a deleted instance's folder is deleted", async () => {
    expect(readdirSync(dirOf(a.id))).toEqual(["sha256"]);
    expect((await c.admin("DELETE", `/v1/admin/instances/${a.id}`)).status).toBe(200);
    expect(existsSync(dirOf(a.id))).toBe(false);
  });
});
