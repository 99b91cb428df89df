import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { INTERNAL_SECRET_HEADER, INTERNAL_SERVICE_HEADER } from "./http/internal.ts";
import type { AppRouter } from "./routers/index.ts";

/**
 * The typed client other services use to call the gateway's procedures on its internal port.
 * Errors carry the public error in `error.data.api` ({code, message, details}).
 */
export function createInternalClient(opts: { url: string; secret: string; service: string }) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${opts.url.replace(/\/$/, "")}/trpc`,
        headers: { [INTERNAL_SECRET_HEADER]: opts.secret, [INTERNAL_SERVICE_HEADER]: opts.service },
      }),
    ],
  });
}
export type InternalClient = ReturnType<typeof createInternalClient>;
