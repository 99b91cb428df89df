// `pnpm admin <command>`: the operator's CLI over the control plane (/v1/admin).
// GATEWAY_URL (default http://127.0.0.1:8080) and ADMIN_TOKEN come from the environment.
import { parseArgs } from "node:util";

const USAGE = `usage: pnpm admin <command> [options]

  accounts:create --name NAME [--email EMAIL]
  accounts:list
  accounts:get ACCOUNT_ID
  client-token:issue ACCOUNT_ID [--not-required]     new Client-Token, required on all calls unless --not-required
  client-token:require ACCOUNT_ID on|off
  client-token:disable ACCOUNT_ID
  instances:create --name NAME --kind standard|official [--account ID] [--provider baileys|cloud|sim] [--unprovisioned]
  instances:list [--account ID] [--limit N] [--cursor C]
  instances:get INSTANCE_ID
  instances:delete INSTANCE_ID
  instances:rotate-token INSTANCE_ID
  instances:billing INSTANCE_ID trialing|active|past_due|suspended|canceled [--grace-until ISO] [--period-end ISO] [--trial-ends ISO] [--cancel-at-period-end]
  instances:provision INSTANCE_ID on|off

environment: GATEWAY_URL (default http://127.0.0.1:8080), ADMIN_TOKEN (required)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    email: { type: "string" },
    kind: { type: "string" },
    account: { type: "string" },
    provider: { type: "string" },
    unprovisioned: { type: "boolean" },
    "not-required": { type: "boolean" },
    limit: { type: "string" },
    cursor: { type: "string" },
    "grace-until": { type: "string" },
    "period-end": { type: "string" },
    "trial-ends": { type: "string" },
    "cancel-at-period-end": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});

const base = (process.env.GATEWAY_URL ?? "http://127.0.0.1:8080").replace(/\/$/, "");
const adminToken = process.env.ADMIN_TOKEN;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

async function call(method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${base}/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const out = text ? JSON.stringify(JSON.parse(text), null, 2) : "";
  if (!res.ok) fail(`${res.status} ${out}`);
  process.stdout.write(`${out}\n`);
}

const onOff = (v: string | undefined) => (v === "on" ? true : v === "off" ? false : fail("say on or off"));
const [command, a, b] = positionals;
if (values.help || !command) fail(USAGE);
if (!adminToken) fail("ADMIN_TOKEN is not set");
const need = (v: string | undefined, what: string) => v ?? fail(`missing ${what}\n\n${USAGE}`);

switch (command) {
  case "accounts:create":
    await call("POST", "/accounts", { name: need(values.name, "--name"), email: values.email });
    break;
  case "accounts:list":
    await call("GET", "/accounts");
    break;
  case "accounts:get":
    await call("GET", `/accounts/${need(a, "ACCOUNT_ID")}`);
    break;
  case "client-token:issue":
    await call("POST", `/accounts/${need(a, "ACCOUNT_ID")}/client-token`, {
      requireOnAllCalls: !values["not-required"],
    });
    break;
  case "client-token:require":
    await call("PATCH", `/accounts/${need(a, "ACCOUNT_ID")}/client-token`, { requireOnAllCalls: onOff(b) });
    break;
  case "client-token:disable":
    await call("DELETE", `/accounts/${need(a, "ACCOUNT_ID")}/client-token`);
    break;
  case "instances:create":
    await call("POST", "/instances", {
      name: need(values.name, "--name"),
      kind: need(values.kind, "--kind"),
      accountId: values.account,
      provider: values.provider,
      provisioned: !values.unprovisioned,
    });
    break;
  case "instances:list": {
    const q = new URLSearchParams();
    if (values.account) q.set("accountId", values.account);
    if (values.limit) q.set("limit", values.limit);
    if (values.cursor) q.set("cursor", values.cursor);
    await call("GET", `/instances${q.size ? `?${q}` : ""}`);
    break;
  }
  case "instances:get":
    await call("GET", `/instances/${need(a, "INSTANCE_ID")}`);
    break;
  case "instances:delete":
    await call("DELETE", `/instances/${need(a, "INSTANCE_ID")}`);
    break;
  case "instances:rotate-token":
    await call("POST", `/instances/${need(a, "INSTANCE_ID")}/token`);
    break;
  case "instances:billing":
    await call("PUT", `/instances/${need(a, "INSTANCE_ID")}/billing`, {
      billingStatus: need(b, "billing status"),
      graceUntil: values["grace-until"],
      currentPeriodEnd: values["period-end"],
      trialEndsAt: values["trial-ends"],
      cancelAtPeriodEnd: values["cancel-at-period-end"],
    });
    break;
  case "instances:provision":
    await call("PUT", `/instances/${need(a, "INSTANCE_ID")}/provisioning`, { provisioned: onOff(b) });
    break;
  default:
    fail(`unknown command ${command}\n\n${USAGE}`);
}
