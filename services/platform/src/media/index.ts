import { resolve } from "node:path";
import type { Config } from "../infra/config.ts";
import { DirectoryMediaStore } from "./directory-store.ts";
import { S3MediaStore } from "./s3-store.ts";
import type { MediaStore } from "./store.ts";

export * from "./directory-store.ts";
export * from "./range.ts";
export * from "./s3-store.ts";
export * from "./store.ts";

/** The directory store sweeps itself this often (a sweep walks every file's mtime once). */
const SWEEP_EVERY_MS = 3_600_000;

type MediaConfig = Pick<
  Config,
  | "MEDIA_STORE"
  | "MEDIA_DIR"
  | "MEDIA_RETENTION_DAYS"
  | "S3_ENDPOINT"
  | "S3_REGION"
  | "S3_BUCKET"
  | "S3_FORCE_PATH_STYLE"
  | "S3_ACCESS_KEY_ID"
  | "S3_SECRET_ACCESS_KEY"
>;

/** The S3 store the configuration names (also `pnpm media:lifecycle`'s). Throws on a half-given configuration. */
export function s3StoreFrom(config: MediaConfig): S3MediaStore {
  if (!config.S3_BUCKET) throw new Error("invalid configuration:\n  S3_BUCKET: required with MEDIA_STORE=s3");
  if (Boolean(config.S3_ACCESS_KEY_ID) !== Boolean(config.S3_SECRET_ACCESS_KEY)) {
    throw new Error("invalid configuration:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together");
  }
  return new S3MediaStore({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials:
      config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : undefined,
    retentionDays: config.MEDIA_RETENTION_DAYS,
  });
}

/** The media store of `MEDIA_STORE`: a directory (the default) or an S3 bucket. */
export function createMediaStore(config: MediaConfig, onError?: (err: unknown) => void): MediaStore {
  if (config.MEDIA_STORE === "s3") return s3StoreFrom(config);
  return new DirectoryMediaStore({
    root: resolve(config.MEDIA_DIR),
    retentionDays: config.MEDIA_RETENTION_DAYS,
    sweepEveryMs: SWEEP_EVERY_MS,
    ...(onError ? { onSweepError: onError } : {}),
  });
}
