#!/usr/bin/env node
// `pnpm fuzz` (at length) and `node scripts/fuzz.mjs --quick` (in `make test`): schemathesis
// against the running API's own OpenAPI document (/v1/openapi.json).
//
// One process runs every role on the local stack (ports and Redis prefix of its own), with a
// standard sim instance paired on simnet, an official-gateway instance on the operator mock,
// and a webhook; schemathesis then generates requests for each operation from the document and
// checks every answer: no 5xx, every status documented, every body and content type as
// documented, every request the document forbids refused, and an undeclared method on a known
// path answered 405 with Allow (--quick: those six checks, QUICK_CHECKS; at length: all of
// schemathesis' checks). The instance routes run with the standard instance's token (its id
// pinned as the path's instanceId: pinnedDocument), once more with the official one's, and the
// control plane with the admin token. The gateway's rate limit is raised far above the run's
// pace, so no route hides behind a 429. Routes that would end the run's instance (logout, stop, restart, delete) are left to
// the e2e tests.
//
// Exit 0 only when schemathesis found nothing. `FUZZ_MAX_EXAMPLES`, `FUZZ_MAX_TIME` (seconds)
// and `FUZZ_SEED` override the bounds (--quick pins the seed, QUICK_SEED), `FUZZ_ONLY` (standard,official,admin) picks runs,
// `FUZZ_CHECKS`/`FUZZ_MODE` schemathesis' checks and mode; `--report` writes schemathesis' JUnit
// and NDJSON reports into .local/fuzz/.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./cluster/supervisor.mjs";
import { ROOT, up } from "./stack-lib.mjs";

const quick = process.argv.includes("--quick");
const QUICK_SEED = "20261125";
// `make test`: no 5xx, every status, content type and body as documented, every request the
// document forbids refused (4xx), and an undeclared method on a known path answered 405 with
// Allow. At length: all of schemathesis' checks.
const QUICK_CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
  "negative_data_rejection",
  "unsupported_method",
].join(",");
const seed = process.env.FUZZ_SEED ?? (quick ? QUICK_SEED : undefined);
const report = process.argv.includes("--report");
const log = (msg) => process.stderr.write(`[fuzz] ${msg}\n`);

// --- schemathesis, pinned, installed into its own directory ----------------------------------
// `pip install --target` (as scripts/kube-validate.mjs does): no venv module needed, nothing
// installed into the machine's Python; run as `python3 -c` with that directory on the path.
const TOOL_DIR = join(ROOT, ".local", "tools", "schemathesis");
const REQUIREMENTS = join(ROOT, "scripts", "fuzz-requirements.txt");
const PYTHON = spawnSync("python3", ["--version"]).status === 0 ? "python3" : "python";

function schemathesisCommand() {
  const marker = join(TOOL_DIR, ".installed");
  const want = readFileSync(REQUIREMENTS, "utf8");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== want) {
    log("installing schemathesis (scripts/fuzz-requirements.txt) into .local/tools/schemathesis");
    rmSync(TOOL_DIR, { recursive: true, force: true });
    const args = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", TOOL_DIR];
    const r = spawnSync(PYTHON, [...args, "-r", REQUIREMENTS], { stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) throw new Error(`pip install of schemathesis failed (${r.status})`);
    writeFileSync(marker, want);
  }
  return {
    cmd: PYTHON,
    args: ["-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; schemathesis()"],
    env: { PYTHONPATH: TOOL_DIR },
  };
}

// --- the gateway under test ----------------------------------------------------------------

const ADMIN_TOKEN = `fuzz-admin-${randomBytes(8).toString("hex")}`;

