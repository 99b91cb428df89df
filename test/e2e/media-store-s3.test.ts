// The media store's S3 path end to end (docs/media.md): a real S3-compatible server (moto, from
// the test stack), simnet, a session pod and the gateway on real Redis. A media send's bytes go
// to the bucket once, content-addressed; the signed link streams them with ranges or redirects to
// a presigned URL; Redis holds references only; a deleted instance's objects go with it.
import { createHash, randomBytes } from "node:crypto";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson, until } from "../support/e2e-helpers.ts";
import { startGateway } from "../support/gateway.ts";
import { footprint, needlesOf } from "../support/redis-media.ts";

const S3_ENV = {
  MEDIA_STORE: "s3",
  S3_ENDPOINT: inject("s3Endpoint"),
  S3_BUCKET: inject("s3Bucket"),
  S3_FORCE_PATH_STYLE: "true",
  S3_ACCESS_KEY_ID: "test",
  S3_SECRET_ACCESS_KEY: "test",
};
const s3 = new S3Client({
  region: "us-east-1",
  endpoint: S3_ENV.S3_ENDPOINT,
  forcePathStyle: true,
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
});
const PNG_SIGNATURE = Buffer.from("89504e470d0a1a0a", "hex");
const picture = Buffer.concat([PNG_SIGNATURE, randomBytes(300_000 - PNG_SIGNATURE.length)]);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

let c: Cluster;
const a = { id: "", token: "", phone: "5531977770001" };
const ana = "5531977770002";
const bia = "5531977770003";

type Payload = Record<string, any>;
const api = (path: string, json?: unknown) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, json === undefined ? {} : { method: "POST", json });
const objects = async (instanceId: string) =>
  (await s3.send(new ListObjectsV2Command({ Bucket: S3_ENV.S3_BUCKET, Prefix: `${instanceId}/` }))).Contents ?? [];
const inboxOf = async (phone: string) =>
  ((await expectJson(await c.sim("GET", `/simnet/phones/${phone}/inbox`))) as { messages: Payload[] }).messages;
const anyEvent = (apiId: string) =>
  until(async () => (await c.events(a.id, "message.any")).find((e) => (e.payload as Payload).id === apiId), apiId);

beforeAll(async () => {
  c = await startCluster({ env: S3_ENV });
  Object.assign(a, await c.createInstance());
  await api("/start", {});
  await c.pair(a.id, a.phone);
  for (const phone of [ana, bia]) await c.sim("POST", "/simnet/phones", { phone, pushName: phone });
}, 120_000);
afterAll(async () => {
  await c?.close();
  s3.destroy();
});

let sentId = "";
let link = "";

