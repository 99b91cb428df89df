/**
 * Unix seconds as the provider reads and writes them: now, a timestamp that may be a protobuf
 * Long, a number or a numeric string, and one that may be in seconds or milliseconds. One place
 * for what inbound, outbound, the account routes and the areas each used to spell out.
 */

/** Now, in whole Unix seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Seconds from a protobuf Long / number / numeric string; null when absent, zero or not a number. */
export function secondsOf(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === "number" ? v : Number(typeof v === "object" ? String(v) : v);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
}

/** Unix seconds from seconds or milliseconds (a value past 10¹² is taken as milliseconds). */
export function unixSeconds(v: number): number {
  return v > 1e12 ? Math.floor(v / 1000) : Math.floor(v);
}
