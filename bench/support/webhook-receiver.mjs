// The webhook receiver of bench/webhooks.mjs, in its own process: node:http on 127.0.0.1:PORT,
// answers every delivery 204 at once and records, per request, the receipt time (ms since the
// epoch, sub-millisecond: performance.timeOrigin + performance.now()), the envelope's `timestamp`
// (event creation, ms) and its `id`.
//
// Signature verification is OFF by default, to keep the receiver cheap (one JSON.parse per
// request, nothing else). With RECEIVER_VERIFY=1 (run it under `node --import tsx`: it imports
// services/webhook-verify) every request is checked with `verify` against the secret of its
// instance (POST /__secrets first) and answered 401 on a mismatch, before the 204.
//
// Control routes (the bench process only): GET /__stats, GET /__dump, POST /__reset,
// POST /__secrets {instanceId: secret}.
import { createServer } from "node:http";

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT is required");
const verifying = process.env.RECEIVER_VERIFY === "1";
const verify = verifying ? (await import("../../services/webhook-verify/src/index.ts")).verify : undefined;
const secrets = new Map();

const origin = performance.timeOrigin;
let ids = [];
let created = new Float64Array(1 << 16);
let received = new Float64Array(1 << 16);
let n = 0;
let invalid = 0; // not JSON, or no id/timestamp
let badSignature = 0;

function record(id, timestamp, at) {
  if (n === created.length) {
    const c = new Float64Array(n * 2);
    c.set(created);
    created = c;
    const r = new Float64Array(n * 2);
    r.set(received);
    received = r;
  }
  ids.push(id);
  created[n] = timestamp;
  received[n] = at;
  n++;
}

function note(raw, at) {
  let env;
  try {
    env = JSON.parse(raw);
  } catch {
    invalid++;
    return undefined;
  }
  if (typeof env?.id !== "string" || typeof env.timestamp !== "number") {
    invalid++;
    return undefined;
  }
  record(env.id, env.timestamp, at);
  return env;
}

function readBody(req, done) {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
}

function json(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function control(req, res) {
  const path = req.url.split("?", 1)[0];
  if (req.method === "GET" && path === "/__stats") return json(res, 200, { count: n, invalid, badSignature });
  if (req.method === "GET" && path === "/__dump") {
    return json(res, 200, {
      ids,
      created: Array.from(created.subarray(0, n)),
      received: Array.from(received.subarray(0, n)),
      invalid,
      badSignature,
    });
  }
  if (req.method === "POST" && path === "/__reset") {
    ids = [];
    n = 0;
    invalid = 0;
    badSignature = 0;
    return json(res, 200, { ok: true });
  }
  if (req.method === "POST" && path === "/__secrets") {
    return readBody(req, (raw) => {
      for (const [id, secret] of Object.entries(JSON.parse(raw))) secrets.set(id, secret);
      json(res, 200, { secrets: secrets.size });
    });
  }
  if (path === "/__healthz") return json(res, 200, { ok: true });
  return json(res, 404, { error: "unknown control route" });
}

const server = createServer((req, res) => {
  if (req.url.startsWith("/__")) return control(req, res);
  readBody(req, (raw) => {
    const at = origin + performance.now();
    if (!verify) {
      res.writeHead(204);
      res.end();
      note(raw, at);
      return;
    }
    let env;
    try {
      env = JSON.parse(raw);
    } catch {
      env = undefined;
    }
    const result = verify({
      header: req.headers["x-service-signature"],
      rawBody: raw,
      secret: secrets.get(env?.instanceId) ?? "whsec_unknown-instance",
    });
    if (!result.ok) {
      badSignature++;
      res.writeHead(401);
      res.end();
      return;
    }
    res.writeHead(204);
    res.end();
    note(raw, at);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, "127.0.0.1");

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