async function startGateway(stack) {
  const [port, internal, session, worker, simnet, cloudmock] = await Promise.all(
    Array.from({ length: 6 }, () => freePort()),
  );
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    ROLES: "gateway,session,worker,simnet,cloudmock",
    PORT: String(port),
    INTERNAL_PORT: String(internal),
    SESSION_PORT: String(session),
    WORKER_PORT: String(worker),
    SIMNET_PORT: String(simnet),
    SIMNET_URL: `ws://127.0.0.1:${simnet}`,
    CLOUDMOCK_PORT: String(cloudmock),
    CLOUDMOCK_WEBHOOK_URL: `${base}/v1/official/webhook`,
    CLOUD_WEBHOOK_VERIFY_TOKEN: "fuzz-verify-token",
    PUBLIC_BASE_URL: base,
    REDIS_URL: stack.redisUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: `fuzz-${randomBytes(4).toString("hex")}`,
    KEY_PREFIX: `fuzz${randomBytes(4).toString("hex")}:`,
    ADMIN_TOKEN,
    INTERNAL_SECRET: randomBytes(24).toString("hex"),
    AUTH_STATE_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    ENABLE_SIM_PROVIDER: "true",
    // The generated requests are many per second: the limit is tested elsewhere.
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
    // The instances are on trial: at length the sends pass the trial's daily cap (300) within
    // minutes, and every send route then answers 429 trial_limit_reached (tested in the e2e tests).
    TRIAL_DAILY_MESSAGES: "100000000",
  };
  const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "services/main/src/main.ts")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    if (i > 600 || child.exitCode !== null) throw new Error(`the gateway did not answer on ${base}/healthz`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    simnet: `http://127.0.0.1:${simnet}`,
    cloudmock: `http://127.0.0.1:${cloudmock}`,
    async stop() {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

async function call(base, method, path, { token, admin, json } = {}) {
  const headers = {};
  if (token) headers["x-instance-token"] = token;
  if (admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

async function waitStatus(gw, inst, want) {
  for (let i = 0; i < 300; i++) {
    const { instance } = await call(gw.base, "GET", `/v1/instances/${inst.id}`, { token: inst.token });
    if (instance.connectionStatus === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`instance ${inst.id} did not reach ${want}`);
}

/** A standard sim instance paired by a virtual phone, with contacts that wrote to it. */
async function standardInstance(gw) {
  const { instance, token } = await call(gw.base, "POST", "/v1/admin/instances", {
    admin: true,
    json: { name: "fuzz", kind: "standard", provider: "sim" },
  });
  const inst = { id: instance.id, token };
  await call(gw.base, "POST", `/v1/instances/${inst.id}/start`, { token });
  await waitStatus(gw, inst, "SCAN_QR_CODE");
  const sim = (method, path, json) => call(gw.simnet, method, path, { admin: true, json });
  const phone = "5511900000001";
  for (let attempt = 0; ; attempt++) {
    const { value } = await sim("GET", `/simnet/instances/${inst.id}/qr`);
    try {
      await sim("POST", `/simnet/phones/${phone}/scan`, { qr: value });
      break;
    } catch (err) {
      if (attempt > 5) throw err;
    }
  }
  await waitStatus(gw, inst, "WORKING");
  for (const contact of ["5511900000002", "5511900000003"]) {
    await sim("POST", "/simnet/phones", { phone: contact }).catch(() => {});
    await sim("POST", `/simnet/phones/${contact}/send`, { to: phone, message: { type: "text", text: "olá" } });
  }
  return inst;
}

/** An official-gateway instance on the operator mock. */
async function officialInstance(gw) {
  const cloud = {
    phoneNumberId: "106540352249999",
    wabaId: "102290129340398",
    accessToken: `EAAG${randomBytes(24).toString("hex")}`,
    appSecret: randomBytes(16).toString("hex"),
    apiBaseUrl: `${gw.cloudmock}/v25.0`,
  };
  await call(gw.cloudmock, "POST", "/mock/numbers", {
    admin: true,
    json: { ...cloud, displayPhoneNumber: "5511988889999", verifiedName: "Loja Fuzz" },
  });
  const { instance, token } = await call(gw.base, "POST", "/v1/admin/instances", {
    admin: true,
    json: { name: "fuzz-official", kind: "official", cloud },
  });
  const inst = { id: instance.id, token };
  await call(gw.base, "POST", `/v1/instances/${inst.id}/start`, { token });
  await waitStatus(gw, inst, "WORKING");
  // A customer wrote: the 24 h window is open, so free-form sends reach the operator.
  await call(gw.cloudmock, "POST", `/mock/numbers/${cloud.phoneNumberId}/inbound`, {
    admin: true,
    json: { from: "5511977776666", type: "text", text: { body: "Oi!" } },
  });
  return inst;
}

// --- the runs ------------------------------------------------------------------------------
const EXCLUDED = [
  // They would end the instance under test for the rest of the run; tests/e2e cover them.
  "^/instances/\\{instanceId\\}/(logout|stop|restart)$",
];

/**
 * The served document with each pinned path parameter's schema narrowed to its one value
 * (`{ instanceId: "i…" }`): every generated request then targets the run's instance, and a
 * negative case for the parameter is another value, which the API must refuse. (Overriding the
 * value in schemathesis' `[parameters]` instead sent the run's id in cases schemathesis took for
 * a malformed one: negative_data_rejection then reported the 200 as a schema violation.)
 */
function pinnedDocument(served, file, pinned) {
  const doc = structuredClone(served);
  const pin = (params) => {
    for (const p of params ?? []) {
      if (p?.in === "path" && Object.hasOwn(pinned, p.name)) p.schema = { type: "string", enum: [pinned[p.name]] };
    }
  };
  for (const item of Object.values(doc.paths ?? {})) {
    pin(item.parameters);
    for (const op of Object.values(item)) if (op && typeof op === "object" && !Array.isArray(op)) pin(op.parameters);
  }
  pin(Object.values(doc.components?.parameters ?? {}));
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

function runSchemathesis(st, gw, name, { headers, include, exclude = [], pinned = {} }) {
  const dir = join(ROOT, ".local", "fuzz");
  mkdirSync(dir, { recursive: true });
  const schema = pinnedDocument(gw.document, join(dir, `${name}.openapi.json`), pinned);
  const config = join(dir, `${name}.toml`);
  const lines = [
    // 501 is the spec's answer of a route the instance's kind or provider lacks (the capability
    // table); it must be documented for the route, which status_code_conformance checks.
    "[checks.not_a_server_error]",
    'expected-statuses = ["2xx", "3xx", "4xx", "501"]',
    // A request the schema allows can still be refused by what no schema can see: the
    // instance's state (not connected, not pairing), ids that name nothing (404), the network's
    // refusals, a file URL that does not resolve, an Idempotency-Key already used with another
    // body, rules across fields (delayMin ≤ delayMax). The spec answers those 404, 409 and 422
    // (validation_error, instance_not_connected, network_rejected, url_not_allowed), with the
    // reason in the body; and 501 for a route the instance's kind lacks. Anything else (a 400 or
    // a 415 for a valid request) is still a failure.
    "[checks.positive_data_acceptance]",
    'expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "501"]',
  ];
  writeFileSync(config, `${lines.join("\n")}\n`);
  const maxExamples = process.env.FUZZ_MAX_EXAMPLES ?? (quick ? "3" : "50");
  const args = [
    "--config-file",
    config,
    "run",
    schema,
    "--url",
    `${gw.base}/v1`,
    "--checks",
    process.env.FUZZ_CHECKS ?? (quick ? QUICK_CHECKS : "all"),
    ...(process.env.FUZZ_MODE ? ["--mode", process.env.FUZZ_MODE] : []),
    "--max-examples",
    maxExamples,
    // One worker: hypothesis' lambda-source cache is not thread-safe on Python 3.11 (runs with
    // two workers ended in "AST constructor recursion depth mismatch" runtime errors).
    "--workers",
    "1",
    "--request-timeout",
    "30",
    "--suppress-health-check",
    "all",
    "--phases",
    // The coverage phase (every boundary of every schema, and every undeclared method of every
    // path) is the only one that sends the undeclared methods unsupported_method checks and most
    // of the schema-violating requests negative_data_rejection checks: in the quick run too.
    quick ? "examples,coverage,fuzzing" : "examples,coverage,fuzzing,stateful",
    "--include-path-regex",
    include,
    ...exclude.flatMap((e) => ["--exclude-path-regex", e]),
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    // In `make test` the run is a regression check, so it is reproducible: a pinned seed (a
    // random one found a new 500 on CI that no local run had met). At length, a fresh seed
    // each run explores; schemathesis prints it so a finding can be replayed.
    ...(seed ? ["--seed", seed] : []),
    ...(process.env.FUZZ_MAX_TIME ? ["--max-time", process.env.FUZZ_MAX_TIME] : []),
    ...(report ? ["--report", "junit,ndjson", "--report-dir", join(dir, name)] : []),
  ];
  log(`${name}: schemathesis ${args.slice(3).join(" ")}`);
  // Its own working directory: schemathesis keeps a cache (.schemathesis/) where it runs.
  // --quick (in `make test`) keeps schemathesis' long report in a file and prints it only when it
  // found something: CI's log then ends with the test count, not with pages of passed checks.
  const r = spawnSync(st.cmd, [...st.args, ...args], {
    cwd: dir,
    stdio: quick ? ["ignore", "pipe", "pipe"] : "inherit",
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ...st.env, NO_COLOR: "1", SCHEMATHESIS_HOOKS: join(ROOT, "scripts", "fuzz-hooks.py") },
  });
  if (quick) {
    const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
    const file = join(dir, `${name}.log`);
    writeFileSync(file, output);
    if (r.status !== 0) process.stdout.write(output);
    const cases = /Test cases:\s*\n\s*(.+)/.exec(output)?.[1]?.trim() ?? "no count printed";
    log(`${name}: ${r.status === 0 ? "ok" : `exit ${r.status}`}, ${cases} (report: ${file})`);
  }
  return r.status === 0;
}

const st = schemathesisCommand();
const stack = await up({ quiet: true });
const gw = await startGateway(stack);
let ok = false;
try {
  const std = await standardInstance(gw);
  const off = await officialInstance(gw);
  // Read once, before the runs: a fetch after minutes of schemathesis' traffic met a stale
  // keep-alive socket ("other side closed").
  gw.document = await call(gw.base, "GET", "/v1/openapi.json");
  const instanceRoutes = "^/instances/\\{instanceId\\}";
  const only = process.env.FUZZ_ONLY?.split(",");
  const run = (name, opts) => (!only || only.includes(name) ? runSchemathesis(st, gw, name, opts) : true);
  const results = [
    run("standard", {
      headers: { "X-Instance-Token": std.token },
      include: instanceRoutes,
      exclude: EXCLUDED,
      pinned: { instanceId: std.id },
    }),
    run("official", {
      headers: { "X-Instance-Token": off.token },
      include: instanceRoutes,
      exclude: EXCLUDED,
      pinned: { instanceId: off.id },
    }),
    run("admin", {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      include: "^/admin/",
    }),
  ];
  ok = results.every(Boolean);
  log(ok ? "no failures" : "schemathesis found failures (above)");
} finally {
  await gw.stop();
}
process.exit(ok ? 0 : 1);
