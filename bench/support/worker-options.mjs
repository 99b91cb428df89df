// The worker role with extra Temporal worker options, for experiments (bench/helpdesk.mjs,
// BENCH_WORKER_OPTIONS): `node --import tsx bench/support/worker-options.mjs` with
// WORKER_OPTIONS='{"workflowTaskPollerBehavior":{"type":"simple-maximum","maximum":40}}' merges that
// JSON into the options the role passes to `Worker.create`, then runs services/main/src/main.ts as
// usual (ROLES=worker). Nothing in the repository's code changes; the options are printed once.
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { Worker } = createRequire(join(ROOT, "services", "worker", "package.json"))("@temporalio/worker");
const extra = JSON.parse(process.env.WORKER_OPTIONS || "{}");
const create = Worker.create.bind(Worker);
Worker.create = (options) => {
  process.stderr.write(`[worker-options] Worker.create with ${JSON.stringify(extra)}\n`);
  return create({ ...options, ...extra });
};
await import(join(ROOT, "services", "main", "src", "main.ts"));
