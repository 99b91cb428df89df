// Starts the local stack (Redis Stack, the Temporal dev server, the S3 server) once for the whole
// run, or reuses one that is already up (`pnpm stack up`). It is left running: the next run
// reuses it. The media store's directory is a temporary one of this run's, removed at its end;
// the S3 tests share one bucket (objects are addressed per instance, and instances are new).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureBucket, up } from "../../scripts/stack-lib.mjs";

export const TEST_BUCKET = "gw-test-media";

export default async function setup(project: TestProject) {
  const stack = await up({ quiet: true });
  const mediaDir = mkdtempSync(join(tmpdir(), "gw-media-"));
  project.provide("redisUrl", stack.redisUrl);
  project.provide("temporalAddress", stack.temporalAddress);
  project.provide("s3Endpoint", stack.s3Endpoint);
  project.provide("s3Bucket", await ensureBucket(stack.s3Endpoint, TEST_BUCKET));
  project.provide("mediaDir", mediaDir);
  return () => rmSync(mediaDir, { recursive: true, force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    temporalAddress: string;
    s3Endpoint: string;
    s3Bucket: string;
    mediaDir: string;
  }
}
