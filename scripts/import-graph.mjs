#!/usr/bin/env node
// The house's shape, checked by `make test`:
// - the import graph (dependency-cruiser, rules in .dependency-cruiser.cjs): no import circle,
//   type-only ones included, and every layer imports downwards only
//   (contracts ← platform ← session ← sending ← gateway, worker ← main);
// - no file under services/ longer than 400 lines (tests included): past that, a file holds
//   more than one concern.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const MAX_LINES = 400;

function graph() {
  const bin = join(ROOT, "node_modules/.bin/depcruise");
  try {
    const out = execFileSync(
      bin,
      ["services", "workflows", "test", "--config", ".dependency-cruiser.cjs", "--output-type", "err"],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    console.log(`import graph: ${out.trim().split("\n").at(-1) ?? "ok"}`);
    return true;
  } catch (err) {
    process.stdout.write(String(err.stdout ?? ""));
    process.stderr.write(String(err.stderr ?? ""));
    console.error("import graph: the rules above are broken (.dependency-cruiser.cjs says why each one exists)");
    return false;
  }
}

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.(ts|mjs)$/.test(entry.name)) yield path;
  }
}

function lengths() {
  const long = [];
  for (const path of sources(join(ROOT, "services"))) {
    const lines = readFileSync(path, "utf8").split("\n").length - 1;
    if (lines > MAX_LINES) long.push(`${relative(ROOT, path)}: ${lines} lines`);
  }
  if (long.length === 0) {
    console.log(`file length: no file under services/ over ${MAX_LINES} lines`);
    return true;
  }
  console.error(`file length: ${long.length} files under services/ over ${MAX_LINES} lines — split them by concern:`);
  for (const l of long) console.error(`  ${l}`);
  return false;
}

const ok = [graph(), lengths()].every(Boolean);
process.exit(ok ? 0 : 1);
