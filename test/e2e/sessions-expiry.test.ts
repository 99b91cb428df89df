// Final states a provider reports stay final: QR expiry (STOPPED, reason qr_expired) and a
// device taken over elsewhere (FAILED), with the instance out of the running set.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";

let c: Cluster;
beforeAll(async () => {
  c = await startCluster({ simnet: { qrIntervalMs: 150, qrLimit: 3 } });
});
afterAll(() => c?.close());

it("nobody scans: STOPPED with reason qr_expired, and it stays stopped", async () => {
  const { id, token } = await c.createInstance();
  await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
  // SCAN_QR_CODE lasts only the three QR values (~450 ms): read from the event history once the
  // final STOPPED is out, rather than polled for.
  const shownThenStopped = (s: string[]) =>
    s.includes("SCAN_QR_CODE") && s.includes("STOPPED", s.indexOf("SCAN_QR_CODE"));
  await c.waitForStatuses(id, 0, shownThenStopped);
  await c.waitForStatus(id, "STOPPED");
  const last = (await c.events(id, "session.status")).at(-1);
  expect(last?.payload).toMatchObject({ status: "STOPPED", previousStatus: "SCAN_QR_CODE", reason: "qr_expired" });
  expect(await c.platform.redis.sismember(c.platform.keys.running, id)).toBe(0);
  // Several reconcile ticks later nothing has overwritten it or reconnected.
  await new Promise((r) => setTimeout(r, 1_500));
  const { instance } = (await (await c.as(token)(`/v1/instances/${id}`)).json()) as {
    instance: { connectionStatus: string };
  };
  expect(instance.connectionStatus).toBe("STOPPED");
  expect((await c.events(id, "session.status")).at(-1)?.payload).toMatchObject({ reason: "qr_expired" });
  // A new start shows new codes.
  const before = (await c.statuses(id)).length;
  await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
  await c.waitForStatuses(id, before, (s) => s.includes("SCAN_QR_CODE"));
});
