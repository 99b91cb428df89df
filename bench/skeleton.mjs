// pnpm bench skeleton — the lower bound of `pnpm bench send` set by the architecture alone.
//
// The send path of the spec and ARCHITECTURE.md crosses four processes besides the load
// generator: the gateway (public HTTP, auth and the shared rate limit in Redis), the session pod
// that holds the connections, the network, and Redis (where the pod records the sent message
// before it answers, so that nothing accepted is lost). This bench runs that path with nothing
// else in it (bench/support/skeleton/): Fastify's route; one auto-pipelined Redis command for
// auth; one newline-JSON frame to the pod over one multiplexed connection; one frame on the
// instance's own network connection (one per instance, as on the real network and simnet), answered
// at once, its 'delivered' ack a second later in a write of its own; one XADD per sent message
// before the answer and one per ack. No validation, tRPC, lease check, read model, kept message,
// idempotency or trial, no WebSocket or zod: every real implementation does at least this per send.
//
// Same load as `pnpm bench send` (autocannon, BENCH_CONNECTIONS=50, BENCH_DURATION=10 s after a
// BENCH_WARMUP=3 s warm-up, BENCH_ROUNDS=3 alternating rounds against the same bare Fastify,
// BENCH_INSTANCES=1000; the ratio is the median of the rounds'), so its ratio is the ceiling of
// the send bench's on the same machine (`pnpm bench send` measures the skeleton in its rounds too).
import { randomBytes } from "node:crypto";
import { up } from "../scripts/stack-lib.mjs";
import {
  cpuPerAnswer,
  formatCores,
  intEnv,
  median,
  onCleanup,
  printMachineFacts,
  requireFrom,
  runCleanups,
  sleep,
  spreadOverConnections,
  stackRedisPid,
  startBareFastify,
  summaryTable,
  warmAndMeasure,
} from "./lib.mjs";
import { SKELETON_ACK_SETTLE_MS, skeletonPath, startSkeleton } from "./support/skeleton/start.mjs";

export const description =
  "the send path's skeleton (gateway → pod → network, Redis: no business logic) against bare Fastify: the send target's ceiling on this machine";

export default async function main() {
  const duration = intEnv("BENCH_DURATION", 10);
  const warmup = intEnv("BENCH_WARMUP", 3, { min: 0 });
  const connections = intEnv("BENCH_CONNECTIONS", 50);
  const rounds = intEnv("BENCH_ROUNDS", 3);
  const instances = Math.max(connections, intEnv("BENCH_INSTANCES", 1000));
  const nodeFlags = (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  console.log("bench skeleton: the send path's unavoidable hops, nothing else, against bare Fastify");
  printMachineFacts();
  const stack = await up();
  const { Redis } = requireFrom("services/platform")("ioredis");
  const redis = new Redis(stack.redisUrl);
  onCleanup(() => redis.disconnect());
  try {
    const skeleton = await startSkeleton({
      redis,
      redisUrl: stack.redisUrl,
      prefix: `benchskel${randomBytes(4).toString("hex")}:`,
      instances,
      nodeFlags,
    });
    const { service: bareSvc, url: bareUrl } = await startBareFastify("send-bare-fastify.mjs", nodeFlags);

    const targets = Array.from({ length: instances }, (_, i) => ({
      method: "POST",
      path: skeletonPath(i),
      headers: { "content-type": "application/json", "x-instance-token": `gwt_${"x".repeat(40)}${i}` },
      body: JSON.stringify({ chatId: "15550000001@c.us", text: "Olá! Seu pedido #1234 saiu para entrega." }),
    }));
    const settings = { connections, duration, ...spreadOverConnections(targets, connections) };
    const results = [];
    for (let r = 1; r <= rounds; r++) {
      const tag = r === 1 ? "" : ` #${r}`;
      if (r > 1) await sleep(SKELETON_ACK_SETTLE_MS); // the previous skeleton run's acks arrive
      const bare = await warmAndMeasure(
        { title: `bare fastify${tag}`, url: bareUrl, ...settings },
        { warmup: r === 1 ? warmup : 0, cpu: { services: [bareSvc] } },
      );
      const skel = await warmAndMeasure(
        { title: `skeleton${tag}`, url: skeleton.url, ...settings },
        {
          warmup: r === 1 ? warmup : 0,
          cpu: { services: skeleton.services, pids: { redis: stackRedisPid() } },
        },
      );
      results.push({ bare, skel });
    }
    console.log("");
    for (const { bare, skel } of results) {
      for (const x of [skel, bare]) {
        const c = cpuPerAnswer(x);
        console.log(`   cpu cores used, ${x.title}: ${formatCores(x.cores ?? {})}`);
        if (c) console.log(`   cpu per 2xx answer, ${x.title}: ${Math.round(c.totalUs)} µs (${c.parts.join(", ")})`);
      }
    }
    console.log("");
    console.log(summaryTable(results.flatMap(({ bare, skel }) => [skel, bare])));
    const bad = results.flatMap(({ bare, skel }) => [bare, skel]).filter((x) => x.non2xx > 0 || x.errors > 0);
    for (const x of bad) console.log(`   INVALID ${x.title}: ${x.non2xx} non-2xx, ${x.errors} errors`);
    const ratios = results.map(({ bare, skel }) => skel.rps / bare.rps);
    console.log(`   ratio per round: ${ratios.map((x) => x.toFixed(3)).join(", ")}`);
    console.log(`   ratio skeleton/bare: ${median(ratios).toFixed(3)} (median of ${rounds} alternating rounds)`);
    console.log(
      "   the send target (>= 0.15 of bare Fastify) is reachable on this machine only if this ceiling is well above it",
    );
    return bad.length ? 1 : 0;
  } finally {
    await runCleanups();
  }
}
