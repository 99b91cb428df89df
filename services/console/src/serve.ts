import type { FastifyInstance, FastifyReply } from "fastify";
import { buildConsoleAssets, type ConsoleAssets } from "./bundle.ts";
import { CONSOLE_CSP, CONSOLE_PAGE } from "./page.ts";
import { type ConsoleSettings, temporalUiUrl } from "./settings.ts";

/** Headers of every console response: the policy, and no sniffing, framing or referrers. */
function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", CONSOLE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer")
    .header("cross-origin-opener-policy", "same-origin");
}

/**
 * The operator console at /console, on the gateway's own origin: the API it calls is the public
 * one beside it, with no CORS to open. The bundle is built on the first request and kept for the
 * process's life; a failed build is tried again on the next request.
 */
export function registerConsole(app: FastifyInstance, opts: { temporalNamespace: string }): void {
  let assets: Promise<ConsoleAssets> | undefined;
  const load = () => {
    assets ??= buildConsoleAssets().catch((err: unknown) => {
      assets = undefined;
      throw err;
    });
    return assets;
  };
  const settings: ConsoleSettings = { temporalUiUrl: temporalUiUrl(), temporalNamespace: opts.temporalNamespace };

  app.get("/console", async (_req, reply) =>
    secure(reply).header("cache-control", "no-store").type("text/html; charset=utf-8").send(CONSOLE_PAGE),
  );
  app.get("/console/config.json", async (_req, reply) =>
    secure(reply).header("cache-control", "no-store").send(settings),
  );
  app.get<{ Params: { file: string } }>("/console/:file", async (req, reply) => {
    const asset = (await load()).get(req.params.file);
    if (!asset) return reply.callNotFound();
    // no-cache, not a long max-age: the names carry no hash, and a restart may bring a new build.
    return secure(reply).header("cache-control", "no-cache").type(asset.type).send(Buffer.from(asset.body));
  });
}
