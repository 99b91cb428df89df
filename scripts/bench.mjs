#!/usr/bin/env node
// pnpm bench <name> [args…] — runs bench/<name>.mjs (or bench/<name>.ts through tsx).
//
// A bench is a module in bench/ that exports `default async function (args)` returning an
// exit code (or nothing for 0) and, for the listing, `export const description = "…"`.
// bench/lib.mjs and anything under bench/support/ are helpers, not benches.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const BENCH_DIR = join(ROOT, "bench");
const HELPERS = new Set(["lib"]);

function benches() {
  if (!existsSync(BENCH_DIR)) return [];
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(mjs|ts)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => ({ name: e.name.replace(/\.(mjs|ts)$/, ""), file: join(BENCH_DIR, e.name) }))
    .filter((b) => !HELPERS.has(b.name) && !b.name.startsWith("_"))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The `description` export, read from the source so that listing imports nothing. */
function describe(file) {
  const m = /export const description\s*=\s*(["'`])(.*?)\1/s.exec(readFileSync(file, "utf8"));
  return m ? m[2].replace(/\s+/g, " ") : "";
}

function usage(message) {
  if (message) console.error(message);
  const list = benches();
  console.error("usage: pnpm bench <name> [args…]");
  console.error(list.length ? "available benches:" : "no benches in bench/");
  const width = Math.max(0, ...list.map((b) => b.name.length));
  for (const b of list) console.error(`  ${b.name.padEnd(width)}  ${describe(b.file)}`);
  process.exit(2);
}

const [name, ...args] = process.argv.slice(2);
if (!name || name === "-h" || name === "--help") usage();
const bench = benches().find((b) => b.name === name);
if (!bench) usage(`unknown bench: ${name}`);

// A TypeScript bench: run this dispatcher again under tsx so that the import below can load it.
if (bench.file.endsWith(".ts") && !process.env.BENCH_UNDER_TSX) {
  const tsx = join(ROOT, "node_modules", ".bin", "tsx");
  const r = spawnSync(tsx, [fileURLToPath(import.meta.url), name, ...args], {
    stdio: "inherit",
    env: { ...process.env, BENCH_UNDER_TSX: "1" },
  });
  process.exit(r.status ?? 1);
}

try {
  const mod = await import(pathToFileURL(bench.file).href);
  if (typeof mod.default !== "function") throw new Error(`${bench.file} has no default export function`);
  const code = await mod.default(args);
  process.exit(typeof code === "number" ? code : 0);
} catch (err) {
  console.error(`[bench ${name}] ${err?.stack ?? err}`);
  process.exit(1);
}
