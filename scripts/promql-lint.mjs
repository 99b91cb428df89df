// PromQL syntax check of the chart's alert expressions, for scripts/helm-lint.mjs: the grammar of
// the Prometheus project itself (@prometheus-io/lezer-promql, the parser behind Prometheus's own
// query editor), installed from the npm registry into .local/tools/promql at pinned versions
// (npm checks each tarball against the registry's integrity). Lezer parsers recover from errors
// by inserting error nodes: an expression is valid when its tree has none.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DEST = join(ROOT, ".local", "tools", "promql");
export const PROMQL_PACKAGES = [
  "@prometheus-io/lezer-promql@0.315.0",
  // Its peer dependencies and theirs.
  "@lezer/lr@1.4.12",
  "@lezer/highlight@1.2.5",
  "@lezer/common@1.5.5",
];

/** The PromQL parser, installed on first use. */
export async function promqlParser() {
  const marker = join(DEST, ".installed");
  const want = PROMQL_PACKAGES.join(" ");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== want) {
    process.stderr.write(`[helm-lint] installing ${PROMQL_PACKAGES[0]} into ${DEST}\n`);
    rmSync(DEST, { recursive: true, force: true });
    mkdirSync(DEST, { recursive: true });
    writeFileSync(join(DEST, "package.json"), '{ "private": true }\n');
    const args = ["install", "--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund"];
    const r = spawnSync("npm", [...args, ...PROMQL_PACKAGES], { cwd: DEST, stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`npm install ${PROMQL_PACKAGES.join(" ")} failed`);
    writeFileSync(marker, want);
  }
  const entry = createRequire(join(DEST, "package.json")).resolve("@prometheus-io/lezer-promql");
  return (await import(pathToFileURL(entry).href)).parser;
}

/** Null when `expr` parses as PromQL, else the offset and the text around the first error. */
export function promqlError(parser, expr) {
  let at = null;
  parser.parse(expr).iterate({
    enter: (node) => {
      if (at === null && node.type.isError) at = node.from;
      return at === null;
    },
  });
  return at === null
    ? null
    : `syntax error at ${at}: …${expr.slice(Math.max(0, at - 30), at)}⟨here⟩${expr.slice(at, at + 30)}…`;
}
