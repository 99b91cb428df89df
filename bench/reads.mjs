// pnpm bench reads — the read model of spec 4.5 at volume, on the local stack's Redis Stack.
//
// 1. Load: BENCH_MESSAGES (default 1,000,000) messages over BENCH_CHATS (1,000) chats of one
//    instance, written straight through the read model's store (services/platform ReadModel:
//    the stored form the session manager writes, pipelined SET PX and the chats'
//    message sets and ack sets (ZADD) in batches), not through the network. Redis memory per
//    stored message: INFO memory `used_memory` before and after (documents + sets; messages have
//    no search index).
// 2. Read: `GET /v1/instances/{id}/chats/{chatId}/messages?limit=50` through a real gateway
//    process with autocannon, spread over every chat: req/s, p50/p99 (target p99 <= 20 ms).
//    The instance's rate limit is raised for the run (the default 20/s per instance would only
//    measure 429s); each answer is checked once beforehand to hold 50 messages.
//
// Environment: BENCH_MESSAGES (1000000), BENCH_CHATS (1000), BENCH_BATCH (messages per pipeline,
// 1000), BENCH_INFLIGHT (pipelines in flight while loading, 4), BENCH_DURATION (s, 10),
// BENCH_CONNECTIONS (10), BENCH_WARMUP (s, 3), BENCH_CPU_PROF=1 (the gateway runs under
// `node --cpu-prof`; its hot spots during the measured run are printed; such figures are not
// comparable to normal runs). Figures are printed; nothing is asserted.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";
import {
  formatCores,
  intEnv,
  log,
  printMachineFacts,
  ROOT,
  requireFrom,
  runCleanups,
  sleep,
  spreadOverConnections,
  stackRedisPid,
  startGateway,
  summaryTable,
  until,
  warmAndMeasure,
} from "./lib.mjs";
import { hotSpots, newestProfiles } from "./support/cpuprofile.mjs";

export const description =
  "1,000,000 messages over 1,000 chats in the read model: GET …/chats/{chatId}/messages?limit=50 p50/p99 (target p99 <= 20 ms), Redis bytes per message";

const TARGET_P99_MS = 20;
const PAGE = 50;

const int = (n) => Math.round(n).toLocaleString("en-US");
const fmt = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : "n/a");

