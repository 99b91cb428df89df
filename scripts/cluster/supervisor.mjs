// Processes of the local cluster: started detached (own process group, output to
// <dir>/logs/<name>.log) so they outlive the command that started them, found again by pid
// (state.json), checked for readiness the way their probes would, stopped by signal.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A free TCP port on 127.0.0.1 (the OS picks it; it is free again once we close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts `spec` ({ name, cmd, args, env, cwd }) detached; answers its pid. */
export function startProcess(spec, logDir) {
  mkdirSync(logDir, { recursive: true });
  const out = openSync(join(logDir, `${spec.name}.log`), "a");
  const child = spawn(spec.cmd, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ["ignore", out, out],
  });
  closeSync(out);
  child.unref();
  if (!child.pid) throw new Error(`${spec.name}: could not start ${spec.cmd}`);
  return child.pid;
}

export function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A child of this process that exited but is not reaped yet still answers signal 0 (state Z).
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc: trust signal 0
  }
}

/** Sends a signal to the process group the process leads (it was started detached), else to it. */
export function signal(pid, sig) {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    try {
      process.kill(pid, sig);
      return true;
    } catch {
      return false;
    }
  }
}

/** SIGTERM (or `sig`), then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(pid, { sig = "SIGTERM", graceMs = 30_000 } = {}) {
  if (!isAlive(pid)) return;
  signal(pid, sig);
  const until = Date.now() + graceMs;
  while (isAlive(pid)) {
    if (Date.now() > until) {
      signal(pid, "SIGKILL");
      break;
    }
    await sleep(50);
  }
  while (isAlive(pid)) await sleep(50);
}

export async function httpOk(url, timeoutMs = 2000) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** Polls `check` until it answers true; fails early when the process died. */
export async function waitReady(check, { what, pid, timeoutMs = 90_000, logFile }) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    if (pid && !isAlive(pid)) throw new Error(`${what} exited while starting (see ${logFile})`);
    await sleep(100);
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000}s (see ${logFile})`);
}
