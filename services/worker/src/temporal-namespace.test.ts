// The chart's Temporal-namespace hook (charts/gateway, temporalNamespaceJob) against the real
// Temporal dev server.
import { randomBytes } from "node:crypto";
import { testEnv } from "@gw/test/gateway";
import { Connection } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureTemporalNamespace } from "./temporal-namespace.ts";

const address = testEnv().TEMPORAL_ADDRESS!;
const namespace = `gw-ns-test-${randomBytes(4).toString("hex")}`;
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address });
});
afterAll(async () => {
  await connection.operatorService.deleteNamespace({ namespace }).catch(() => {});
  await connection.close();
});

it("registers a missing namespace with its retention, then leaves it alone", async () => {
  const lines: string[] = [];
  const log = (msg: string) => lines.push(msg);
  expect(await ensureTemporalNamespace({ address, namespace, retentionDays: 2, log })).toBe(true);
  const described = await connection.workflowService.describeNamespace({ namespace });
  expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(2 * 86_400);
  // A second run (an upgrade's hook) finds it and changes nothing, not even the retention.
  expect(await ensureTemporalNamespace({ address, namespace, retentionDays: 9, log })).toBe(false);
  const again = await connection.workflowService.describeNamespace({ namespace });
  expect(Number(again.config?.workflowExecutionRetentionTtl?.seconds)).toBe(2 * 86_400);
  expect(lines.at(-1)).toMatch(/exists/);
});

it("gives up with the last error once its deadline has passed", async () => {
  await expect(
    ensureTemporalNamespace({ address: "127.0.0.1:1", namespace, retentionDays: 1, deadline: Date.now() + 3_000 }),
  ).rejects.toThrow();
});
