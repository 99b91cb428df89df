#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain line CI can read: "tests: N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./stack-lib.mjs";

const out = join(ROOT, ".local", "test-results.json");
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
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code !== 0 || failed > 0 ? 1 : 0);
