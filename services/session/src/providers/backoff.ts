/** Exponential backoff with full jitter, so that many instances never reconnect in step. */
export function backoffMs(attempt: number, baseMs = 250, maxMs = 10_000): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
