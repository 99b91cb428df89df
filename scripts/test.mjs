#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain line CI can read: "tests: N passed, N failed".
// `--summary` prints that line again from the last run: `make test` ends with it, so that the
// count is the last thing CI prints even after the chaos and fuzz steps' long output.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./stack-lib.mjs";

const out = join(ROOT, ".local", "test-results.json");
const summaryFile = join(ROOT, ".local", "test-summary.txt");
if (process.argv[2] === "--summary") {
  if (!existsSync(summaryFile)) {
    console.log("tests: no run on record (node scripts/test.mjs)");
    process.exit(1);
  }
  process.stdout.write(readFileSync(summaryFile, "utf8"));
  process.exit(0);
}
mkdirSync(join(ROOT, ".local"), { recursive: true });
const vitest = join(ROOT, "node_modules", ".bin", "vitest");
const run = spawnSync(
  vitest,
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const r = JSON.parse(readFileSync(out, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = r.numPendingTests + (r.numTodoTests ?? 0);
} catch {
  failed = Math.max(1, failed);
}
const code = run.status ?? 1;
if (passed === 0 && code === 0) failed = 1; // a run that executed no test is not a pass
const line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
// vitest's own summary shape too, for readers that look for it
const vitestLine = `      Tests  ${failed ? `${failed} failed | ` : ""}${passed} passed${skipped ? ` | ${skipped} skipped` : ""} (${passed + failed + skipped})`;
writeFileSync(summaryFile, `${vitestLine}\n${line}\n`);
console.log(line);
process.exit(code !== 0 || failed > 0 ? 1 : 0);
