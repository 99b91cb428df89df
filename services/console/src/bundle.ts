import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The console's browser assets, as served: name (under /console/) → body and content type. */
export type ConsoleAssets = ReadonlyMap<string, { body: Uint8Array; type: string }>;

const WEB = fileURLToPath(new URL("../web/", import.meta.url));

const TYPES: Record<string, string> = {
  ".js": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * Bundles web/ with esbuild, in memory (`write: false`): no build step to remember before
 * `make dev`, `make test` or a fresh clone's first start, and no generated file in the tree to
 * drift from its sources. esbuild is a dependency of this package (not a devDependency) for that
 * reason: the image installs it like the worker's workflow bundler. A few tens of milliseconds,
 * paid once per process on the first request to /console.
 */
export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  const out = await build({
    // main.ts imports style.css: esbuild emits it beside the script as app.css.
    entryPoints: { app: `${WEB}main.ts` },
    bundle: true,
    write: false,
    outdir: "/console",
    format: "esm",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  const assets = new Map<string, { body: Uint8Array; type: string }>();
  for (const file of out.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf("/") + 1);
    const ext = name.slice(name.lastIndexOf("."));
    const type = TYPES[ext];
    if (type) assets.set(name, { body: file.contents, type });
  }
  return assets;
}
