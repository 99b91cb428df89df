// pnpm bench roles — what each role's process uses, for the Helm chart's resource requests and
// limits (charts/gateway/README.md "Resources"): every role in its own process, as the chart
// runs them (gateway, session pod, worker; simnet plays the network), on the local stack.
//
// 1. Idle: all processes up, nothing to do (no instance), settled BENCH_SETTLE seconds; then VmRSS
//    and CPU over BENCH_IDLE seconds.
// 2. Load: BENCH_INSTANCES sim instances started and paired (connections held by the pod), each
//    with a webhook for `message` events to a receiver in this process (so the worker delivers
//    every send's events), then immediate sends with autocannon (BENCH_CONNECTIONS connections,
//    BENCH_DURATION s). VmRSS sampled every 250 ms (peak per process) and CPU over the run.
//
// The figures are per process and include tsx's compile cache and V8's heap growth: sizes, not
// just live objects. Environment: BENCH_INSTANCES (200), BENCH_CONNECTIONS (20), BENCH_DURATION
// (20), BENCH_SETTLE (20), BENCH_IDLE (10), BENCH_LOG_LEVEL (warn; output in .local/bench/roles-*/).
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { join } from "node:path";
import {
  cpuMeter,
  freePort,
  intEnv,
  loadTest,
  log,
  onCleanup,
  pool,
  printMachineFacts,
  ROOT,
  rssKiB,
  scanUntilPaired,
  simnetClient,
  sleep,
  spawnService,
  spreadOverConnections,
  startGateway,
  until,
  waitForHttp,
} from "./lib.mjs";

export const description =
  "RSS and CPU of each role in its own process, idle and under a short load (connections, sends, webhook deliveries): the chart's resource figures";

