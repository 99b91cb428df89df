// pnpm bench storage — what a stored message costs: Redis bytes per message, all structures
// together, for a text and for a media message; object-store bytes per media message; and the
// media message's Redis bytes before the media store (its bytes as base64 in the kept record), all
// in one run.
//
// Setup (as `pnpm bench redis-per-send`): a Redis Stack server of its own (the stack's binary and
// modules, an ephemeral port, no persistence), so that every key in it is this run's; one process
// with the gateway, the session role and simnet (ROLES=gateway,session,simnet); the media store
// in an S3 bucket of its own on the stack's S3 server (moto); MESSAGE_RETENTION_DAYS=7 (the read
// model kept as long as the 7-day rule keeps events and kept messages). BENCH_INSTANCES (2) sim
// instances, paired, each with a webhook subscribed to every event (so the dispatch streams hold
// what a deployment with webhooks holds; no worker runs, and a delivered entry stays in its stream
// until the length cap trims it anyway) and a few warm-up sends (the chat exists).
//
// Counts: BENCH_TEXTS (300) text sends, then BENCH_MEDIA (60) image sends of distinct
// BENCH_MEDIA_BYTES (65,536) files, then BENCH_SAME (60) sends of one more file. Each phase waits
// until every send's `delivered` ack is in the instances' event histories, then every key is
// measured (MEMORY USAGE, SAMPLES 0: the whole value) and grouped by family (the key's name
// without its prefix and ids: msg, rmd, recent, events…); the delta over the phase divided by its
// sends is the figure. `used_memory` (INFO) deltas are printed beside it (allocator overhead
// included). "Before": each media record rewritten as it was kept before the media store (the
// file as base64 inside the JSON, no reference), measured under a scratch key, and the difference
// added. Last, every value in Redis (strings, hashes, sets, sorted sets, streams, JSON) is searched
// for bytes of the files sent, raw and base64: the target is none.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBucket, redisPaths, up } from "../scripts/stack-lib.mjs";
import { isHistoryEntry, readHistoryEntry } from "../services/platform/src/events/history-codec.ts";
import {
  freePort,
  instanceApi,
  intEnv,
  log,
  onCleanup,
  pool,
  ROOT,
  requireFrom,
  runCleanups,
  scanUntilPaired,
  simnetClient,
  spawnService,
  startGateway,
  until,
  waitForHttp,
} from "./lib.mjs";

export const description =
  "Redis bytes per stored message (text, media; every structure), object-store bytes per media message, before/after the media store";

const CONTACT = "15550000011";
const TEXT = "Olá! Esta é uma mensagem de teste do benchmark de armazenamento, com um tamanho comum.";
const PNG = Buffer.from("89504e470d0a1a0a", "hex");

