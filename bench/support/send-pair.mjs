#!/usr/bin/env node
// node bench/support/send-pair.mjs <A> [<B>] — a paired A/B of `pnpm bench send` on a shared,
// noisy machine: the two sides alternate in one session (A B B A A B …: a drift of the machine's
// speed that is linear over a pair of runs falls on both sides alike) and each pair is compared on
// its own, so that what other work does to the machine in a given minute cancels out as far as
// it can. A side is a git revision (checked out with `git worktree add --detach` under
// .local/pair/<sha>, then `pnpm install --offline --frozen-lockfile`) or a directory holding a
// checkout (`.` is this one, with its uncommitted changes); B defaults to `.`.
//
// Every run is `node bench/send.mjs` of that side's tree (its own bench, its own services), with
// BENCH_IMMEDIATE_ONLY=1 and BENCH_ROUNDS=2 unless the environment says otherwise, on the same
// stack (STACK_DIR, default this checkout's .local: both sides on the same Redis and Temporal).
// PAIR_RUNS (2): runs per side. PAIR_ENV_A / PAIR_ENV_B: extra `NAME=value` words for one side
// (two configs of one revision: `PAIR_ENV_B="BENCH_NODE_ARGS=--max-semi-space-size=16" … . .`).
// PAIR_KEEP=1 keeps the worktrees it made (removed at the end otherwise).
//
// Printed: per run its median send/skeleton and CPU per 2xx send answer (µs: all processes, and
// gateway + pod, + simnet); per pair B/A of each; then per side the range and median, and the
// median of the pairs' B/A; also a send's CPU over the skeleton's CPU in the same round (the
// machine's load inflates both alike). Every run's full output is kept under
// .local/bench/pair-<time>/ (`--summarize <that dir>` prints the figures again).
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const runs = Number(process.env.PAIR_RUNS ?? 2);
const summarize = process.argv[2] === "--summarize";
const [argA, argB = "."] = process.argv.slice(summarize ? 3 : 2);
if (!argA) {
  console.error(
    "usage: node bench/support/send-pair.mjs <revision|dir> [<revision|dir>]  (PAIR_RUNS, PAIR_ENV_A/B)\n" +
      "       node bench/support/send-pair.mjs --summarize <.local/bench/pair-…>  (the figures of a finished pair run again)",
  );
  process.exit(2);
}
const outDir = summarize
  ? resolve(argA)
  : join(ROOT, ".local", "bench", `pair-${new Date().toISOString().replace(/[:.]/g, "-")}`);
mkdirSync(outDir, { recursive: true });

function git(...args) {
  const r = spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Worktrees this run made: removed at the end (PAIR_KEEP=1 keeps them for the next run). */
const made = [];

/** The tree a side runs from: a directory as given, or a revision's own worktree. */
function treeOf(arg) {
  if (existsSync(resolve(arg)) && existsSync(join(resolve(arg), "bench", "send.mjs"))) {
    return { tree: resolve(arg), label: arg === "." ? "working tree" : arg };
  }
  const sha = git("rev-parse", "--verify", `${arg}^{commit}`);
  const tree = join(ROOT, ".local", "pair", sha.slice(0, 12));
  if (!existsSync(join(tree, "bench", "send.mjs"))) {
    git("worktree", "add", "--detach", tree, sha);
    made.push(tree);
    const r = spawnSync("pnpm", ["install", "--offline", "--frozen-lockfile"], { cwd: tree, stdio: "inherit" });
    if (r.status !== 0) throw new Error(`pnpm install in ${tree} failed`);
  }
  return { tree, label: `${arg} (${sha.slice(0, 8)})` };
}

const envWords = (s) =>
  Object.fromEntries(
    (s ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]),
  );

const sides = summarize
  ? { A: { label: "A" }, B: { label: "B" } }
  : {
      A: { ...treeOf(argA), env: envWords(process.env.PAIR_ENV_A) },
      B: { ...treeOf(argB), env: envWords(process.env.PAIR_ENV_B) },
    };

const med = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** A `cpu per 2xx answer, <title>: N µs (part n, …)` line's total and parts. */
function cpuLines(text, title) {
  const re = new RegExp(`cpu per 2xx answer, ${title}[^:]*: (\\d+) µs \\(([^)]*)\\)`, "g");
  return [...text.matchAll(re)].map((m) => {
    const parts = Object.fromEntries(
      m[2].split(", ").map((p) => {
        const i = p.lastIndexOf(" ");
        return [p.slice(0, i), Number(p.slice(i + 1))];
      }),
    );
    return { total: Number(m[1]), parts };
  });
}

/**
 * The figures of one `bench/send.mjs` output. `ofSkelCpu`: a send's CPU over the skeleton's in
 * the same round (the median of the rounds'): how much more than the architecture's minimum a
 * send costs, a figure that the machine's load inflates on both sides alike.
 */
