import { createRequire } from "node:module";
import { hostname } from "node:os";
import type { Config, Logger, Platform } from "@gw/platform";
import { createSending } from "@gw/sending";
import { SessionDirectory } from "@gw/session";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime, Worker } from "@temporalio/worker";
import { createActivities } from "./activities.ts";
import { Dispatcher } from "./dispatcher.ts";
import { startWorkerHealth } from "./health.ts";
import { createHelpdeskActivities } from "./helpdesk/activities.ts";
import { HelpdeskIntake } from "./helpdesk/intake.ts";
import { createWorkerMetrics } from "./metrics.ts";
import { Notifier } from "./notifier.ts";
import { OfficialInbound } from "./official-inbound.ts";
import { createQueueActivities } from "./queue-activities.ts";
import { QueueReconciler } from "./queue-reconciler.ts";
import { temporalTracing } from "./tracing.ts";

const require = createRequire(import.meta.url);
/** The workflows package, bundled by the Temporal worker at start. */
export const WORKFLOWS_PATH = require.resolve("@gw/workflows");

let runtimeInstalled = false;
/** Temporal's own logs at warn (or quieter): once per process. */
function installTemporalRuntime(level: string): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const quiet = level === "silent" || level === "fatal" || level === "error";
  try {
    // shutdownSignals: [] — our process owns SIGTERM (main.ts closes the roles in order); by
    // default Temporal would stop the worker itself and our close() would find it stopped.
    Runtime.install({ logger: new DefaultLogger(quiet ? "ERROR" : "WARN"), shutdownSignals: [] });
  } catch {
    // Already installed by someone else in this process (tests): keep theirs.
  }
}

/**
 * The worker role: the event dispatcher (first delivery attempt) and a Temporal worker running
 * the retry workflows and their activities.
 */
export async function startWorkerRole(
  config: Config,
  platform: Platform,
  log: Logger,
  opts: { retryScheduleMs?: number[] } = {},
) {
  installTemporalRuntime(config.LOG_LEVEL);
  const notifier = new Notifier(platform, config, log);
  const metrics = createWorkerMetrics();
  const tracing = temporalTracing();
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, interceptors: tracing.client });

  // The queue's sends go to the instance's owning session pod, like the gateway's.
  const sessions = new SessionDirectory(platform, config);
  const sending = createSending(platform, config, sessions, async () => client);
  const reconciler = new QueueReconciler(
    platform,
    sending,
    client,
    log.child({ role: "queue-reconciler" }),
    config.QUEUE_RECONCILE_MS,
  );

  const nativeConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: WORKFLOWS_PATH,
    ...tracing.worker,
    activities: {
      ...createActivities({ platform, notifier, log, metrics }),
      ...createQueueActivities({
        platform,
        sending,
        sessions,
        log: log.child({ role: "queue" }),
        scheduleError: (seconds) => metrics.queueScheduleError.observe(seconds),
      }),
      ...createHelpdeskActivities({
        platform,
        sessions,
        send: sending.service,
        log: log.child({ role: "helpdesk" }),
        latency: metrics.helpdeskLatency,
      }),
    },
  });
  const running = worker.run();

  // One dispatcher and one help-desk intake per Redis shard: each shard has its own event streams.
  const dispatchers = platform.shards.clients.map(
    (_, shard) =>
      new Dispatcher(
        platform,
        client,
        notifier,
        log.child({ role: "dispatcher", ...(shard > 0 ? { shard } : {}) }),
        {
          consumer: `${hostname()}-${process.pid}`,
          concurrency: config.DISPATCH_CONCURRENCY,
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          claimIdleMs: config.DISPATCH_CLAIM_IDLE_MS,
          retryScheduleMs: opts.retryScheduleMs,
          shard,
        },
        metrics,
        // A number back online: its waiting queue items try again now, not at their next backoff.
        (event, instanceId, body) => {
          if (event === "session.status" && body.includes('"WORKING"')) reconciler.wake(instanceId);
        },
      ),
  );
  for (const d of dispatchers) await d.start();
  const dispatcher = dispatchers[0]!;
  const officialInbound = new OfficialInbound(
    platform,
    log.child({ role: "official-inbound" }),
    { consumer: `${hostname()}-${process.pid}`, claimIdleMs: config.DISPATCH_CLAIM_IDLE_MS },
    metrics.officialInbound,
  );
  await officialInbound.start();
  const intakes = platform.shards.clients.map(
    (_, shard) =>
      new HelpdeskIntake(platform, client, log.child({ role: "helpdesk-intake" }), {
        consumer: `${hostname()}-${process.pid}`,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        claimIdleMs: config.DISPATCH_CLAIM_IDLE_MS,
        shard,
      }),
  );
  for (const intake of intakes) await intake.start();
  reconciler.start();
  const health = await startWorkerHealth(config, platform, client, metrics, {
    temporalWorker: () => worker.getState(),
    dispatcher: () => dispatchers.every((d) => d.reading),
  });
  log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, health: health.url }, "worker started");

  return {
    dispatcher,
    officialInbound,
    client,
    healthUrl: health.url,
    async close() {
      await health.close();
      reconciler.stop();
      await officialInbound.close();
      await Promise.all(intakes.map((i) => i.close()));
      await Promise.all(dispatchers.map((d) => d.close()));
      worker.shutdown();
      await running.catch(() => {});
      await nativeConnection.close();
      await connection.close();
      notifier.close();
    },
  };
}
export type WorkerRole = Awaited<ReturnType<typeof startWorkerRole>>;
