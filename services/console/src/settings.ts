/** What the browser code is told at /console/config.json: nothing secret, only where things are. */
export interface ConsoleSettings {
  /** The Temporal Web UI, for links to a queued send's workflow. */
  temporalUiUrl: string;
  temporalNamespace: string;
}

export const DEFAULT_TEMPORAL_UI_URL = "http://127.0.0.1:8233";

/**
 * `TEMPORAL_UI_URL` (default: the local dev server's UI, which `make dev` starts on 8233). Read
 * here rather than through the platform's config: the console is its only reader, and a bad
 * value only breaks a link, so it falls back to the default instead of stopping the gateway.
 */
export function temporalUiUrl(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.TEMPORAL_UI_URL?.trim();
  if (!given) return DEFAULT_TEMPORAL_UI_URL;
  try {
    const url = new URL(given);
    return url.protocol === "http:" || url.protocol === "https:" ? given.replace(/\/+$/, "") : DEFAULT_TEMPORAL_UI_URL;
  } catch {
    return DEFAULT_TEMPORAL_UI_URL;
  }
}
