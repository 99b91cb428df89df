// pnpm media:lifecycle [--create-bucket] — sets the S3 bucket's retention rule (docs/media.md
// "Retention"): objects expire MEDIA_RETENTION_DAYS + 1 days after their last write. Reads only
// the media keys of the environment (S3_*, MEDIA_RETENTION_DAYS), so it runs from an operator's
// shell or a chart hook without the gateway's secrets. `--create-bucket` creates the bucket
// first when it is missing (a fresh MinIO, a test server).
import { CreateBucketCommand, HeadBucketCommand } from "@aws-sdk/client-s3";
import { configSchema } from "../infra/config.ts";
import { s3StoreFrom } from "./index.ts";

const media = configSchema.pick({
  MEDIA_STORE: true,
  MEDIA_DIR: true,
  MEDIA_RETENTION_DAYS: true,
  S3_ENDPOINT: true,
  S3_REGION: true,
  S3_BUCKET: true,
  S3_FORCE_PATH_STYLE: true,
  S3_ACCESS_KEY_ID: true,
  S3_SECRET_ACCESS_KEY: true,
});

async function main(): Promise<number> {
  const parsed = media.safeParse(process.env);
  if (!parsed.success) {
    for (const i of parsed.error.issues) console.error(`  ${i.path.join(".")}: ${i.message}`);
    return 2;
  }
  const store = s3StoreFrom(parsed.data);
  try {
    const Bucket = parsed.data.S3_BUCKET ?? "";
    if (process.argv.includes("--create-bucket")) {
      const exists = await store.client.send(new HeadBucketCommand({ Bucket })).then(
        () => true,
        () => false,
      );
      if (!exists) {
        await store.client.send(new CreateBucketCommand({ Bucket }));
        console.log(`bucket ${Bucket} created`);
      }
    }
    const rule = await store.lifecycle();
    console.log(
      `bucket ${Bucket}: rule ${rule.ID}: objects expire ${rule.Expiration?.Days} days after their last write`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`media:lifecycle: ${(err as Error).message}`);
    process.exit(1);
  },
);