function parse(text) {
  const skel = /ratio send\/skeleton: ([\d., ]+), median ([\d.]+)/.exec(text);
  const sends = cpuLines(text, "send \\([^)]*\\)");
  const skels = cpuLines(text, "skeleton");
  return {
    ofSkeleton: skel ? Number(skel[2]) : NaN,
    rounds: skel ? skel[1].split(",").map(Number) : [],
    total: med(sends.map((x) => x.total)),
    gwPod: med(sends.map((x) => (x.parts.gateway ?? 0) + (x.parts.pod ?? 0))),
    gwPodSim: med(sends.map((x) => (x.parts.gateway ?? 0) + (x.parts.pod ?? 0) + (x.parts.simnet ?? 0))),
    skelCpu: med(skels.map((x) => x.total)),
    ofSkelCpu: med(sends.map((x, i) => x.total / (skels[i]?.total ?? NaN))),
    invalid: /INVALID/.test(text),
    otherCores: [...text.matchAll(/other work on this machine used ([\d.]+) cores/g)].map((m) => Number(m[1])),
  };
}

function runOnce(side, n) {
  const { tree, env } = sides[side];
  const file = join(outDir, `run-${n}-${side}.txt`);
  const out = createWriteStream(file);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(tree, "scripts", "bench.mjs"), "send"], {
      cwd: tree,
      env: {
        ...process.env,
        BENCH_IMMEDIATE_ONLY: process.env.BENCH_IMMEDIATE_ONLY ?? "1",
        BENCH_ROUNDS: process.env.BENCH_ROUNDS ?? "2",
        STACK_DIR: process.env.STACK_DIR ?? join(ROOT, ".local"),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (d) => {
      text += d;
      out.write(d);
    });
    child.stderr.on("data", (d) => out.write(d));
    child.on("error", fail);
    child.on("close", (code) => {
      out.end();
      if (code !== 0 && !/ratio send\/skeleton/.test(text))
        return fail(new Error(`run ${n} ${side}: exit ${code}, see ${file}`));
      done({ side, n, ...parse(text) });
    });
  });
}

const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");
const line = (r) =>
  `${r.side} #${r.n}: send/skeleton ${fmt(r.ofSkeleton)} (rounds ${r.rounds.map((x) => fmt(x)).join(", ")}), ` +
  `CPU per send ${fmt(r.total, 0)} µs (${fmt(r.ofSkelCpu, 2)}× the skeleton's ${fmt(r.skelCpu, 0)}), ` +
  `gateway+pod ${fmt(r.gwPod, 0)}, +simnet ${fmt(r.gwPodSim, 0)}` +
  `${r.otherCores.length ? `; other work ${r.otherCores.map((x) => x.toFixed(2)).join("/")} cores` : ""}${r.invalid ? " INVALID" : ""}`;
const FIGURES = ["ofSkeleton", "total", "ofSkelCpu", "gwPod", "gwPodSim"];
const ratios = (a, b) => Object.fromEntries(FIGURES.map((f) => [f, b[f] / a[f]]));
const pairLine = (n, p) =>
  `  pair ${n} B/A: send/skeleton ×${fmt(p.ofSkeleton)}, CPU per send ×${fmt(p.total)} ` +
  `(over the skeleton's ×${fmt(p.ofSkelCpu)}), gateway+pod ×${fmt(p.gwPod)}, +simnet ×${fmt(p.gwPodSim)}`;

const results = [];
const pairs = [];
if (summarize) {
  const files = readdirSync(outDir).filter((f) => /^run-\d+-[AB]\.txt$/.test(f));
  for (const f of files.sort()) {
    const [, n, side] = /^run-(\d+)-([AB])/.exec(f);
    results.push({ side, n: Number(n), ...parse(readFileSync(join(outDir, f), "utf8")) });
  }
  for (const r of results) console.log(line(r));
  for (const n of [...new Set(results.map((r) => r.n))]) {
    const a = results.find((r) => r.n === n && r.side === "A");
    const b = results.find((r) => r.n === n && r.side === "B");
    if (!a || !b) continue;
    pairs.push(ratios(a, b));
    console.log(pairLine(n, pairs.at(-1)));
  }
} else {
  console.log(`send-pair: A = ${sides.A.label}, B = ${sides.B.label}; ${runs} runs each, output in ${outDir}`);
  for (let n = 1; n <= runs; n++) {
    const got = {};
    for (const side of n % 2 ? ["A", "B"] : ["B", "A"]) {
      const r = await runOnce(side, n);
      results.push(r);
      got[side] = r;
      console.log(line(r));
    }
    pairs.push(ratios(got.A, got.B));
    console.log(pairLine(n, pairs.at(-1)));
  }
}
const range = (xs, d) => `${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)} (median ${fmt(med(xs), d)})`;
for (const side of ["A", "B"]) {
  const rs = results.filter((r) => r.side === side);
  const of = (f) => rs.map((r) => r[f]);
  console.log(
    `${side} (${sides[side].label}): send/skeleton ${range(of("ofSkeleton"), 3)}; CPU per send ${range(of("total"), 0)} µs, ` +
      `over the skeleton's ${range(of("ofSkelCpu"), 2)}; gateway+pod ${range(of("gwPod"), 0)}; +simnet ${range(of("gwPodSim"), 0)}`,
  );
}
const medOf = (f) => fmt(med(pairs.map((p) => p[f])));
console.log(
  `B/A, median of ${pairs.length} pairs: send/skeleton ×${medOf("ofSkeleton")}, CPU per send ×${medOf("total")} ` +
    `(over the skeleton's ×${medOf("ofSkelCpu")}), gateway+pod ×${medOf("gwPod")}, +simnet ×${medOf("gwPodSim")}`,
);
if (process.env.PAIR_KEEP !== "1") for (const tree of made) git("worktree", "remove", "--force", tree);
