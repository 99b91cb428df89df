import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Messaging Gateway API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#ui", deepLinking: true });</script>
</body></html>`;

/** `/v1/openapi.json` and an interactive reference at `/docs`, served from this process (no CDN). */
export function registerDocs(app: FastifyInstance, openapi: () => unknown): void {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  app.get("/v1/openapi.json", async () => openapi());
  app.get("/docs", async (_req, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
  app.get<{ Params: { file: string } }>("/docs/:file", async (req, reply) => {
    const type = ASSETS[req.params.file];
    if (!type) return reply.callNotFound();
    return reply
      .type(type)
      .header("cache-control", "public, max-age=86400")
      .send(await readFile(join(dist, req.params.file)));
  });
}