describe("a media send through the S3 store", () => {
  it("the phone gets the bytes; the bucket one object at the bytes' sha256; Redis none of them", async () => {
    const out = await expectJson<{ id: string }>(
      await api("/messages/image", { phone: ana, file: { data: picture.toString("base64"), mimetype: "image/png" } }),
      201,
    );
    sentId = out.id;
    const got = await until(async () => (await inboxOf(ana)).find((m) => out.id.endsWith(m.id)), "the phone's copy");
    expect(Buffer.from(got.message.media.data, "base64")).toEqual(picture);
    const listed = await objects(a.id);
    expect(listed.map((o) => [o.Key, o.Size])).toEqual([[`${a.id}/sha256/${sha256(picture)}`, picture.length]]);
    link = ((await anyEvent(out.id)).payload as Payload).media.url;
    // Every key of this cluster (its own prefix): no value holds any of the file's bytes, and all
    // of them together weigh less than a tenth of the file (its base64 alone was 400 KB).
    const redis = c.platform.redis;
    const found = await footprint(redis, c.platform.config.KEY_PREFIX, needlesOf(picture));
    expect(found.holding).toEqual([]);
    expect(found.bytes).toBeLessThan(picture.length / 10);
  });

  it("the signed link streams the bytes: whole, by range, a suffix; past the end is 416", async () => {
    const path = new URL(link);
    const url = `${c.url}${path.pathname}${path.search}`;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-length")).toBe(String(picture.length));
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-type")).toBe("image/png");
    expect(whole.headers.get("etag")).toBe(`"${sha256(picture)}"`);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(picture);
    const part = await fetch(url, { headers: { range: "bytes=1000-1999" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${picture.length}`);
    expect(part.headers.get("content-length")).toBe("1000");
    expect(Buffer.from(await part.arrayBuffer())).toEqual(picture.subarray(1000, 2000));
    const tail = await fetch(url, { headers: { range: "bytes=-100" } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(picture.subarray(-100));
    const past = await fetch(url, { headers: { range: `bytes=${picture.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${picture.length}`);
    // Signed-link semantics unchanged: tampered or expired is 404.
    expect((await fetch(`${c.url}${path.pathname}?exp=1000&sig=${path.searchParams.get("sig")}`)).status).toBe(404);
  });

  it("the same file to another chat is the same object; a forward sends the bytes back from the bucket", async () => {
    await expectJson(
      await api("/messages/image", { phone: bia, file: { data: picture.toString("base64"), mimetype: "image/png" } }),
      201,
    );
    const fwd = await expectJson<{ id: string }>(
      await api("/messages/forward", { phone: bia, messageId: sentId }),
      201,
    );
    const got = await until(async () => (await inboxOf(bia)).find((m) => fwd.id.endsWith(m.id)), "the forward");
    expect(Buffer.from(got.message.media.data, "base64")).toEqual(picture);
    expect(await objects(a.id)).toHaveLength(1);
  });

  it("MEDIA_REDIRECT: a 302 to a presigned URL of the bucket, valid no longer than the link", async () => {
    const redirecting = await startGateway({
      ...S3_ENV,
      MEDIA_REDIRECT: "true",
      KEY_PREFIX: c.platform.config.KEY_PREFIX,
    });
    try {
      const path = new URL(link);
      const res = await fetch(`${redirecting.url}${path.pathname}${path.search}`, { redirect: "manual" });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location")!);
      expect(location.origin).toBe(S3_ENV.S3_ENDPOINT);
      const expires = Number(location.searchParams.get("X-Amz-Expires"));
      expect(expires).toBeGreaterThan(0);
      expect(expires).toBeLessThanOrEqual(3600);
      const part = await fetch(location, { headers: { range: "bytes=0-7" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await part.arrayBuffer())).toEqual(PNG_SIGNATURE);
      const tampered = `${redirecting.url}${path.pathname}?exp=${path.searchParams.get("exp")}&sig=AAAA`;
      expect((await fetch(tampered, { redirect: "manual" })).status).toBe(404);
    } finally {
      await redirecting.close();
    }
  });

  it("received media (inline on simnet) go to the bucket too and are served by range", async () => {
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50_000)]);
    const sent = (await (
      await c.sim("POST", `/simnet/phones/${ana}/send`, {
        to: a.phone,
        message: { type: "image", media: { data: photo.toString("base64"), mimetype: "image/jpeg" } },
      })
    ).json()) as { id: string };
    const p = await until(
      async () =>
        (await c.events(a.id, "message")).map((e) => e.payload as Payload).find((x) => x.id?.endsWith(sent.id)),
      "the received image",
    );
    const url = new URL(p.media.url);
    const part = await fetch(`${c.url}${url.pathname}${url.search}`, { headers: { range: "bytes=0-3" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(photo.subarray(0, 4));
    expect((await objects(a.id)).map((o) => o.Key)).toContain(`${a.id}/sha256/${sha256(photo)}`);
    const found = await footprint(c.platform.redis, c.platform.config.KEY_PREFIX, needlesOf(photo));
    expect(found.holding).toEqual([]);
  });

  it("a deleted instance's objects are deleted from the bucket", async () => {
    const other = await c.createInstance();
    const kept = await c.platform.media.put(other.id, Buffer.from("another instance's file"));
    expect((await objects(a.id)).length).toBeGreaterThan(0);
    expect((await c.admin("DELETE", `/v1/admin/instances/${a.id}`)).status).toBe(200);
    expect(await objects(a.id)).toEqual([]);
    expect(await c.platform.media.read(other.id, kept.sha256)).toEqual(Buffer.from("another instance's file"));
  });
});
