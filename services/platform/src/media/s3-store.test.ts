// The S3 store against a real S3-compatible server (moto, started by the test stack: global-setup.ts).
import { randomBytes } from "node:crypto";
import { text } from "node:stream/consumers";
import {
  CreateBucketCommand,
  GetBucketLifecycleConfigurationCommand,
  HeadObjectCommand,
  PutBucketLifecycleConfigurationCommand,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LIFECYCLE_RULE_ID, S3MediaStore } from "./s3-store.ts";
import { sha256Hex } from "./store.ts";

const bucket = `media-unit-${randomBytes(4).toString("hex")}`;
const store = new S3MediaStore({
  bucket,
  region: "us-east-1",
  endpoint: inject("s3Endpoint"),
  forcePathStyle: true,
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
  retentionDays: 7,
  listPageSize: 7, // removing an instance pages through its listing
});
const inst = () => `inst_${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  await store.client.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(() => store.close());

describe("S3MediaStore", () => {
  it("puts once under the instance's sha256 address, reads whole and by range, streams", async () => {
    const id = inst();
    const bytes = randomBytes(200_000);
    const ref = await store.put(id, bytes);
    expect(ref).toEqual({ sha256: sha256Hex(bytes), size: bytes.length });
    const head = await store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: `${id}/sha256/${ref.sha256}` }));
    expect(head.ContentLength).toBe(bytes.length);
    expect(await store.read(id, ref.sha256)).toEqual(bytes);
    const chunks: Buffer[] = [];
    for await (const c of (await store.open(id, ref.sha256, { start: 1000, end: 1999 }))!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks)).toEqual(bytes.subarray(1000, 2000));
    expect(await store.open(inst(), ref.sha256)).toBeNull();
    expect(await store.read(inst(), ref.sha256)).toBeNull();
  });

  it("the same bytes again write nothing: not even an existence check within the process", async () => {
    const id = inst();
    const bytes = Buffer.from("campaign flyer");
    await store.put(id, bytes);
    const sent: string[] = [];
    store.client.middlewareStack.add(
      (next, ctx) => (args) => {
        sent.push(String(ctx.commandName));
        return next(args);
      },
      { step: "initialize", name: "count-commands" },
    );
    try {
      for (let i = 0; i < 50; i++) await store.put(id, bytes);
      expect(sent).toEqual([]);
      // Another process (no memory): one HEAD, no upload.
      const other = new S3MediaStore({
        bucket,
        region: "us-east-1",
        endpoint: inject("s3Endpoint"),
        forcePathStyle: true,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
        retentionDays: 7,
      });
      const names: string[] = [];
      other.client.middlewareStack.add(
        (next, ctx) => (args) => {
          names.push(String(ctx.commandName));
          return next(args);
        },
        { step: "initialize", name: "count-commands" },
      );
      await other.put(id, bytes);
      expect(names).toEqual(["HeadObjectCommand"]);
      await other.close();
    } finally {
      store.client.middlewareStack.remove("count-commands");
    }
  });

  it("presigns a GET that answers the bytes with the type asked, ranges included", async () => {
    const id = inst();
    const bytes = randomBytes(5000);
    const ref = await store.put(id, bytes);
    const url = await store.presign(id, ref.sha256, { mimetype: "image/png", filename: "foto 1.png", expiresInS: 60 });
    const res = await fetch(url!, { headers: { range: "bytes=10-19" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes.subarray(10, 20));
  });

  it("removes every object of a deleted instance, past one page of the listing", async () => {
    const id = inst();
    const keepId = inst();
    const kept = await store.put(keepId, Buffer.from("not mine"));
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.put(id, Buffer.from(`object ${i}`))));
    expect(await store.removeInstance(id)).toBe(30);
    expect(await store.removeInstance(id)).toBe(0);
    expect(await text((await store.open(keepId, kept.sha256))!)).toBe("not mine");
  });

  it("sets its lifecycle rule (retention + 1 day) and keeps the bucket's other rules", async () => {
    await store.client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: {
          Rules: [{ ID: "someone-elses", Status: "Enabled", Filter: { Prefix: "logs/" }, Expiration: { Days: 30 } }],
        },
      }),
    );
    const rule = await store.lifecycle();
    expect(rule).toMatchObject({ ID: LIFECYCLE_RULE_ID, Expiration: { Days: 8 } });
    await store.lifecycle(); // again: replaced, not doubled
    const rules = (await store.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }))).Rules ?? [];
    expect(rules.map((r) => r.ID).sort()).toEqual([LIFECYCLE_RULE_ID, "someone-elses"]);
  });
});
