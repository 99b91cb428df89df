// Checks the Dockerfile without a Docker engine (none runs on our machines): it replays the
// dependency stage's COPY instructions into a temporary directory, with .dockerignore applied,
// and runs that stage's pnpm commands there (offline from the machine's pnpm store, which
// `make setup` filled), so that a workspace package, a pnpm patch or a source folder missing
// from the image fails here instead of in the first `docker build` after the change. Then it
// checks the final stage: the app copied from that stage, the entrypoint present in it, ffmpeg
// installed (media conversion), pnpm at package.json's packageManager version, Node at the
// major version the tests run on (scripts/setup.sh's NODE_VERSION).
//
//   node scripts/docker-lint.mjs            (part of `make test`)
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const problems = [];
const fail = (msg) => problems.push(msg);

/** Instructions of a Dockerfile: continuation lines joined, comments dropped. */
function instructions(text) {
  const out = [];
  let current = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (!current && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    const m = /^\s*(\w+)\s+(.*)$/.exec(current);
    if (m) out.push({ op: m[1].toUpperCase(), args: m[2].trim() });
    current = "";
  }
  return out;
}

/** Stages in order: {name, base, steps}. */
function stages(list) {
  const out = [];
  for (const ins of list) {
    if (ins.op === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      out.push({ base: m?.[1] ?? ins.args, name: m?.[2] ?? String(out.length), steps: [] });
    } else if (out.length > 0) out[out.length - 1].steps.push(ins);
  }
  return out;
}

/** .dockerignore's patterns (the forms this repository uses: `name`, `dir/name`, `**\/name`). */
function ignoredBy(patterns) {
  return (rel) =>
    patterns.some((p) => {
      if (p.startsWith("**/")) return rel.split("/").includes(p.slice(3));
      return rel === p || rel.startsWith(`${p}/`);
    });
}

const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const ignore = existsSync(join(ROOT, ".dockerignore"))
  ? readFileSync(join(ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"))
  : [];
const isIgnored = ignoredBy(ignore);
for (const must of ["node_modules", ".local", ".git"]) {
  if (!isIgnored(`services/x/${must}`) && !isIgnored(must)) fail(`.dockerignore does not exclude ${must}`);
}

const all = stages(instructions(dockerfile));
const final = all.at(-1);
const depsName = /--from=(\S+)/.exec(
  final?.steps.find((s) => s.op === "COPY" && s.args.includes("--from="))?.args ?? "",
)?.[1];
const deps = all.find((s) => s.name === depsName);
if (!final || !deps) {
  console.error("docker-lint: expected a final stage that copies the app from a dependency stage (COPY --from=…)");
  process.exit(1);
}

// Replay the dependency stage.
const context = mkdtempSync(join(tmpdir(), "docker-lint-"));
const cleanup = () => rmSync(context, { recursive: true, force: true });
process.on("exit", cleanup);
let workdir = "/";
const inImage = (p) => join(context, resolve(workdir, p));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const pnpmVersion = String(pkg.packageManager ?? "").replace(/^pnpm@/, "");
let installed = false;

for (const step of deps.steps) {
  if (step.op === "WORKDIR") {
    workdir = resolve(workdir, step.args);
    mkdirSync(inImage("."), { recursive: true });
  } else if (step.op === "COPY") {
    const parts = step.args.split(/\s+/).filter((a) => !a.startsWith("--"));
    const dest = parts.pop();
    for (const src of parts) {
      const from = join(ROOT, src);
      if (!existsSync(from)) {
        fail(`COPY ${src}: no such path in the repository`);
        continue;
      }
      const to = statSync(from).isDirectory()
        ? inImage(dest)
        : dest.endsWith("/") || parts.length > 1
          ? join(inImage(dest), basename(src))
          : inImage(dest);
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true, filter: (f) => !isIgnored(relative(ROOT, f)) });
    }
  } else if (step.op === "RUN") {
    const npmPnpm = /npm install -g pnpm@(\S+)/.exec(step.args);
    if (npmPnpm && npmPnpm[1] !== pnpmVersion)
      fail(`the image installs pnpm ${npmPnpm[1]}, package.json's packageManager is pnpm ${pnpmVersion}`);
    if (!/^pnpm\s/.test(step.args)) continue;
    if (/^pnpm install/.test(step.args)) {
      checkBeforeInstall();
      installed = true;
    }
    // The machine's pnpm stands in for the image's (the version is checked above).
    const r = spawnSync("bash", ["-c", step.args], { cwd: inImage("."), encoding: "utf8" });
    if (r.status !== 0) fail(`RUN ${step.args} failed in the replayed stage:\n${(r.stderr || r.stdout).trim()}`);
  }
}
if (!installed) fail(`stage ${deps.name} runs no \`pnpm install\``);

