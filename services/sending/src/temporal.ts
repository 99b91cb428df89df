import type { Config } from "@gw/platform";
import { Client, Connection } from "@temporalio/client";

/** A Temporal client connected on first use (the gateway starts even while Temporal is down). */
export function lazyTemporalClient(config: Pick<Config, "TEMPORAL_ADDRESS" | "TEMPORAL_NAMESPACE">) {
  let pending: Promise<Client> | undefined;
  let connection: Connection | undefined;
  return {
    get(): Promise<Client> {
      pending ??= Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: 5_000 })
        .then((c) => {
          connection = c;
          return new Client({ connection: c, namespace: config.TEMPORAL_NAMESPACE });
        })
        .catch((err) => {
          pending = undefined;
          throw err;
        });
      return pending;
    },
    async close(): Promise<void> {
      await connection?.close().catch(() => {});
    },
  };
}
