// One process, the roles named in ROLES (ARCHITECTURE.md "Roles").

import { chatwootMockOptionsFromConfig, createChatwootMock, loadChatwootMockConfig } from "@gw/chatwootmock";
import { cloudMockOptionsFromConfig, createCloudMock, loadCloudMockConfig } from "@gw/cloudmock";
import { buildGateway } from "@gw/gateway";
import { createLogger, createPlatform, loadConfig } from "@gw/platform";
import { startTracing } from "@gw/platform/telemetry";
import { startSessionRole } from "@gw/session";
import { createSimnet, loadSimnetConfig, simnetOptionsFromConfig } from "@gw/simnet";
import { startWorkerRole } from "@gw/worker";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(78); // EX_CONFIG
}
// Before any role makes a span; off (null) unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md "Tracing").
const tracing = startTracing({ serviceName: config.ROLES.join("+"), instanceId: config.POD_ID });
const log = createLogger(config.LOG_LEVEL, { role: config.ROLES.join(",") });
const platform = await createPlatform(config);
const stops: (() => Promise<void>)[] = [];
const lastStops: (() => Promise<void>)[] = [];

if (config.ROLES.includes("simnet")) {
  const simnet = createSimnet(simnetOptionsFromConfig(loadSimnetConfig(), config.ADMIN_TOKEN, config.LOG_LEVEL));
  log.info({ url: await simnet.listen() }, "simnet listening");
  lastStops.push(() => simnet.close()); // the network goes last: sessions close cleanly first
}

if (config.ROLES.includes("cloudmock")) {
  // The local mock of the operator's Cloud API (development and demos: docs/cloudmock.md).
  const mock = createCloudMock(cloudMockOptionsFromConfig(loadCloudMockConfig(), config.ADMIN_TOKEN, config.LOG_LEVEL));
  log.info({ url: await mock.listen() }, "cloudmock listening");
  lastStops.push(() => mock.close());
}

if (config.ROLES.includes("chatwootmock")) {
  // The local mock of Chatwoot's Application API (the help-desk connector's counterpart: docs/chatwootmock.md).
  const mock = createChatwootMock(
    chatwootMockOptionsFromConfig(loadChatwootMockConfig(), config.ADMIN_TOKEN, config.LOG_LEVEL),
  );
  log.info({ url: await mock.listen() }, "chatwootmock listening");
  lastStops.push(() => mock.close());
}

const session = config.ROLES.includes("session") ? await startSessionRole(config, platform, log) : undefined;
if (session) stops.push(() => session.close());

if (config.ROLES.includes("worker")) {
  const retryScheduleMs = config.NODE_ENV === "test" ? config.WEBHOOK_RETRY_SCHEDULE_OVERRIDE_MS : undefined;
  const worker = await startWorkerRole(config, platform, log, { retryScheduleMs });
  stops.push(() => worker.close());
}

if (config.ROLES.includes("gateway")) {
  const gateway = await buildGateway(config, platform, { localSession: session?.manager });
  const { publicUrl, internalUrl } = await gateway.listen();
  log.info({ publicUrl, internalUrl }, "gateway listening");
  stops.unshift(() => gateway.close()); // stop taking requests first
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down: finishing requests in flight");
  const timer = setTimeout(() => {
    log.error("shutdown took too long; exiting");
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  timer.unref();
  for (const stop of [...stops, ...lastStops]) await stop();
  await platform.close();
  await tracing?.shutdown(); // the spans still buffered leave before the exit
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
