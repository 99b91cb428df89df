// Instances of a local cluster through its entry (the admin API, as a client would), paired on
// simnet by scripts/sim-pair.mjs (a virtual phone scans the instance's QR), and their lease owners
// read from the cluster's Redis.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "../stack-lib.mjs";
import { sleep } from "./supervisor.mjs";

/** ioredis, as the services resolve it (services/platform's dependency). */
export const Redis = createRequire(join(ROOT, "services", "platform", "package.json"))("ioredis").Redis;

async function call(cluster, method, path, { token, body } = {}) {
  const headers = token ? { "x-instance-token": token } : { authorization: `Bearer ${cluster.adminToken}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${cluster.entryUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function statusOf(cluster, inst) {
  const { instance } = await call(cluster, "GET", `/v1/instances/${inst.id}`, { token: inst.token });
  return instance.connectionStatus;
}

async function until(what, fn, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

function simPair(cluster, instanceId, phone) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "scripts", "sim-pair.mjs"), instanceId, phone], {
      env: { ...process.env, SIMNET_URL: cluster.simnetUrl, ADMIN_TOKEN: cluster.adminToken },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`sim-pair ${instanceId}: ${out.trim()}`))));
  });
}

/**
 * A standard sim instance created through the entry, started, paired with `phone` on simnet and
 * WORKING. Answers { id, token, phone }.
 */
export async function createPairedInstance(cluster, { name = "demo", phone = "5511999990000" } = {}) {
  const { instance, token } = await call(cluster, "POST", "/v1/admin/instances", {
    body: { name, kind: "standard", provider: "sim" },
  });
  const inst = { id: instance.id, token, phone };
  await call(cluster, "POST", `/v1/instances/${inst.id}/start`, { token });
  await until(`${inst.id} to show a QR`, async () => (await statusOf(cluster, inst)) === "SCAN_QR_CODE");
  await simPair(cluster, inst.id, phone);
  await until(`${inst.id} to be WORKING`, async () => (await statusOf(cluster, inst)) === "WORKING");
  return inst;
}

/** Every instance id the admin API lists. */
export async function listInstanceIds(cluster) {
  const ids = [];
  let cursor = null;
  do {
    const q = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
    const page = await call(cluster, "GET", `/v1/admin/instances${q}`);
    for (const i of page.data) ids.push(i.id);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** POD_ID holding each instance's lease (null: no owner), read in one MGET. */
export async function leaseOwners(redis, prefix, ids) {
  if (ids.length === 0) return new Map();
  const values = await redis.mget(ids.map((id) => `${prefix}lease:${id}`));
  return new Map(ids.map((id, i) => [id, values[i] ? values[i].split("|")[0] : null]));
}
