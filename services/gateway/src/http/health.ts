import type { Platform } from "@gw/platform";
import { Connection } from "@temporalio/client";
import type { FastifyInstance } from "fastify";

/** Temporal reachability, checked with a real RPC and cached briefly. */
export function temporalProbe(address: string, namespace: string) {
  let connection: Connection | undefined;
  let last = { at: 0, ok: false };
  return {
    async ok(): Promise<boolean> {
      if (Date.now() - last.at < 2_000) return last.ok;
      let ok = false;
      try {
        connection ??= await Connection.connect({ address, connectTimeout: 2_000 });
        await connection.workflowService.describeNamespace({ namespace });
        ok = true;
      } catch {
        await connection?.close().catch(() => {});
        connection = undefined;
      }
      last = { at: Date.now(), ok };
      return ok;
    },
    async close() {
      await connection?.close().catch(() => {});
    },
  };
}
export type TemporalProbe = ReturnType<typeof temporalProbe>;

/** `/healthz`: the process serves. `/readyz`: and Redis and Temporal answer. */
export function registerHealth(app: FastifyInstance, platform: Platform, temporal: TemporalProbe): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const [redis, temporalOk] = await Promise.all([platform.ping().catch(() => false), temporal.ok()]);
    const ready = redis && temporalOk;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not_ready",
      checks: { redis: redis ? "ok" : "down", temporal: temporalOk ? "ok" : "down" },
    });
  });
}
