import { type Platform, secretMatches, statusOfErrors } from "@gw/platform";
import type { Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import { TRPCError } from "@trpc/server";
import {
  type CreateFastifyContextOptions,
  type FastifyTRPCPluginOptions,
  fastifyTRPCPlugin,
} from "@trpc/server/adapters/fastify";
import type { FastifyInstance } from "fastify";
import { type AppRouter, appRouter } from "../routers/index.ts";
import { type Context, requestContext } from "../trpc/context.ts";

export const INTERNAL_SECRET_HEADER = "x-internal-secret";
export const INTERNAL_SERVICE_HEADER = "x-internal-service";

/**
 * The same routers over tRPC at /trpc, for the other services. This server listens on the
 * internal port only; callers prove themselves with the shared INTERNAL_SECRET.
 */
export async function registerInternalTrpc(
  app: FastifyInstance,
  platform: Platform,
  secret: string,
  sessions: SessionDirectory,
  sending: Sending,
): Promise<void> {
  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: appRouter,
      responseMeta: statusOfErrors,
      createContext: ({ req }: CreateFastifyContextOptions): Context => {
        const presented = req.headers[INTERNAL_SECRET_HEADER];
        if (typeof presented !== "string" || !secretMatches(presented, secret)) {
          throw new TRPCError({ code: "UNAUTHORIZED", message: "internal secret missing or wrong" });
        }
        const service = req.headers[INTERNAL_SERVICE_HEADER];
        return requestContext(
          req,
          { platform, sessions, sending },
          { kind: "internal", service: typeof service === "string" ? service : "unknown" },
        );
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>["trpcOptions"],
  });
}
export type { AppRouter };
