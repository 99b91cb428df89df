import { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetObjectCommand,
  HeadObjectCommand,
  type LifecycleRule,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import {
  type ByteRange,
  FreshObjects,
  instancePrefix,
  type MediaRef,
  type MediaStore,
  objectKey,
  type PresignOptions,
  sha256Hex,
  TOUCH_AFTER_MS,
} from "./store.ts";

export interface S3StoreOptions {
  bucket: string;
  region: string;
  /** MinIO, R2, GCS interoperability, a test server; unset: AWS itself. */
  endpoint?: string | undefined;
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (environment, web identity, instance role...). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  retentionDays: number;
  /** Keys per listing page when removing an instance (S3's own maximum, 1,000, unless a test pages). */
  listPageSize?: number;
}

/** The id of the rule `pnpm media:lifecycle` sets; other rules of the bucket are left alone. */
export const LIFECYCLE_RULE_ID = "gateway-media-retention";

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NotFound" || e.name === "NoSuchKey" || e.$metadata?.httpStatusCode === 404;
};

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, GCS's S3 interoperability)
 * through the AWS SDK v3. Retention is the bucket's lifecycle rule (expire `retentionDays + 1`
 * days after the last write: {@link lifecycle}); a put of bytes already there copies an object
 * older than a day onto itself, which restarts its lifecycle clock.
 */
export class S3MediaStore implements MediaStore {
  readonly kind = "s3" as const;
  readonly retentionDays: number;
  readonly client: S3Client;
  private readonly fresh = new FreshObjects();

  constructor(private readonly opts: S3StoreOptions) {
    this.retentionDays = opts.retentionDays;
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // Checksums only where S3 requires them: the CRC trailers the SDK adds by default since
      // 2025 (aws-chunked uploads) are refused or stored wrongly by several S3-compatible servers.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(instanceId: string, bytes: Uint8Array, sha256 = sha256Hex(bytes)): Promise<MediaRef> {
    const ref = { sha256, size: bytes.length };
    const Key = objectKey(instanceId, sha256);
    if (this.fresh.isFresh(Key)) return ref;
    const Bucket = this.opts.bucket;
    const now = Date.now();
    const head = await this.client.send(new HeadObjectCommand({ Bucket, Key })).catch((err) => {
      if (notFound(err)) return null;
      throw err;
    });
    if (head && head.ContentLength === bytes.length) {
      const modified = head.LastModified?.getTime() ?? 0;
      if (now - modified >= TOUCH_AFTER_MS) {
        // S3 refuses a copy onto itself that changes nothing: new metadata makes it a new write.
        await this.client.send(
          new CopyObjectCommand({
            Bucket,
            Key,
            CopySource: `${Bucket}/${Key}`,
            MetadataDirective: "REPLACE",
            ContentType: "application/octet-stream",
            Metadata: { touched: String(now) },
          }),
        );
        this.fresh.mark(Key, now);
      } else this.fresh.mark(Key, modified);
      return ref;
    }
    // The type of a message's bytes is its record's (the same bytes may go as image and document).
    await this.client.send(
      new PutObjectCommand({
        Bucket,
        Key,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: "application/octet-stream",
      }),
    );
    this.fresh.mark(Key, now);
    return ref;
  }

  async open(instanceId: string, sha256: string, range?: ByteRange): Promise<Readable | null> {
    const got = await this.client
      .send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: objectKey(instanceId, sha256),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      )
      .catch((err) => {
        if (notFound(err)) return null;
        throw err;
      });
    if (!got?.Body) return null;
    // In Node the body is the response's own stream: piped to the client as it arrives.
    return got.Body instanceof Readable ? got.Body : Readable.fromWeb(got.Body.transformToWebStream() as never);
  }

  async read(instanceId: string, sha256: string): Promise<Buffer | null> {
    const got = await this.client
      .send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: objectKey(instanceId, sha256) }))
      .catch((err) => {
        if (notFound(err)) return null;
        throw err;
      });
    return got?.Body ? Buffer.from(await got.Body.transformToByteArray()) : null;
  }

  async presign(instanceId: string, sha256: string, opts: PresignOptions): Promise<string | null> {
    const disposition = opts.filename ? `inline; filename*=UTF-8''${encodeURIComponent(opts.filename)}` : undefined;
    const command = new GetObjectCommand({
      Bucket: this.opts.bucket,
      Key: objectKey(instanceId, sha256),
      ResponseContentType: opts.mimetype,
      ...(disposition ? { ResponseContentDisposition: disposition } : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: opts.expiresInS });
  }

  async removeInstance(instanceId: string): Promise<number> {
    const Prefix = instancePrefix(instanceId);
    let removed = 0;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.opts.bucket,
          Prefix,
          ContinuationToken,
          MaxKeys: this.opts.listPageSize ?? 1000,
        }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length) {
        const out = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.opts.bucket, Delete: { Objects: keys, Quiet: true } }),
        );
        if (out.Errors?.length)
          throw new Error(`media store: ${out.Errors.length} objects not deleted under ${Prefix}`);
        removed += keys.length;
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    this.fresh.forgetPrefix(Prefix);
    return removed;
  }

  /**
   * Sets the bucket's retention rule (`pnpm media:lifecycle`): objects expire `retentionDays + 1`
   * days after their last write. The bucket's other rules are kept (a put replaces the whole
   * configuration, so they are read first).
   */
  async lifecycle(): Promise<LifecycleRule> {
    const Bucket = this.opts.bucket;
    const current = await this.client
      .send(new GetBucketLifecycleConfigurationCommand({ Bucket }))
      .then((r) => r.Rules ?? [])
      .catch((err) => {
        if ((err as { name?: string }).name === "NoSuchLifecycleConfiguration" || notFound(err)) return [];
        throw err;
      });
    const rule: LifecycleRule = {
      ID: LIFECYCLE_RULE_ID,
      Status: "Enabled",
      Filter: { Prefix: "" },
      Expiration: { Days: this.retentionDays + 1 },
    };
    const Rules = [...current.filter((r) => r.ID !== LIFECYCLE_RULE_ID), rule];
    await this.client.send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } }));
    return rule;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