const ENTRY = "services/main/src/main.ts";
const CONTACT = "15550000001";
const mib = (kib) => (kib === undefined ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`);

/** Peak VmRSS of each process while `fn` runs (sampled every 250 ms). */
async function peakRss(procs, fn) {
  const peak = Object.fromEntries(procs.map((p) => [p.name, 0]));
  let running = true;
  const sampler = (async () => {
    while (running) {
      for (const p of procs) peak[p.name] = Math.max(peak[p.name], rssKiB(p.pid) ?? 0);
      await sleep(250);
    }
  })();
  try {
    return { result: await fn(), peak };
  } finally {
    running = false;
    await sampler;
  }
}

export default async function rolesBench() {
  const n = intEnv("BENCH_INSTANCES", 200);
  const connections = intEnv("BENCH_CONNECTIONS", 20);
  const duration = intEnv("BENCH_DURATION", 20);
  const settleS = intEnv("BENCH_SETTLE", 20, { min: 0 });
  const idleS = intEnv("BENCH_IDLE", 10);
  const logLevel = process.env.BENCH_LOG_LEVEL || "warn";
  const logDir = join(ROOT, ".local", "bench", `roles-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  const out = console.log;
  out("bench roles: RSS and CPU per role process, idle and under load");
  printMachineFacts();

  // A webhook receiver: counts deliveries, answers 200 at once.
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      delivered++;
      res.writeHead(200).end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  onCleanup(() => new Promise((r) => receiver.close(r)));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  const simnetPort = await freePort();
  const shared = {
    ENABLE_SIM_PROVIDER: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    SIMNET_URL: `ws://127.0.0.1:${simnetPort}`,
    AUTH_STATE_KEY: randomBytes(32).toString("base64"),
    TEMPORAL_TASK_QUEUE: `bench-roles-${randomBytes(4).toString("hex")}`,
    LOG_LEVEL: logLevel,
    // Every sim instance on the free trial would be capped at 300 messages a day.
    RATE_LIMIT_PER_SECOND: "1000",
    RATE_LIMIT_BURST: "2000",
  };
  const gw = await startGateway({ env: shared, logFile: join(logDir, "gateway.log"), nodeArgs: [] });
  const node = (name, env) =>
    spawnService({
      name,
      command: process.execPath,
      args: ["--import", "tsx", ENTRY],
      env: { ...gw.env, ...env },
      logFile: join(logDir, `${name}.log`),
    });
  const podPort = await freePort();
  const workerPort = await freePort();
  const simnet = node("simnet", { ROLES: "simnet", SIMNET_PORT: String(simnetPort) });
  const pod = node("session", { ROLES: "session", POD_ID: "pod-a", SESSION_PORT: String(podPort) });
  const worker = node("worker", { ROLES: "worker", WORKER_PORT: String(workerPort) });
  await waitForHttp(`http://127.0.0.1:${simnetPort}/healthz`, { service: simnet });
  await waitForHttp(`http://127.0.0.1:${podPort}/healthz`, { service: pod });
  await waitForHttp(`http://127.0.0.1:${workerPort}/readyz`, { service: worker, timeoutMs: 180_000 });
  const roles = [gw.service, pod, worker];
  const procs = [...roles, simnet];

  // --- idle ------------------------------------------------------------------------------------
  log(`idle: settling ${settleS} s, then measuring ${idleS} s`);
  await sleep(settleS * 1000);
  const idleMeter = cpuMeter({ services: procs });
  const idle = await peakRss(procs, () => sleep(idleS * 1000));
  const idleCores = idleMeter.stop();

  // --- setup ------------------------------------------------------------------------------------
  const sim = simnetClient(`http://127.0.0.1:${simnetPort}`, gw.adminToken);
  await sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "Bench Contact" });
  log(`setup: ${n} sim instances, started, paired, each with a webhook`);
  const instances = new Array(n);
  await pool(instances, 16, async (_, i) => {
    const res = await gw.admin("POST", "/v1/admin/instances", {
      name: `roles-${i}`,
      kind: "standard",
      provider: "sim",
      billingStatus: "active",
    });
    if (res.status !== 201) throw new Error(`POST /v1/admin/instances: ${res.status} ${await res.text()}`);
    const body = await res.json();
    instances[i] = { id: body.instance.id, token: body.token, phone: `1555${String(3_000_000 + i)}` };
  });
  const api = (inst, method, path, json) =>
    fetch(`${gw.url}/v1/instances/${inst.id}${path}`, {
      method,
      headers: { "x-instance-token": inst.token, ...(json ? { "content-type": "application/json" } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
  await pool(instances, 20, async (inst) => {
    const hook = await api(inst, "POST", "/webhooks", { url: hookUrl, events: ["*"] });
    if (hook.status !== 201) throw new Error(`webhook ${inst.id}: ${hook.status} ${await hook.text()}`);
    const start = await api(inst, "POST", "/start");
    if (start.status !== 200) throw new Error(`start ${inst.id}: ${start.status}`);
    await scanUntilPaired(sim, inst);
  });
  await until(
    async () => {
      const res = await gw.admin("GET", "/v1/admin/instances?limit=500");
      const page = await res.json();
      return page.data.filter((i) => i.connectionStatus === "WORKING").length === n;
    },
    `${n} instances WORKING`,
    { timeoutMs: 120_000 },
  );
  const connected = Object.fromEntries(procs.map((p) => [p.name, rssKiB(p.pid)]));

  // --- load -------------------------------------------------------------------------------------
  const targets = instances.map((inst) => ({
    method: "POST",
    path: `/v1/instances/${inst.id}/messages/text`,
    headers: { "content-type": "application/json", "x-instance-token": inst.token },
    body: JSON.stringify({ chatId: `${CONTACT}@c.us`, text: "Olá! Medindo os recursos de cada papel." }),
  }));
  log(`load: ${duration} s of immediate sends, ${connections} connections`);
  const deliveredBefore = delivered;
  const loadMeter = cpuMeter({ services: procs });
  const load = await peakRss(procs, () =>
    loadTest({ title: "sends", url: gw.url, connections, duration, ...spreadOverConnections(targets, connections) }),
  );
  const loadCores = loadMeter.stop();
  await sleep(3_000); // deliveries still in flight
  const deliveries = delivered - deliveredBefore;

  out("");
  out(
    `load: ${n} instances connected; ${Math.round(load.result.rps)} sends/s (${load.result.ok} 2xx, ${load.result.non2xx} other), p50 ${load.result.p50?.toFixed(1)} ms, p99 ${load.result.p99?.toFixed(1)} ms; ${deliveries} webhook deliveries`,
  );
  out("");
  out(
    "| process | idle RSS | idle CPU (cores) | RSS with connections | peak RSS under load | CPU under load (cores) |",
  );
  out("|---|---|---|---|---|---|");
  for (const p of procs) {
    out(
      `| ${p.name} | ${mib(idle.peak[p.name])} | ${(idleCores[p.name] ?? 0).toFixed(3)} | ${mib(connected[p.name])} | ${mib(load.peak[p.name])} | ${(loadCores[p.name] ?? 0).toFixed(2)} |`,
    );
  }
  out(
    `| everything else on the machine | | ${(idleCores["everything else"] ?? 0).toFixed(2)} | | | ${(loadCores["everything else"] ?? 0).toFixed(2)} |`,
  );
  return 0;
}
