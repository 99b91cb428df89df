// Entry of the chart's Temporal-namespace hook Job (charts/gateway, temporalNamespaceJob):
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_NAMESPACE_RETENTION_DAYS (default 3) and
// TEMPORAL_NAMESPACE_DEADLINE_S (how long to keep trying to reach Temporal, default 240).
import { ensureTemporalNamespace } from "@gw/worker/temporal-namespace";

const env = process.env;
const num = (v: string | undefined, fallback: number) => (v && Number(v) > 0 ? Number(v) : fallback);
try {
  await ensureTemporalNamespace({
    address: env.TEMPORAL_ADDRESS ?? "127.0.0.1:7233",
    namespace: env.TEMPORAL_NAMESPACE ?? "default",
    retentionDays: num(env.TEMPORAL_NAMESPACE_RETENTION_DAYS, 3),
    deadline: Date.now() + num(env.TEMPORAL_NAMESPACE_DEADLINE_S, 240) * 1000,
    log: (msg) => process.stdout.write(`${msg}\n`),
  });
  process.exit(0);
} catch (err) {
  process.stderr.write(`could not prepare the Temporal namespace: ${(err as Error).message}\n`);
  process.exit(1);
}