/** What `pnpm install --frozen-lockfile` needs: every workspace package's manifest and every patch. */
function checkBeforeInstall() {
  const workspace = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8");
  // The `packages:` list (entries `- dir` or `- dir/*`), up to the next top-level key.
  const block = /^packages:\n((?:[ \t]+.*\n?)*)/m.exec(workspace)?.[1] ?? "";
  const globs = [...block.matchAll(/^\s+-\s+["']?([^"'\n]+?)["']?\s*$/gm)].map((m) => m[1]);
  for (const g of globs) {
    const dirs = g.endsWith("/*")
      ? readdirSync(join(ROOT, g.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${g.slice(0, -2)}/${d.name}`)
      : [g];
    for (const d of dirs) {
      if (!existsSync(join(ROOT, d, "package.json"))) continue;
      if (!existsSync(join(inImage("."), d, "package.json")))
        fail(`${d}/package.json is not in the image when pnpm install runs`);
    }
  }
  for (const m of workspace.matchAll(/:\s*(patches\/\S+\.patch)/g)) {
    if (!existsSync(join(inImage("."), m[1]))) fail(`${m[1]} is not in the image when pnpm install runs`);
  }
}

// The final stage: the app copied from the dependency stage, plus what it copies itself.
const appDir = workdir;
const copiesApp = final.steps.some(
  (s) => s.op === "COPY" && new RegExp(`--from=${deps.name}\\s+${appDir}\\s`).test(`${s.args} `),
);
if (!copiesApp) fail(`the final stage does not copy ${appDir} from stage ${deps.name}`);
const ownCopies = final.steps
  .filter((s) => s.op === "COPY" && !s.args.includes("--from="))
  .flatMap((s) => s.args.split(/\s+/).slice(0, -1));
const inFinal = (p) => existsSync(join(inImage("."), p)) || ownCopies.some((c) => p === c || p.startsWith(`${c}/`));

// Sources the app loads at run time: every service and the workflows the worker bundles.
for (const dir of ["services/main/src", "services/worker/src", "workflows/src"]) {
  if (!inFinal(dir)) fail(`${dir} is not in the image`);
}
const entry = final.steps.find((s) => s.op === "ENTRYPOINT");
if (!entry) fail("no ENTRYPOINT");
else {
  for (const p of JSON.parse(entry.args)) {
    if (!inFinal(p)) fail(`ENTRYPOINT names ${p}, which is not in the image`);
  }
}
// The image runs the Node the tests run on (scripts/setup.sh installs it for every make target).
const setupNode = /^NODE_VERSION=(\d+)\./m.exec(readFileSync(join(ROOT, "scripts", "setup.sh"), "utf8"))?.[1];
for (const stage of all) {
  const m = /^node:(\d+)/.exec(stage.base);
  if (m && m[1] !== setupNode)
    fail(`stage ${stage.name} is FROM ${stage.base}, the tests run on Node ${setupNode} (scripts/setup.sh)`);
}
if (!final.steps.some((s) => s.op === "RUN" && /apt-get install[^&]*\bffmpeg\b/.test(s.args)))
  fail("the final stage does not install ffmpeg (voice and video conversion)");

if (problems.length > 0) {
  console.error(`docker-lint: ${problems.length} problem(s) in the Dockerfile:`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`docker-lint: Dockerfile ok (stage ${deps.name} replayed with pnpm ${pnpmVersion}, ${final.base})`);
