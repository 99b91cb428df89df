// PromQL checks of the chart's alert expressions and Grafana dashboard, for scripts/helm-lint.mjs
// (and `node scripts/promql-lint.mjs` for the dashboard alone): the grammar of
// the Prometheus project itself (@prometheus-io/lezer-promql, the parser behind Prometheus's own
// query editor), installed from the npm registry into .local/tools/promql at pinned versions
// (npm checks each tarball against the registry's integrity). Lezer parsers recover from errors
// by inserting error nodes: an expression is valid when its tree has none.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * Metric names the services define with prom-client — `name: "…"` in a file that imports it, and
 * fleet-metrics.ts's `gauge("…", …)` — plus prom-client's default process/nodejs metrics (read
 * from prom-client itself, as `collectDefaultMetrics` registers them in every role).
 */
export function exportedMetrics(root = ROOT) {
  const names = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === "node_modules") continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) {
        const text = readFileSync(p, "utf8");
        if (!text.includes("prom-client")) continue;
        for (const m of text.matchAll(/(?:name:\s*|gauge\(\s*)"([a-z_:][a-z0-9_:]*)"/g)) names.add(m[1]);
      }
    }
  };
  walk(join(root, "services"));
  const promClient = createRequire(join(root, "services", "session", "package.json"))("prom-client");
  const registry = new promClient.Registry();
  promClient.collectDefaultMetrics({ register: registry });
  for (const metric of registry.getMetricsAsArray()) names.add(metric.name);
  return names;
}

/** Metric names an expression selects (the identifiers of its vector selectors), from the parse tree. */
export function selectedMetrics(parser, expr) {
  const names = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.name === "Identifier" && node.node.parent?.type.name === "VectorSelector") {
        names.push(expr.slice(node.from, node.to));
      }
    },
  });
  return names;
}

/** Whether `name` is exported, as is or as a histogram's / summary's series (`_bucket`, `_sum`, `_count`). */
export function isExported(exported, name) {
  return exported.has(name) || exported.has(name.replace(/_(bucket|sum|count)$/, ""));
}

/**
 * A Grafana dashboard's PromQL: every panel target's `expr` (rows' nested panels included) with
 * Grafana's interval variables given a duration, and the metric of each `label_values(metric,
 * label)` variable query. Other variables (`$namespace`) are expected inside label matchers'
 * quotes, where any text parses; one elsewhere is a syntax error, on purpose.
 */
export function dashboardExpressions(dashboard) {
  const out = [];
  const grafana = (expr) =>
    expr.replaceAll("$__rate_interval", "5m").replaceAll("$__interval", "1m").replaceAll("$__range", "1h");
  const walk = (panels) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) {
        if (target.expr) out.push({ where: `panel "${panel.title}" ${target.refId}`, expr: grafana(target.expr) });
      }
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    const query = typeof variable.query === "string" ? variable.query : variable.query?.query;
    const m = /^label_values\((.+),\s*\w+\)$/.exec(query ?? "");
    if (m) out.push({ where: `variable $${variable.name}`, expr: m[1] });
  }
  return out;
}

/**
 * Checks a dashboard: each expression parses, selects at least one metric, and only metrics in
 * `exported`. Answers the errors (empty: all good) and how many expressions were read.
 */
export function checkDashboard(parser, dashboard, exported) {
  const errors = [];
  const expressions = dashboardExpressions(dashboard);
  for (const { where, expr } of expressions) {
    const error = promqlError(parser, expr);
    if (error) {
      errors.push(`${where}: ${error}`);
      continue;
    }
    const metrics = selectedMetrics(parser, expr);
    if (metrics.length === 0) errors.push(`${where}: no metric selected in ${expr}`);
    for (const metric of metrics) {
      if (!isExported(exported, metric)) errors.push(`${where}: ${metric} is not a metric the services export`);
    }
  }
  return { errors, count: expressions.length };
}

export const DASHBOARD = join(ROOT, "charts", "gateway", "dashboards", "fleet.json");

// `node scripts/promql-lint.mjs`: the chart's dashboard on its own (scripts/helm-lint.mjs, in
// `make test`, checks it as rendered, with the PrometheusRule's expressions).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { errors, count } = checkDashboard(
    await promqlParser(),
    JSON.parse(readFileSync(DASHBOARD, "utf8")),
    exportedMetrics(),
  );
  for (const e of errors) process.stderr.write(`promql-lint: ${e}\n`);
  process.stdout.write(`promql-lint: ${count} dashboard expressions, ${errors.length} errors\n`);
  process.exit(errors.length === 0 ? 0 : 1);
}
