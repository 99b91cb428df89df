// Reads a V8 .cpuprofile (node --cpu-prof) and summarises where the self time went:
// by function and by package/module, optionally only inside a time window (CLOCK_MONOTONIC
// microseconds, the clock of both V8's profile timestamps and process.hrtime, so that a bench can
// keep only its measured run and leave out start-up and set-up).
// Also runnable: node bench/support/cpuprofile.mjs FILE [top]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Profiles in `dir`, largest first (with tsx, the small one is the tsx launcher itself). */
export function newestProfiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
}

function where(url) {
  if (!url) return "(native/V8)";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = path.slice(nm + "/node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.startsWith("node:")) return path;
  const svc = /\/services\/([^/]+)\/src\/(.*)$/.exec(path);
  if (svc) return `@gw/${svc[1]} ${svc[2]}`;
  return path;
}

/** `window`: {startUs, endUs} on CLOCK_MONOTONIC (process.hrtime.bigint() / 1000n). */
export function hotSpots(file, { top = 20, window } = {}) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const tally = (win) => {
    const self = new Map();
    let total = 0;
    let ts = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      const dt = p.timeDeltas[i] ?? 0;
      ts += dt;
      if (win && (ts < win.startUs || ts > win.endUs)) continue;
      total += dt;
      self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
    }
    return { self, total };
  };
  let { self, total } = tally(window);
  let scope = window ? "the measured run only" : "the whole process life";
  if (window && total === 0) {
    ({ self, total } = tally(undefined));
    scope = "the whole process life (no sample fell inside the measured run's window)";
  }
  const fns = new Map();
  const mods = new Map();
  let idle = 0;
  for (const [id, t] of self) {
    const cf = byId.get(id).callFrame;
    const name = cf.functionName || "(anonymous)";
    if (name === "(idle)") idle += t;
    const key = `${name}  ${where(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ""}`;
    fns.set(key, (fns.get(key) ?? 0) + t);
    const mod = ["(idle)", "(garbage collector)", "(program)"].includes(name) ? name : where(cf.url);
    mods.set(mod, (mods.get(mod) ?? 0) + t);
  }
  const busy = total - idle;
  const pct = (t, of) => `${((100 * t) / of).toFixed(1).padStart(5)}%`;
  const lines = [
    `profile of ${scope}: ${(total / 1e6).toFixed(1)}s, idle ${pct(idle, total)}; shares below are of the busy time (${(busy / 1e6).toFixed(1)}s)`,
    "self time by package/module:",
  ];
  for (const [k, t] of [...mods]
    .filter(([k]) => k !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)) {
    lines.push(`  ${pct(t, busy)}  ${k}`);
  }
  lines.push(`self time by function (top ${top}):`);
  for (const [k, t] of [...fns]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    lines.push(`  ${pct(t, busy)}  ${k}`);
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(hotSpots(process.argv[2], { top: Number(process.argv[3] ?? 30) }));
}
