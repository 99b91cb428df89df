// The chaos bench's steady mixed load: immediate sends (each with its own Idempotency-Key,
// retried as the spec says), queued sends with delays, and inbound messages written by virtual
// contacts on simnet. Everything it did is recorded for the reconciler (reconcile.mjs).
import { randomBytes } from "node:crypto";
import { pool, scanUntilPaired, simnetClient, sleep, until } from "../lib.mjs";
import { instanceApi, withRetries } from "./client.mjs";

/** Instances (paired to their own numbers, each with a webhook to `hookUrl`) and their contacts. */
export async function setup(cluster, { instances: n, contacts: m, hookUrl, log }) {
  const sim = simnetClient(cluster.simnetUrl, cluster.adminToken);
  const admin = (method, path, json) =>
    fetch(cluster.entryUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${cluster.adminToken}`,
        ...(json ? { "content-type": "application/json" } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
    });
  const contacts = Array.from({ length: m }, (_, i) => `1555${String(7_000_000 + i)}`);
  for (const phone of contacts) await sim("POST", "/simnet/phones", { phone, pushName: `Contact ${phone}` });
  const instances = [];
  for (let i = 0; i < n; i++) {
    const res = await admin("POST", "/v1/admin/instances", {
      name: `chaos-${i}`,
      kind: "standard",
      provider: "sim",
      billingStatus: "active",
    });
    if (res.status !== 201) throw new Error(`POST /v1/admin/instances: ${res.status} ${await res.text()}`);
    const body = await res.json();
    instances.push({ id: body.instance.id, token: body.token, phone: `1555${String(6_000_000 + i)}` });
  }
  await pool(instances, 4, async (inst) => {
    const api = instanceApi(cluster.entryUrl, inst);
    const hook = await api("POST", "/webhooks", { json: { url: hookUrl, events: ["*"] } });
    if (hook.status !== 201) throw new Error(`webhook ${inst.id}: ${hook.status} ${await hook.text()}`);
    const q = await api("PATCH", "/queue/settings", { json: { delayMin: 0, delayMax: 1, ttlHours: 1 } });
    if (q.status !== 200) throw new Error(`queue settings ${inst.id}: ${q.status} ${await q.text()}`);
    const start = await api("POST", "/start");
    if (start.status !== 200) throw new Error(`start ${inst.id}: ${start.status} ${await start.text()}`);
    await scanUntilPaired(sim, inst);
  });
  await until(
    async () => {
      const res = await admin("GET", "/v1/admin/instances?limit=500");
      const page = await res.json();
      return page.data.filter((i) => i.connectionStatus === "WORKING").length === n;
    },
    `${n} instances WORKING`,
    { timeoutMs: 120_000 },
  );
  log(`setup: ${n} instances paired and WORKING, ${m} contacts`);
  return { instances, contacts, sim };
}

/**
 * Runs the load for `durationMs`: `rate` operations per second in all (70 % immediate sends,
 * 15 % queued sends, 15 % inbound messages), each operation with its own retries.
 */
export async function runLoad({ cluster, world, durationMs, rate, log, alsoUntil = Promise.resolve() }) {
  const { instances, contacts, sim } = world;
  const record = { sends: [], queued: [], inbound: [] };
  const run = randomBytes(3).toString("hex");
  let seq = 0;
  const inflight = new Set();
  const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];

  const immediate = async () => {
    const inst = pick(instances);
    const contact = pick(contacts);
    const tag = `chaos-${run}-s${seq++}`;
    const key = `idem-${tag}`;
    const api = instanceApi(cluster.entryUrl, inst);
    const r = await withRetries((signal) =>
      api("POST", "/messages/text", {
        json: { chatId: contact, text: tag },
        headers: { "idempotency-key": key },
        signal,
      }),
    );
    record.sends.push({
      instanceId: inst.id,
      contact,
      tag,
      status: r.status,
      code: r.body?.error?.code,
      id: r.body?.id,
      tries: r.tries,
      answers: r.answers,
    });
  };
  const queued = async () => {
    const inst = pick(instances);
    const contact = pick(contacts);
    const tag = `chaos-${run}-q${seq++}`;
    const delayMessage = 1 + Math.floor(Math.random() * 3);
    const api = instanceApi(cluster.entryUrl, inst);
    const r = await withRetries((signal) =>
      api("POST", "/messages/text", {
        json: { chatId: contact, text: tag, delayMessage },
        headers: { "idempotency-key": `idem-${tag}` },
        signal,
      }),
    );
    record.queued.push({
      instanceId: inst.id,
      contact,
      tag,
      delayMessage,
      status: r.status,
      code: r.body?.error?.code,
      queueId: r.body?.id,
      tries: r.tries,
      answers: r.answers,
    });
  };
  const inbound = async () => {
    const inst = pick(instances);
    const contact = pick(contacts);
    const tag = `chaos-${run}-i${seq++}`;
    // The contact's phone is simnet itself: never killed, it answers at once.
    const r = await sim("POST", `/simnet/phones/${contact}/send`, {
      to: inst.phone,
      message: { type: "text", text: tag },
      id: `CHAOS${run}I${seq}`.toUpperCase(),
    });
    record.inbound.push({ instanceId: inst.id, contact, tag, status: r.status, id: r.body?.id });
  };

  // At least `durationMs`, and until the kills are over (`alsoUntil`) plus 5 s of recovery.
  const end = Date.now() + durationMs;
  let killsOver = Number.POSITIVE_INFINITY;
  void alsoUntil.then(() => {
    killsOver = Date.now() + 5_000;
  });
  const interval = 1000 / rate;
  let next = Date.now();
  while (Date.now() < end || Date.now() < killsOver) {
    const roll = Math.random();
    const op = roll < 0.7 ? immediate : roll < 0.85 ? queued : inbound;
    const p = op()
      .catch((err) => log(`load op failed: ${err?.message ?? err}`))
      .finally(() => inflight.delete(p));
    inflight.add(p);
    next += interval;
    await sleep(Math.max(0, next - Date.now()));
  }
  log(`load: waiting for ${inflight.size} operations still retrying`);
  await Promise.all(inflight);
  return record;
}
