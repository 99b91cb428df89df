// Roles as separate OS processes (services/main/src/main.ts with ROLES), for multi-process tests.
import { type ChildProcess, spawn } from "node:child_process";
import { AUTH_STATE_KEY } from "./cluster.ts";
import { freePort, ROOT, waitFor200 } from "./e2e-helpers.ts";
import { ADMIN_TOKEN, testEnv } from "./gateway.ts";

export interface RoleProcess {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait (graceful). */
  stop(): Promise<void>;
  /** SIGKILL: the process dies on the spot, no cleanup. */
  kill(): Promise<void>;
}

export async function spawnRole(name: string, env: Record<string, string>, port: number): Promise<RoleProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "services/main/src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const collect = (c: Buffer) => {
    out = (out + c.toString()).slice(-200_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const proc: RoleProcess = {
    name,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    async stop() {
      if (!alive()) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (!alive()) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
  await waitFor200(`${proc.url}/healthz`, child, proc.output).catch(async (err) => {
    await proc.kill();
    throw err;
  });
  return proc;
}

/** simnet, a gateway and N session pods, each its own process, sharing one key prefix. */
export async function spawnMultiProcessCluster(sessionPods: string[], overrides: Record<string, string> = {}) {
  const base = testEnv({
    AUTH_STATE_KEY,
    LEASE_TTL_MS: "1500",
    OWNER_WAIT_MS: "1000",
    LOG_LEVEL: "warn",
    ...overrides,
  });
  const simnetPort = await freePort();
  const simnet = await spawnRole(
    "simnet",
    {
      ...base,
      ROLES: "simnet",
      SIMNET_PORT: String(simnetPort),
      SIMNET_QR_INTERVAL_MS: "500",
      SIMNET_QR_LIMIT: "1000",
    },
    simnetPort,
  );
  const simnetWs = `ws://127.0.0.1:${simnetPort}`;
  const [port, internalPort] = [await freePort(), await freePort()];
  const gateway = await spawnRole(
    "gateway",
    { ...base, ROLES: "gateway", PORT: String(port), INTERNAL_PORT: String(internalPort), SIMNET_URL: simnetWs },
    port,
  );
  const spawnPod = async (podId: string) => {
    const sessionPort = await freePort();
    return spawnRole(
      podId,
      { ...base, ROLES: "session", POD_ID: podId, SESSION_PORT: String(sessionPort), SIMNET_URL: simnetWs },
      sessionPort,
    );
  };
  const pods = new Map<string, RoleProcess>();
  for (const podId of sessionPods) pods.set(podId, await spawnPod(podId));

  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const sim = async <T>(method: string, path: string, json?: unknown): Promise<T> => {
    const res = await fetch(simnet.url + path, {
      method,
      headers: { ...bearer, ...(json !== undefined ? { "content-type": "application/json" } : {}) },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
    if (!res.ok) throw new Error(`simnet ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    simnet,
    gateway,
    pods,
    sim,
    spawnPod,
    keyPrefix: base.KEY_PREFIX,
    admin: (method: string, path: string, json?: unknown) =>
      fetch(gateway.url + path, {
        method,
        headers: { ...bearer, ...(json !== undefined ? { "content-type": "application/json" } : {}) },
        body: json !== undefined ? JSON.stringify(json) : undefined,
      }),
    async close() {
      await Promise.allSettled([...pods.values()].map((p) => p.kill()));
      await Promise.allSettled([gateway.stop(), simnet.stop()]);
    },
  };
}
