// The baseline of bench/webhooks.mjs, in its own process: raw undici POSTs of the same JSON bodies
// to the same receiver, no Redis, no signing, nothing else — what one Node process can push to
// that receiver. Run as `node --import tsx bench/support/webhook-raw-post.mjs` (it builds the
// bodies with the platform's own eventEnvelope).
//
// Same client as the dispatcher: the undici of services/platform (an Agent, keep-alive,
// pipelining 1, `request`), CONCURRENCY requests in flight (the dispatcher's
// DISPATCH_CONCURRENCY), the dispatcher's headers (a constant signature of the right length
// instead of an HMAC per request). Each body is a fresh envelope (new id, `timestamp` = now) of
// the bench's instances, stringified per request as the dispatcher does.
//
// Environment: TARGET_URL, COUNT, CONCURRENCY, WARMUP (requests before the measured COUNT),
// INSTANCES (JSON array of instance ids), SECRETS (JSON {instanceId: secret}: when the receiver
// verifies signatures, each body is signed like the dispatcher signs it). Prints one JSON line
// with the result.
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventEnvelope } from "../../services/platform/src/events/bus.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { Agent, request } = createRequire(join(ROOT, "services", "platform", "package.json"))("undici");

const url = process.env.TARGET_URL;
const count = Number(process.env.COUNT);
const concurrency = Number(process.env.CONCURRENCY);
const warmup = Number(process.env.WARMUP ?? 0);
const instanceIds = JSON.parse(process.env.INSTANCES ?? '["i_bench"]');
const secrets = process.env.SECRETS ? JSON.parse(process.env.SECRETS) : undefined;
const sign = secrets ? (await import("../../services/webhook-verify/src/index.ts")).sign : undefined;

const sources = instanceIds.map((id, i) => ({
  id,
  provider: "baileys",
  phone: `5511${String(900000000 + i)}`,
  pushName: `Bench ${i}`,
}));
const signature = `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`;
const dispatcher = new Agent();

let failures = 0;
async function post(k) {
  const env = eventEnvelope(sources[k % sources.length], "session.status", {
    status: "WORKING",
    previousStatus: "STARTING",
    reason: null,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const body = JSON.stringify(env);
  const res = await request(url, {
    dispatcher,
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "MessagingGateway-Webhooks/1",
      "x-service-event": env.event,
      "x-service-event-id": env.id,
      "x-service-delivery": `dlv_${env.id.slice(4)}`,
      "x-service-signature": sign ? sign(secrets[env.instanceId], body) : signature,
    },
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode > 299) failures++;
}

async function run(total) {
  let next = 0;
  const lane = async () => {
    while (next < total) await post(next++);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  return performance.now() - t0;
}

if (warmup > 0) await run(warmup);
const warmFailures = failures;
failures = 0;
// Markers for the bench process, which measures the receiver's CPU between them.
process.stdout.write("@measuring\n");
const startUs = Number(process.hrtime.bigint() / 1000n);
const cpu0 = process.cpuUsage();
const ms = await run(count);
const cpu = process.cpuUsage(cpu0);
process.stdout.write("@done\n");
await dispatcher.close();
process.stdout.write(
  `${JSON.stringify({
    count,
    warmup,
    concurrency,
    ms,
    rps: (count * 1000) / ms,
    failures,
    warmFailures,
    cpuCores: (cpu.user + cpu.system) / 1000 / ms,
    startUs,
  })}\n`,
);
