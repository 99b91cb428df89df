// pnpm bench gateway — authenticated `GET /v1/instances/{id}` on the real gateway process (real
// Redis Stack: token check + rate limit in one Lua call per event-loop turn) against a bare
// Fastify hello-world in its own process, same machine, same autocannon settings.
//
// The two targets are measured in alternating rounds (bare, gateway, bare, gateway, …;
// BENCH_ROUNDS, default 5), and the figure is the median of the rounds' ratios (the pooled ratio
// is printed too): this machine's speed drifts by ±20 % within a minute (bare Fastify alone gave
// 28,000–56,000 req/s in one hour), so a ratio of two runs taken a minute apart measured the
// drift as much as the gateway.
//
// Environment: BENCH_DURATION (s per measured run, default 10), BENCH_ROUNDS (default 5),
// BENCH_CONNECTIONS (default 50), BENCH_WARMUP (s, default 3, before each target's first run),
// BENCH_INSTANCES (override the computed instance count), BENCH_CPU_PROF=1 (run the gateway as
// `node --cpu-prof --import tsx …`, write its V8 CPU profile to .local/bench/profiles and print
// its hot spots for the first round; figures taken under the profiler are not comparable to
// normal runs).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  formatCores,
  intEnv,
  log,
  median,
  printMachineFacts,
  RATE_LIMIT,
  ROOT,
  runCleanups,
  spreadOverConnections,
  stackRedisPid,
  startBareFastify,
  startGateway,
  summaryTable,
  warmAndMeasure,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";

export const description =
  "authenticated GET /v1/instances/{id} vs a bare Fastify hello-world: req/s, p50/p99, ratio (target >= 0.30)";

const TARGET_RATIO = 0.3;
/** Instances are sized so that each sees at most this share of what its bucket can sustain. */
const RATE_HEADROOM = 0.5;

