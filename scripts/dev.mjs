#!/usr/bin/env node
// `make dev`: the local stack, every role in one process on its embedded defaults, and a demo
// instance (created once, then reused) whose id, token and the docs URL are printed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, up } from "./stack-lib.mjs";

const log = (msg) => console.log(`[dev] ${msg}`);
const stack = await up();

const port = process.env.PORT ?? "8080";
// Development secrets made once and kept in the ignored .local/ (never used in production).
const secretsFile = join(ROOT, ".local", "dev-secrets.json");
mkdirSync(join(ROOT, ".local"), { recursive: true });
if (!existsSync(secretsFile)) {
  writeFileSync(secretsFile, JSON.stringify({ AUTH_STATE_KEY: randomBytes(32).toString("base64") }, null, 2));
}
const devSecrets = JSON.parse(readFileSync(secretsFile, "utf8"));
if (!devSecrets.WEBHOOK_SECRET_KEY) {
  devSecrets.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
  writeFileSync(secretsFile, JSON.stringify(devSecrets, null, 2));
}
const simnetPort = process.env.SIMNET_PORT ?? "8090";
const cloudmockPort = process.env.CLOUDMOCK_PORT ?? "8091";
const chatwootmockPort = process.env.CHATWOOTMOCK_PORT ?? "8092";
const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? "development",
  ROLES: process.env.ROLES ?? "gateway,session,worker,simnet,cloudmock,chatwootmock",
  AUTH_STATE_KEY: process.env.AUTH_STATE_KEY ?? devSecrets.AUTH_STATE_KEY,
  WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY ?? devSecrets.WEBHOOK_SECRET_KEY,
  // Local receivers (http://127.0.0.1:3000/…) must work in development.
  WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? "true",
  SIMNET_PORT: simnetPort,
  SIMNET_URL: process.env.SIMNET_URL ?? `ws://127.0.0.1:${simnetPort}`,
  CLOUDMOCK_PORT: cloudmockPort,
  // The operator mock delivers its signed webhooks to this gateway (docs/official.md).
  CLOUDMOCK_WEBHOOK_URL: process.env.CLOUDMOCK_WEBHOOK_URL ?? `http://127.0.0.1:${port}/v1/official/webhook`,
  CLOUD_WEBHOOK_VERIFY_TOKEN: process.env.CLOUD_WEBHOOK_VERIFY_TOKEN ?? "dev-verify-token",
  // The Chatwoot mock (docs/chatwootmock.md) with one account, API inbox and agent token made at start.
  CHATWOOTMOCK_PORT: chatwootmockPort,
  CHATWOOTMOCK_TOKEN: process.env.CHATWOOTMOCK_TOKEN ?? "dev-chatwoot-token",
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

/**
 * Starts the demo instance: it reconnects (paired before) or shows a QR on simnet. simnet keeps
 * its accounts in memory, so after a restart it no longer knows the old device: the instance
 * is logged out (FAILED) and one more start shows a new QR.
 */
async function startDemo(demo) {
  const headers = { "x-instance-token": demo.token };
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await fetch(`${base}/v1/instances/${demo.id}/start`, { method: "POST", headers });
    if (!res.ok) throw new Error(`starting the demo instance failed: ${res.status} ${await res.text()}`);
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const { instance } = await (await fetch(`${base}/v1/instances/${demo.id}`, { headers })).json();
      if (instance.connectionStatus === "WORKING" || instance.connectionStatus === "SCAN_QR_CODE") return;
      if (instance.connectionStatus === "FAILED") break;
    }
  }
}

/**
 * The demo official-gateway instance, against the operator mock: the mock keeps its numbers in
 * memory, so the number is registered again on every run with the credentials kept in .local/.
 */