export default async function main() {
  const n = intEnv("BENCH_INSTANCES", 2);
  const texts = intEnv("BENCH_TEXTS", 300);
  const medias = intEnv("BENCH_MEDIA", 60);
  const same = intEnv("BENCH_SAME", 60);
  const fileBytes = intEnv("BENCH_MEDIA_BYTES", 65_536);
  const logDir = join(ROOT, ".local", "bench", `storage-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(logDir, { recursive: true });
  const { Redis } = requireFrom("services/platform")("ioredis");
  const S3 = requireFrom("services/platform")("@aws-sdk/client-s3");
  const out = (s = "") => console.log(s);
  let code = 0;
  try {
    // --- a Redis Stack server of our own ----------------------------------------------------------
    const { bin, lib } = redisPaths();
    const redisPort = await freePort();
    const server = spawnService({
      name: "redis",
      command: bin,
      args: [
        ...["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        ...["--protected-mode", "no", "--dir", logDir],
        ...["--loadmodule", join(lib, "redisearch.so"), "--loadmodule", join(lib, "rejson.so")],
      ],
      logFile: join(logDir, "redis.log"),
    });
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const redis = new Redis(redisUrl, {
      connectionName: "bench-storage",
      lazyConnect: true,
      retryStrategy: () => null,
    });
    redis.on("error", () => {});
    await until(
      async () => {
        if (server.exit) throw new Error(`redis-server exited: ${server.tail()}`);
        return redis.connect().then(
          () => true,
          () => false,
        );
      },
      "the private Redis",
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    onCleanup(() => redis.disconnect());

    // --- gateway + session pod + simnet, media in a bucket of the stack's S3 server ---------------
    const [simnetPort, podPort] = [await freePort(), await freePort()];
    const bucket = `bench-storage-${randomBytes(4).toString("hex")}`;
    const { s3Endpoint } = await up({ quiet: true });
    await ensureBucket(s3Endpoint, bucket);
    const s3Env = {
      MEDIA_STORE: "s3",
      S3_ENDPOINT: s3Endpoint,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "bench",
      S3_SECRET_ACCESS_KEY: "bench",
    };
    const gw = await startGateway({
      env: {
        ROLES: "gateway,session,simnet",
        REDIS_URL: redisUrl,
        POD_ID: "pod-storage",
        SESSION_PORT: String(podPort),
        SIMNET_PORT: String(simnetPort),
        SIMNET_URL: `ws://127.0.0.1:${simnetPort}`,
        SIMNET_ACK_DELAY_MS: "50",
        ENABLE_SIM_PROVIDER: "true",
        WEBHOOK_ALLOW_PRIVATE: "true",
        AUTH_STATE_KEY: randomBytes(32).toString("base64"),
        LEASE_TTL_MS: "60000",
        INSTANCE_CACHE_MS: "60000",
        MESSAGE_RETENTION_DAYS: "7",
        RATE_LIMIT_PER_SECOND: "1000000",
        RATE_LIMIT_BURST: "1000000",
        ...s3Env,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
      },
      logFile: join(logDir, "gateway.log"),
    });
    const s3 = new S3.S3Client({
      region: "us-east-1",
      endpoint: s3Env.S3_ENDPOINT,
      forcePathStyle: true,
      credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
    });
    onCleanup(() => s3.destroy());
    await waitForHttp(`http://127.0.0.1:${simnetPort}/healthz`, { service: gw.service });
    const sim = simnetClient(`http://127.0.0.1:${simnetPort}`, gw.adminToken);
    await sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "Storage Contact", autoRead: 0 });
    const api = instanceApi(gw.url);
    const instances = (
      await gw.createInstances(n, {
        concurrency: 4,
        name: "storage",
        provider: "sim",
        body: { billingStatus: "active" },
      })
    ).map((inst, i) => ({ ...inst, phone: `1555${String(4_000_000 + i)}` }));
    await pool(instances, 4, async (inst) => {
      const started = await api(inst, "POST", "/start");
      if (started.status !== 200) throw new Error(`start ${inst.id}: ${started.status}`);
      await scanUntilPaired(sim, inst, { timeoutMs: 60_000 });
      const hook = await api(inst, "POST", "/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] });
      if (hook.status !== 201) throw new Error(`webhook ${inst.id}: ${hook.status} ${JSON.stringify(hook.body)}`);
    });
    log(`${n} instances paired, each with a webhook on every event`);

    // --- sends and their settling -------------------------------------------------------------------
    const histories = instances.map((i) => `${gw.prefix}recent:${i.id}`);
    // The history's entries as it keeps them (services/platform/src/events/history-codec.ts), read back.
    const delivered = async () => {
      let count = 0;
      for (const key of histories) {
        for (const [, fields] of await redis.xrange(key, "-", "+")) {
          const e = readHistoryEntry(fields);
          if (e.kind === "message.ack" && e.envelope.includes('"status":"delivered"')) count++;
        }
      }
      return count;
    };
    let settled = 0;
    const sendAll = async (count, body) => {
      const jobs = Array.from({ length: count }, (_, i) => ({ inst: instances[i % n], i }));
      await pool(jobs, 8, async ({ inst, i }) => {
        const [route, json] = body(i);
        const r = await api(inst, "POST", route, json);
        if (r.status !== 201) throw new Error(`send ${route}: ${r.status} ${JSON.stringify(r.body)}`);
      });
      settled += count;
      await until(async () => (await delivered()) >= settled, `${settled} delivered acks`, {
        timeoutMs: 120_000,
        intervalMs: 250,
      });
    };
    const text = (i) => ["/messages/text", { chatId: `${CONTACT}@c.us`, text: `${TEXT} #${i}` }];
    const image = (file) => [
      "/messages/image",
      { chatId: `${CONTACT}@c.us`, file: { data: file.toString("base64"), mimetype: "image/png" } },
    ];

    // --- measuring --------------------------------------------------------------------------------------
    const snapshot = async () => {
      const keys = new Map();
      let cursor = "0";
      do {
        const [next, batch] = await redis.scan(cursor, "COUNT", 1000);
        cursor = next;
        for (const key of batch) keys.set(key, Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0));
      } while (cursor !== "0");
      const used = Number(/used_memory:(\d+)/.exec(String(await redis.info("memory")))[1]);
      return { keys, used };
    };
    const ids = new Set(instances.map((i) => i.id));
    /** A key's family: its name without the prefix, instance ids, message ids and chat ids. */
    const family = (key) => {
      const parts = key.slice(gw.prefix.length).split(":");
      const kept = [];
      for (const p of parts) {
        if (ids.has(p)) break; // what follows the instance is per message or per chat
        kept.push(p);
      }
      return (kept.join(":") || parts[0]).replace(/:\d+$/, ":<shard>");
    };
    const delta = (before, after, sends) => {
      const fam = new Map();
      for (const [key, bytes] of after.keys) {
        const d = bytes - (before.keys.get(key) ?? 0);
        if (d !== 0) fam.set(family(key), (fam.get(family(key)) ?? 0) + d);
      }
      for (const [key, bytes] of before.keys) {
        if (!after.keys.has(key)) fam.set(family(key), (fam.get(family(key)) ?? 0) - bytes);
      }
      const total = [...fam.values()].reduce((a, b) => a + b, 0);
      return { fam, total: total / sends, used: (after.used - before.used) / sends };
    };
    const objects = async () => {
      let bytes = 0;
      let count = 0;
      let ContinuationToken;
      do {
        const page = await s3.send(new S3.ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
        for (const o of page.Contents ?? []) {
          bytes += o.Size ?? 0;
          count++;
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return { bytes, count };
    };

    // --- the phases ---------------------------------------------------------------------------------------
    await sendAll(3 * n, text); // warm-up: the chats exist
    const s0 = await snapshot();
    await sendAll(texts, text);
    const s1 = await snapshot();
    const o1 = await objects();
    const files = Array.from({ length: medias }, () => Buffer.concat([PNG, randomBytes(fileBytes - PNG.length)]));
    await sendAll(medias, (i) => image(files[i]));
    const s2 = await snapshot();
    const o2 = await objects();
    const one = Buffer.concat([PNG, randomBytes(fileBytes - PNG.length)]);
    await sendAll(same, () => image(one));
    const o3 = await objects();
    const textCost = delta(s0, s1, texts);
    // What one event weighs, by kind: the history's entries of the text phase, as kept (the values;
    // the field, the instance's header, is kept once per stream node) and their envelopes' JSON.
    const kinds = new Map();
    for (const key of histories) {
      for (const [, fields] of await redis.xrange(key, "-", "+")) {
        const e = readHistoryEntry(fields);
        const kept = isHistoryEntry(fields) ? fields.slice(1) : fields;
        const size = kept.reduce((a, f) => a + Buffer.byteLength(f), 0);
        const k = kinds.get(e.kind) ?? { count: 0, bytes: 0, json: 0 };
        kinds.set(e.kind, { count: k.count + 1, bytes: k.bytes + size, json: k.json + Buffer.byteLength(e.envelope) });
      }
    }
    const mediaCost = delta(s1, s2, medias);

    // "Before": the media records as kept before the media store (the base64 inside the JSON).
    const bySha = new Map(files.map((f) => [createHash("sha256").update(f).digest("hex"), f]));
    let grew = 0;
    let rewritten = 0;
    for (const [key] of s2.keys) {
      if (s1.keys.has(key) || family(key) !== "msg") continue;
      const doc = JSON.parse(await redis.get(key));
      const file = doc.media && bySha.get(doc.media.sha256);
      if (!file) continue;
      const { media: _ref, contentHash: _hash, ...old } = doc;
      old.content = { ...old.content, media: { ...old.content.media, data: file.toString("base64") } };
      const scratch = `${gw.prefix}bench:before`;
      await redis.set(scratch, JSON.stringify(old));
      grew += Number(await redis.call("MEMORY", "USAGE", scratch, "SAMPLES", "0")) - s2.keys.get(key);
      await redis.del(scratch);
      rewritten++;
    }
    const beforeMedia = mediaCost.total + (rewritten ? grew / rewritten : 0);

    // No media byte anywhere in Redis: every value searched for bytes of the files sent.
    const needles = [...files.slice(0, 5), one].flatMap((f) => {
      const slice = f.subarray(3000, 3300); // 3-byte aligned: the same text inside the file's base64
      return [slice, Buffer.from(slice.toString("base64"))];
    });
    let holding = 0;
    for (const [key] of s2.keys) {
      const type = await redis.type(key);
      let values = [];
      if (type === "string") values = [await redis.getBuffer(key)];
      else if (type === "hash") values = Object.values(await redis.hgetallBuffer(key));
      else if (type === "stream") {
        // A history entry is searched as stored and as read back (its envelope).
        const rows = await redis.xrangeBuffer(key, "-", "+");
        values = rows.flatMap(([, f]) => {
          const text = f.map((b) => b.toString());
          return isHistoryEntry(text) ? [...f, Buffer.from(readHistoryEntry(text).envelope)] : f;
        });
      } else if (type === "zset") values = await redis.zrangeBuffer(key, 0, -1);
      else if (type === "set") values = await redis.smembersBuffer(key);
      else if (type === "ReJSON-RL") values = [Buffer.from(String(await redis.call("JSON.GET", key)))];
      if (values.some((v) => v && needles.some((nd) => v.includes(nd)))) holding++;
    }

    // --- report ---------------------------------------------------------------------------------------------
    const f0 = (x) => Math.round(x).toLocaleString("en-US");
    out(`Storage per message: ${n} sim instances, one process (gateway + session pod + simnet), a Redis`);
    out(`Stack of its own (MEMORY USAGE of every key, SAMPLES 0), media in an S3 bucket (moto), retention 7 days,`);
    out(
      `a webhook on every event per instance. Text: ${texts} sends; media: ${medias} images of ${f0(fileBytes)} bytes.`,
    );
    out("");
    const families = [...new Set([...textCost.fam.keys(), ...mediaCost.fam.keys()])].sort(
      (a, b) => (textCost.fam.get(b) ?? 0) - (textCost.fam.get(a) ?? 0),
    );
    out(`${"Redis bytes per message, by key family".padEnd(44)}${"text".padStart(10)}${"media".padStart(10)}`);
    for (const f of families) {
      const t = (textCost.fam.get(f) ?? 0) / texts;
      const m = (mediaCost.fam.get(f) ?? 0) / medias;
      if (Math.abs(t) < 0.5 && Math.abs(m) < 0.5) continue;
      out(`  ${f.padEnd(42)}${f0(t).padStart(10)}${f0(m).padStart(10)}`);
    }
    out(
      `  ${"all keys (sum of MEMORY USAGE)".padEnd(42)}${f0(textCost.total).padStart(10)}${f0(mediaCost.total).padStart(10)}`,
    );
    out(`  ${"INFO used_memory delta".padEnd(42)}${f0(textCost.used).padStart(10)}${f0(mediaCost.used).padStart(10)}`);
    out("");
    // The dispatch streams (and the operator's live stream) are capped by entry count, not by time:
    // a copy of each event held until delivered and trimmed, not part of what is kept 7 days.
    const transient = (cost, sends) =>
      [...cost.fam.entries()].filter(([f]) => /^(events:<shard>|all-events)/.test(f)).reduce((a, [, b]) => a + b, 0) /
      sends;
    const kept7 = textCost.total - transient(textCost, texts);
    const verdict = kept7 <= 2048 ? "within" : "over";
    out(
      `text message: ${f0(textCost.total)} bytes of Redis in all; kept 7 days ${f0(kept7)} (target ≤ 2,048: ${verdict}), ` +
        `the rest the dispatch streams' copies (capped at EVENT_STREAM_MAXLEN entries per shard, not by time)`,
    );
    out(
      `media message: ${f0(mediaCost.total)} bytes of Redis after; before the media store ${f0(beforeMedia)} ` +
        `(the ${f0(fileBytes)}-byte file as base64 in the kept record; ${rewritten} records rewritten and measured)`,
    );
    out(
      `object store: ${f0((o2.bytes - o1.bytes) / medias)} bytes per media message (${o2.count - o1.count} objects ` +
        `for ${medias} distinct files); the same file sent ${same} times over ${n} instances: ${o3.count - o2.count} objects (one per instance), ` +
        `${f0((o3.bytes - o2.bytes) / same)} bytes per send`,
    );
    const perKind = [...kinds.entries()]
      .map(([k, v]) => `${k} ${f0(v.bytes / v.count)} (${f0(v.count)}; envelope ${f0(v.json / v.count)})`)
      .join(", ");
    out(`an event in the history, bytes kept per entry by kind (entries; its envelope's JSON): ${perKind}`);
    out(`media bytes in Redis: ${holding} keys hold any (every value searched, raw and base64)`);
    if (holding > 0) code = 1;
  } catch (err) {
    log(err?.stack ?? String(err));
    code = 1;
  } finally {
    await runCleanups();
  }
  return code;
}