export default async function gatewayBench() {
  const duration = intEnv("BENCH_DURATION", 10);
  const connections = intEnv("BENCH_CONNECTIONS", 50);
  const warmup = intEnv("BENCH_WARMUP", 3, { min: 0 });
  const rounds = intEnv("BENCH_ROUNDS", 5);
  const profile = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
  const settings = { connections, duration, pipelining: 1 };

  console.log("bench gateway: authenticated GET /v1/instances/{id} vs bare Fastify hello-world");
  printMachineFacts();
  console.log(
    `autocannon: ${connections} connections, pipelining 1, warm-up ${warmup}s then ${rounds} rounds of ${duration}s per target, alternating`,
  );
  console.log("gateway: LOG_LEVEL=warn, NODE_ENV=production (request logging off, as at a production log level)");
  if (profile) console.log("gateway: under --cpu-prof (BENCH_CPU_PROF=1): figures are NOT comparable to normal runs");

  let gw;
  let spread;
  let profileDir;
  const runs = []; // [{ bare, gateway }] per round
  try {
    // 1. Bare Fastify: its req/s bounds what the gateway can reach, which sizes the instance pool.
    // It gets the gateway's exact request shape (path + x-instance-token header), from a pool of
    // made-up ids, so the load generator does the same work for both targets. It stays up (idle)
    // while the gateway is measured: the rounds alternate.
    const { service: bareSvc, url: bareUrl } = await startBareFastify("bare-fastify.mjs");
    const fakeTargets = Array.from({ length: Math.max(2_000, connections) }, (_, i) => ({
      path: `/v1/instances/i${String(i).padStart(24, "0")}`,
      headers: { "x-instance-token": `gwt_${"x".repeat(40)}${i}` },
    }));
    const measureBare = (title, warm) =>
      warmAndMeasure(
        { title, url: bareUrl, ...settings, ...spreadOverConnections(fakeTargets, connections) },
        { warmup: warm, cpu: { services: [bareSvc] } },
      );
    const firstBare = await measureBare("bare fastify", warmup);

    // 2. The gateway, in its own process.
    if (profile) {
      profileDir = join(ROOT, ".local", "bench", "profiles", new Date().toISOString().replace(/[:.]/g, "-"));
      mkdirSync(profileDir, { recursive: true });
    }
    log("starting the stack (if needed) and the gateway");
    const gwEnv = process.env.BENCH_GATEWAY_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL } : {};
    const extraArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : [];
    gw = await startGateway(
      profile
        ? { env: gwEnv, nodeArgs: [...extraArgs, "--cpu-prof", `--cpu-prof-dir=${profileDir}`] }
        : extraArgs.length
          ? { env: gwEnv, nodeArgs: extraArgs }
          : { env: gwEnv },
    );

    // Round-robin over N instances gives each an even R/N req/s. A bucket that starts full
    // (burst B) and refills at r/s admits any steady rate up to r + B/W over a window of W s
    // (warm-up + measured run; between two gateway runs the bare run lets every bucket refill).
    // R is bounded by the bare server's req/s; keep R/N at half that.
    const windowS = warmup + duration;
    const sustainable = RATE_LIMIT.perSecond + RATE_LIMIT.burst / windowS;
    const computed = Math.ceil(firstBare.rps / (sustainable * RATE_HEADROOM));
    const n = Math.max(connections, intEnv("BENCH_INSTANCES", Math.min(20_000, Math.max(100, computed))));
    const t0 = Date.now();
    log(`creating ${n} instances through POST /v1/admin/instances`);
    const instances = await gw.createInstances(n);
    log(`created ${n} instances in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    spread = { n, expectedMax: firstBare.rps / n, sustainable, windowS };

    const targets = instances.map((i) => ({
      path: `/v1/instances/${i.id}`,
      headers: { "x-instance-token": i.token },
    }));
    const measureGateway = (title, warm) =>
      warmAndMeasure(
        { title, url: gw.url, ...settings, ...spreadOverConnections(targets, connections) },
        { warmup: warm, cpu: { services: [gw.service], pids: { redis: stackRedisPid() } } },
      );
    runs.push({ bare: firstBare, gateway: await measureGateway("gateway", warmup) });
    for (let r = 2; r <= rounds; r++) {
      const bare = await measureBare(`bare fastify #${r}`, 0);
      runs.push({ bare, gateway: await measureGateway(`gateway #${r}`, 0) });
    }
    const logged = gw.service.lines;
    const exit = await gw.stop();
    if (logged > 0) log(`gateway wrote ${logged} log line(s) at warn or above; last ones:\n${gw.service.tail()}`);
    if (exit?.code !== 0) log(`gateway exited with code ${exit?.code} signal ${exit?.signal}`);
  } finally {
    await runCleanups(); // stops whatever still runs, deletes the bench's Redis keys
  }

  const ratios = runs.map((r) => r.gateway.rps / r.bare.rps);
  const out = console.log;
  const first = runs[0].gateway;
  out("");
  out(
    `load spread: ${spread.n} instances (x-instance-token), each connection cycling its own ` +
      `${Math.floor(spread.n / connections)}; expected max ${spread.expectedMax.toFixed(1)} req/s per instance ` +
      `(bare req/s / N), measured ${(first.rps / spread.n).toFixed(1)} (first round)`,
  );
  out(
    `  rate limit ${RATE_LIMIT.perSecond}/s, burst ${RATE_LIMIT.burst} per instance: up to ` +
      `${spread.sustainable.toFixed(1)} req/s per instance pass over the ${spread.windowS}s warm-up + run`,
  );
  for (const { bare, gateway } of runs) {
    for (const r of [gateway, bare]) {
      if (!r.cores) continue;
      out(`cpu cores used, ${r.title} run: ${formatCores(r.cores)}`);
      if ((r.cores["everything else"] ?? 0) > 0.25) {
        out(
          `  WARNING: other work on this machine used ${r.cores["everything else"].toFixed(2)} cores: figures are skewed`,
        );
      }
    }
  }
  out("latency: 2xx responses only, from each response's own timing");
  out("");
  out(summaryTable(runs.flatMap((r) => [r.gateway, r.bare])));
  out("");

  let code = 0;
  for (const r of runs.flatMap((x) => [x.gateway, x.bare])) {
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
      const codes = Object.entries(r.statusCodeStats)
        .map(([status, s]) => `${status}: ${s.count}`)
        .join(", ");
      const why = r.statusCodeStats["429"] ? "the rate limit interfered" : "errors interfered";
      out(`INVALID ${r.title}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts (${codes}): ${why}`);
      code = 1;
    }
  }
  if (code === 0) out("non2xx in the measured runs: 0 (gateway), 0 (bare): the rate limit never refused a request");
  const ratio = median(ratios);
  const pooled = runs.reduce((a, r) => a + r.gateway.rps, 0) / runs.reduce((a, r) => a + r.bare.rps, 0);
  out(
    `ratio per round: ${ratios.map((x) => x.toFixed(2)).join(", ")}; pooled (sum of req/s over sum): ${pooled.toFixed(2)}`,
  );
  out(
    `ratio gateway/bare: ${ratio.toFixed(2)} (median of ${runs.length} rounds; target >= ${TARGET_RATIO.toFixed(2)})` +
      (ratio >= TARGET_RATIO ? "" : "  BELOW TARGET"),
  );

  if (profileDir) {
    const [file] = newestProfiles(profileDir);
    if (file) {
      console.log(`\ngateway CPU profile: ${file}`);
      console.log(hotSpots(file, { top: 25, window: runs[0].gateway.window }));
    } else {
      console.log(`\nno CPU profile was written to ${profileDir}`);
    }
  }
  return code;
}
