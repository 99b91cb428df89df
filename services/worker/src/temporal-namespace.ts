import { Connection, isGrpcServiceError } from "@temporalio/client";

/** gRPC status codes Temporal answers with. */
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

type RetentionPeriod = Parameters<
  Connection["workflowService"]["registerNamespace"]
>[0]["workflowExecutionRetentionPeriod"];
type ProtoSeconds = NonNullable<NonNullable<RetentionPeriod>["seconds"]>;

export interface EnsureNamespaceOptions {
  address: string;
  namespace: string;
  /** Workflow execution retention of a namespace this creates (an existing one is left as it is). */
  retentionDays: number;
  /** Keep trying to reach Temporal until then (it may still be starting), ms since the epoch. */
  deadline?: number;
  log?: (msg: string) => void;
}

/**
 * Makes sure the Temporal namespace exists: what `temporal operator namespace create` does, for
 * the chart's hook Job (charts/gateway, temporalNamespaceJob). Describes it first and registers it
 * only when Temporal answers NOT_FOUND; never updates an existing namespace. Answers whether it
 * created the namespace.
 */
export async function ensureTemporalNamespace(opts: EnsureNamespaceOptions): Promise<boolean> {
  const log = opts.log ?? (() => {});
  const deadline = opts.deadline ?? Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: opts.address, connectTimeout: 5_000 });
      const service = connection.workflowService;
      try {
        await service.describeNamespace({ namespace: opts.namespace });
        log(`namespace ${opts.namespace} exists at ${opts.address}: nothing to do`);
        return false;
      } catch (err) {
        if (!(isGrpcServiceError(err) && err.code === NOT_FOUND)) throw err;
      }
      try {
        await service.registerNamespace({
          namespace: opts.namespace,
          // protobufjs takes a plain number for this int64 (typed as Long).
          workflowExecutionRetentionPeriod: { seconds: (opts.retentionDays * 86_400) as unknown as ProtoSeconds },
          description: "messaging gateway (queued sends, webhook retries)",
        });
      } catch (err) {
        // Another run (a second replica of the Job, a person) was faster: fine.
        if (isGrpcServiceError(err) && err.code === ALREADY_EXISTS) return false;
        throw err;
      }
      log(`namespace ${opts.namespace} registered at ${opts.address} (retention ${opts.retentionDays} days)`);
      return true;
    } catch (err) {
      if (Date.now() + 2_000 > deadline) throw err;
      log(`attempt ${attempt}: ${(err as Error).message}; trying again`);
      await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
    } finally {
      await connection?.close().catch(() => {});
    }
  }
}
