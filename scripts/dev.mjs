#!/usr/bin/env node
// `make dev`: the local stack, every role in one process on its embedded defaults, and a demo
// instance (created once, then reused) whose id, token and the docs URL are printed.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, up } from "./stack-lib.mjs";

const log = (msg) => console.log(`[dev] ${msg}`);
const stack = await up();

const port = process.env.PORT ?? "8080";
const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? "development",
  ROLES: process.env.ROLES ?? "gateway",
  PORT: port,
  PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`,
  REDIS_URL: process.env.REDIS_URL ?? stack.redisUrl,
  TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? stack.temporalAddress,
  INTERNAL_SECRET: process.env.INTERNAL_SECRET ?? "dev-internal-secret-change-me",
  ENABLE_SIM_PROVIDER: process.env.ENABLE_SIM_PROVIDER ?? "true",
};
if (!process.env.ADMIN_TOKEN) {
  env.ADMIN_TOKEN = "dev-admin-token";
  log("ADMIN_TOKEN is not set: using the development token 'dev-admin-token'");
}
const base = env.PUBLIC_BASE_URL;

const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "services/main/src/main.ts")], {
  cwd: ROOT,
  env,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

async function waitHealthy() {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the gateway did not answer on ${base}/healthz`);
}

/** Reuses the demo instance of an earlier run while its token still opens it. */
async function demoInstance() {
  const file = join(ROOT, ".local", "demo-instance.json");
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8"));
    const res = await fetch(`${base}/v1/instances/${saved.id}`, { headers: { "x-instance-token": saved.token } });
    if (res.ok) return { ...saved, reused: true };
  }
  const res = await fetch(`${base}/v1/admin/instances`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "demo", kind: "standard", provider: "sim" }),
  });
  if (res.status !== 201) throw new Error(`creating the demo instance failed: ${res.status} ${await res.text()}`);
  const { instance, token } = await res.json();
  const saved = { id: instance.id, token };
  writeFileSync(file, JSON.stringify(saved, null, 2));
  return { ...saved, reused: false };
}

try {
  await waitHealthy();
  const demo = await demoInstance();
  console.log(`
  Messaging gateway running on ${base}
    API reference     ${base}/docs   (OpenAPI: ${base}/v1/openapi.json)
    Temporal UI       ${stack.temporalUi}
    Demo instance     ${demo.id}${demo.reused ? " (reused)" : ""}
    Instance token    ${demo.token}
    Admin token       ${env.ADMIN_TOKEN}

  Try: curl -s ${base}/v1/instances/${demo.id} -H 'X-Instance-Token: ${demo.token}'
`);
} catch (err) {
  console.error(`[dev] ${err.message}`);
  child.kill("SIGTERM");
  process.exit(1);
}