async function usedMemory(redis) {
  const info = await redis.info("memory");
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

export default async function readsBench() {
  const total = intEnv("BENCH_MESSAGES", 1_000_000);
  const chats = intEnv("BENCH_CHATS", 1_000);
  const batch = intEnv("BENCH_BATCH", 1_000);
  const inflight = intEnv("BENCH_INFLIGHT", 4);
  const duration = intEnv("BENCH_DURATION", 10);
  const connections = intEnv("BENCH_CONNECTIONS", 10);
  const warmup = intEnv("BENCH_WARMUP", 3, { min: 0 });
  const profile = ["1", "true", "yes"].includes(process.env.BENCH_CPU_PROF ?? "");
  const profileDir = profile
    ? join(ROOT, ".local", "bench", "profiles", `reads-${new Date().toISOString().replace(/[:.]/g, "-")}`)
    : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  console.log(`bench reads: ${int(total)} messages over ${int(chats)} chats, then GET …/messages?limit=${PAGE}`);
  printMachineFacts();

  let code = 0;
  let redis;
  let om;
  let restoreSave;
  try {
    // The gateway first: its platform creates the read model's indexes under its key prefix.
    const gw = await startGateway({
      env: { RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000" },
      ...(profileDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    const [instance] = await gw.createInstances(1, { name: "reads" });

    // The store, in this process: tsx loads the platform's TypeScript.
    register();
    const platform = await import(pathToFileURL(join(ROOT, "services/platform/src/index.ts")).href);
    const { Redis } = requireFrom("services/platform")("ioredis");
    redis = new Redis(gw.redisUrl, { connectionName: "bench-reads", enableAutoPipelining: false });
    om = await platform.createOmClient(gw.redisUrl);
    const k = platform.keys(gw.prefix);
    const scripts = new platform.ScriptBatch(redis);
    const store = new platform.ReadModel(
      redis,
      om,
      k,
      scripts,
      new platform.IdentityMap(redis, k),
      new platform.MediaLinks(randomBytes(16).toString("hex"), gw.url),
      { retentionMs: 90 * 86_400_000 },
    );
    scripts.seal();

    const me = "5511900000000";
    const chatIds = Array.from({ length: chats }, (_, i) => `55119${String(10_000_000 + i).padStart(8, "0")}@c.us`);
    const now = Math.floor(Date.now() / 1000);
    const words = "oi tudo bem como vai pedido entrega amanhã obrigado valor boleto pix confirmado ok".split(" ");
    const docOf = (i) => {
      const chat = i % chats;
      const chatId = chatIds[chat];
      const fromMe = i % 3 === 0;
      const networkId = `3EB0${i.toString(16).toUpperCase().padStart(16, "0")}`;
      const text = Array.from({ length: 4 + (i % 12) }, (_, j) => words[(i + j * 7) % words.length]).join(" ");
      const timestamp = now - 30 * 86_400 + Math.floor((i / total) * 30 * 86_400);
      const payload = {
        id: `${fromMe}_${chatId}_${networkId}`,
        chatId,
        chatLid: `${90_000_000_000_000 + chat}@lid`,
        isGroup: false,
        chatName: fromMe ? null : `Contato ${chat}`,
        fromMe,
        from: fromMe
          ? { id: `${me}@c.us`, phone: me, lid: null, pushName: "Loja" }
          : {
              id: chatId,
              phone: chatId.split("@")[0],
              lid: `${90_000_000_000_000 + chat}@lid`,
              pushName: `Contato ${chat}`,
            },
        timestamp,
        ...(fromMe ? { source: "api", status: "sent" } : {}),
        type: "text",
        text,
        quotedId: null,
        raw: { type: "text", text },
      };
      return store.docOf(payload, { networkId }, timestamp * 1000 + (i % 1000));
    };

    // The local stack snapshots every minute after a change (`--save 60 1`): with a million
    // messages loaded, a snapshot forks and keeps a core busy for ~20 s, in the middle of the
    // measured reads. Paused for the run, restored afterwards.
    const [, save] = await redis.config("GET", "save");
    if (save) {
      await redis.config("SET", "save", "");
      restoreSave = () => redis.config("SET", "save", save);
      log(`Redis snapshots (save "${save}") paused for the run`);
    }

    // 1. Load
    const before = await usedMemory(redis);
    log(`loading ${int(total)} messages in pipelines of ${batch}, ${inflight} in flight`);
    const t0 = Date.now();
    let next = 0;
    let lastLog = t0;
    const loader = async () => {
      while (next < total) {
        const from = next;
        next = Math.min(total, next + batch);
        const docs = [];
        for (let i = from; i < next; i++) docs.push(docOf(i));
        await store.saveMany(instance.id, docs);
        if (Date.now() - lastLog > 5_000) {
          lastLog = Date.now();
          log(`  ${int(next)} written (${int(next / ((Date.now() - t0) / 1000))}/s)`);
        }
      }
    };
    await Promise.all(Array.from({ length: inflight }, loader));
    const writeS = (Date.now() - t0) / 1000;
    await sleep(1_000);
    // A snapshot started before the pause ends first.
    await until(
      async () => /rdb_bgsave_in_progress:0/.test(await redis.info("persistence")),
      "a running snapshot to end",
      {
        timeoutMs: 300_000,
        intervalMs: 1_000,
      },
    );
    const after = await usedMemory(redis);
    const perMessage = (after - before) / total;
    const sample = await redis.call("MEMORY", "USAGE", store.messageKey(instance.id, docOf(1).networkId));

    // Every answer holds a full page (the newest first).
    const path = (chatId) => `/v1/instances/${instance.id}/chats/${encodeURIComponent(chatId)}/messages?limit=${PAGE}`;
    const check = await fetch(gw.url + path(chatIds[0]), { headers: { "x-instance-token": instance.token } });
    const page = await check.json();
    if (check.status !== 200 || !Array.isArray(page) || page.length !== Math.min(PAGE, Math.ceil(total / chats))) {
      throw new Error(`GET messages answered ${check.status}: ${JSON.stringify(page).slice(0, 300)}`);
    }
    if (page.some((m, i) => i > 0 && m.timestamp > page[i - 1].timestamp)) throw new Error("page not newest first");

    // 2. Read: one connection (the service time), then BENCH_CONNECTIONS at once (under load).
    const targets = chatIds.map((chatId) => ({ path: path(chatId), headers: { "x-instance-token": instance.token } }));
    const results = [];
    for (const [i, conns] of [...new Set([1, connections])].entries()) {
      results.push(
        await warmAndMeasure(
          {
            title: `GET messages?limit=${PAGE}, ${conns} connection${conns > 1 ? "s" : ""}`,
            url: gw.url,
            connections: conns,
            duration,
            ...spreadOverConnections(targets, Math.min(conns, targets.length)),
          },
          { warmup: i === 0 ? warmup : 0, cpu: { services: [gw.service], pids: { redis: stackRedisPid() } } },
        ),
      );
    }
    const result = results[results.length - 1];

    console.log("");
    console.log(`load: ${int(total)} messages written in ${fmt(writeS, 1)} s (${int(total / writeS)}/s)`);
    console.log(
      `redis memory: ${fmt((after - before) / 2 ** 20, 1)} MiB for ${int(total)} messages = ` +
        `${int(perMessage)} bytes per message (used_memory before/after; documents and sets)`,
    );
    console.log(`  one document (MEMORY USAGE): ${int(sample)} bytes`);
    console.log("");
    console.log(summaryTable(results));
    for (const r of results) if (r.cores) console.log(`cores (${r.title}): ${formatCores(r.cores)}`);
    console.log("");
    const pass = result.p99 <= TARGET_P99_MS && result.non2xx === 0;
    console.log(
      `p99 at ${result.connections} connections ${fmt(result.p99)} ms (target <= ${TARGET_P99_MS} ms): ${pass ? "met" : "NOT met"}` +
        (result.non2xx ? `; ${result.non2xx} non-2xx answers` : ""),
    );
    if (profileDir) {
      await gw.stop(); // the profile is written as the process exits
      const [file] = newestProfiles(profileDir);
      console.log(file ? `\ngateway CPU profile: ${file}\n${hotSpots(file, { top: 25, window: result.window })}` : "");
    }
  } catch (err) {
    console.error(err?.stack ?? err);
    code = 1;
  } finally {
    await om?.quit().catch(() => {});
    await restoreSave?.().catch(() => {});
    redis?.disconnect();
    await runCleanups();
  }
  return code;
}
