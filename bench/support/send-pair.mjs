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
//
// Printed: per run its median send/skeleton and CPU per 2xx send answer (µs: all processes, and
// gateway + pod, + simnet); per pair B/A of each; then per side the range and median, and the
// median of the pairs' B/A. Every run's full output is kept under .local/bench/pair-<time>/.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const runs = Number(process.env.PAIR_RUNS ?? 2);
const [argA, argB = "."] = process.argv.slice(2);
if (!argA) {
  console.error("usage: node bench/support/send-pair.mjs <revision|dir> [<revision|dir>]  (PAIR_RUNS, PAIR_ENV_A/B)");
  process.exit(2);
}
const outDir = join(ROOT, ".local", "bench", `pair-${new Date().toISOString().replace(/[:.]/g, "-")}`);
mkdirSync(outDir, { recursive: true });

function git(...args) {
  const r = spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The tree a side runs from: a directory as given, or a revision's own worktree. */
function treeOf(arg) {
  if (existsSync(resolve(arg)) && existsSync(join(resolve(arg), "bench", "send.mjs"))) {
    return { tree: resolve(arg), label: arg === "." ? "working tree" : arg };
  }
  const sha = git("rev-parse", "--verify", `${arg}^{commit}`);
  const tree = join(ROOT, ".local", "pair", sha.slice(0, 12));
  if (!existsSync(join(tree, "bench", "send.mjs"))) {
    git("worktree", "add", "--detach", tree, sha);
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

const sides = {
  A: { ...treeOf(argA), env: envWords(process.env.PAIR_ENV_A) },
  B: { ...treeOf(argB), env: envWords(process.env.PAIR_ENV_B) },
};

/** The figures of one `bench/send.mjs` output. */
function parse(text) {
  const skel = /ratio send\/skeleton: ([\d., ]+), median ([\d.]+)/.exec(text);
  const perAnswer = [...text.matchAll(/cpu per 2xx answer, send \([^)]*\)[^:]*: (\d+) µs \(([^)]*)\)/g)].map((m) => {
    const parts = Object.fromEntries(
      m[2].split(", ").map((p) => {
        const i = p.lastIndexOf(" ");
        return [p.slice(0, i), Number(p.slice(i + 1))];
      }),
    );
    return { total: Number(m[1]), gwPod: (parts.gateway ?? 0) + (parts.pod ?? 0), simnet: parts.simnet ?? 0 };
  });
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
  };
  return {
    ofSkeleton: skel ? Number(skel[2]) : NaN,
    rounds: skel ? skel[1].split(",").map(Number) : [],
    total: med(perAnswer.map((x) => x.total)),
    gwPod: med(perAnswer.map((x) => x.gwPod)),
    gwPodSim: med(perAnswer.map((x) => x.gwPod + x.simnet)),
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
  `CPU per send ${fmt(r.total, 0)} µs, gateway+pod ${fmt(r.gwPod, 0)}, +simnet ${fmt(r.gwPodSim, 0)}` +
  `${r.otherCores.length ? `; other work ${r.otherCores.map((x) => x.toFixed(2)).join("/")} cores` : ""}${r.invalid ? " INVALID" : ""}`;

console.log(`send-pair: A = ${sides.A.label}, B = ${sides.B.label}; ${runs} runs each, output in ${outDir}`);
const results = [];
const pairs = [];
for (let n = 1; n <= runs; n++) {
  const order = n % 2 ? ["A", "B"] : ["B", "A"];
  const got = {};
  for (const side of order) {
    const r = await runOnce(side, n);
    results.push(r);
    got[side] = r;
    console.log(line(r));
  }
  const pair = {
    ofSkeleton: got.B.ofSkeleton / got.A.ofSkeleton,
    total: got.B.total / got.A.total,
    gwPod: got.B.gwPod / got.A.gwPod,
    gwPodSim: got.B.gwPodSim / got.A.gwPodSim,
  };
  pairs.push(pair);
  console.log(
    `  pair ${n} B/A: send/skeleton ×${fmt(pair.ofSkeleton)}, CPU per send ×${fmt(pair.total)}, ` +
      `gateway+pod ×${fmt(pair.gwPod)}, +simnet ×${fmt(pair.gwPodSim)}`,
  );
}
const med = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const range = (xs, d) => `${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)} (median ${fmt(med(xs), d)})`;
for (const side of ["A", "B"]) {
  const rs = results.filter((r) => r.side === side);
  console.log(
    `${side} (${sides[side].label}): send/skeleton ${range(
      rs.map((r) => r.ofSkeleton),
      3,
    )}; CPU per send ${range(
      rs.map((r) => r.total),
      0,
    )} µs; gateway+pod ${range(
      rs.map((r) => r.gwPod),
      0,
    )}; +simnet ${range(
      rs.map((r) => r.gwPodSim),
      0,
    )}`,
  );
}
console.log(
  `B/A, median of ${pairs.length} pairs: send/skeleton ×${fmt(med(pairs.map((p) => p.ofSkeleton)))}, ` +
    `CPU per send ×${fmt(med(pairs.map((p) => p.total)))}, gateway+pod ×${fmt(med(pairs.map((p) => p.gwPod)))}, ` +
    `+simnet ×${fmt(med(pairs.map((p) => p.gwPodSim)))}`,
);