async function demoOfficial() {
  const mock = `http://127.0.0.1:${cloudmockPort}`;
  const file = join(ROOT, ".local", "demo-official.json");
  let saved = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  const cloud = saved?.cloud ?? {
    phoneNumberId: "106540352242922",
    wabaId: "102290129340398",
    accessToken: `EAAG${randomBytes(24).toString("hex")}`,
    appSecret: randomBytes(16).toString("hex"),
    apiBaseUrl: `${mock}/v25.0`,
  };
  const reg = await fetch(`${mock}/mock/numbers`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      phoneNumberId: cloud.phoneNumberId,
      wabaId: cloud.wabaId,
      displayPhoneNumber: "5511988880000",
      verifiedName: "Loja Demo",
      accessToken: cloud.accessToken,
      appSecret: cloud.appSecret,
    }),
  });
  if (reg.status !== 201 && reg.status !== 409)
    throw new Error(`registering the demo number on the mock failed: ${reg.status}`);
  if (saved) {
    const res = await fetch(`${base}/v1/instances/${saved.id}`, { headers: { "x-instance-token": saved.token } });
    if (!res.ok) saved = null;
  }
  if (!saved) {
    const res = await fetch(`${base}/v1/admin/instances`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "demo-official", kind: "official", cloud }),
    });
    if (res.status !== 201)
      throw new Error(`creating the demo official instance failed: ${res.status} ${await res.text()}`);
    const { instance, token } = await res.json();
    saved = { id: instance.id, token, cloud };
    writeFileSync(file, JSON.stringify(saved, null, 2));
  }
  await fetch(`${base}/v1/instances/${saved.id}/start`, {
    method: "POST",
    headers: { "x-instance-token": saved.token },
  });
  return { ...saved, mock };
}

/**
 * The demo instance's help desk (docs/helpdesk.md): a `helpdesk` app on the Chatwoot mock's preset
 * inbox, and that inbox's webhook set to the app's hook (the mock forgets it at every start).
 */
async function demoHelpdesk(demo) {
  const mock = `http://127.0.0.1:${chatwootmockPort}`;
  const headers = { "x-instance-token": demo.token, "content-type": "application/json" };
  const apps = await (await fetch(`${base}/v1/instances/${demo.id}/apps`, { headers })).json();
  let app = apps.find((a) => a.app === "helpdesk");
  if (!app) {
    const res = await fetch(`${base}/v1/instances/${demo.id}/apps`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        app: "helpdesk",
        config: { url: mock, accountId: 1, inboxId: 1, token: env.CHATWOOTMOCK_TOKEN },
      }),
    });
    if (res.status !== 201) throw new Error(`creating the demo help desk failed: ${res.status} ${await res.text()}`);
    app = await res.json();
  }
  const hook = `http://127.0.0.1:${port}${new URL(app.webhookUrl).pathname}`;
  const res = await fetch(`${mock}/_control/inboxes/1`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ webhookUrl: hook }),
  });
  if (!res.ok) throw new Error(`pointing the mock's inbox at the hook failed: ${res.status} ${await res.text()}`);
  return { mock, token: env.CHATWOOTMOCK_TOKEN };
}

try {
  await waitHealthy();
  const demo = await demoInstance();
  await startDemo(demo);
  const official = await demoOfficial();
  const helpdesk = env.ROLES.includes("chatwootmock") ? await demoHelpdesk(demo) : null;
  const simnetUrl = `http://127.0.0.1:${simnetPort}`;
  console.log(`
  Messaging gateway running on ${base}
    API reference     ${base}/docs   (OpenAPI: ${base}/v1/openapi.json)
    Console           ${base}/console   (sign in with the admin token below, or an instance's id and token)
    Temporal UI       ${stack.temporalUi}
    Demo instance     ${demo.id}${demo.reused ? " (reused)" : ""}
    Instance token    ${demo.token}
    Admin token       ${env.ADMIN_TOKEN}

    Simulated network  ${simnetUrl}  (control API: docs/simnet.md)

    Official instance  ${official.id}   (the operator's Cloud API, mocked at ${official.mock}: docs/official.md)
    Its token          ${official.token}
${
  helpdesk
    ? `
    Help desk          Chatwoot mock at ${helpdesk.mock} (docs/helpdesk.md): the demo instance's conversations
                       land in inbox 1 of account 1; see them with
                       curl -s ${helpdesk.mock}/_control/state -H 'Authorization: Bearer ${env.ADMIN_TOKEN}'
`
    : ""
}
  Try: curl -s ${base}/v1/instances/${demo.id} -H 'X-Instance-Token: ${demo.token}'
  Pair the demo instance (once) with a virtual phone on the simulated network:
    SIMNET_URL=${simnetUrl} pnpm sim:pair ${demo.id} 5511999990000
  A customer writes to the official number (then reply within 24 h, or send a template):
    curl -s -X POST ${official.mock}/mock/numbers/${official.cloud.phoneNumberId}/inbound -H 'Authorization: Bearer ${env.ADMIN_TOKEN}' \
      -H 'Content-Type: application/json' -d '{"from":"5511977776666","type":"text","text":{"body":"Oi!"}}'
`);
} catch (err) {
  console.error(`[dev] ${err.message}`);
  child.kill("SIGTERM");
  process.exit(1);
}
