// A client that follows the spec's retry rules (section 7) with an Idempotency-Key
// (docs/sending.md): 429/502/503 are retried after Retry-After (or growing waits); a request
// that got no answer at all (a gateway killed mid-request, a timeout) is retried with the same
// key, which is what the key is for; any other status is final.
import { sleep } from "../lib.mjs";

const RETRIED = new Set([429, 502, 503]);

/**
 * `call()` → the final {status, body, attempts, tries: [status|error], answers: [{status, code,
 * at}]} (`answers`: every try's status, 0 without one, its error code or "timeout"/"no-answer",
 * and when it came, epoch ms); status 0 when the client gave up (giveUpMs without a final answer).
 */
export async function withRetries(call, { giveUpMs = 90_000, timeoutMs = 20_000 } = {}) {
  const start = Date.now();
  const tries = [];
  const answers = [];
  let wait = 1000;
  for (;;) {
    let res;
    try {
      res = await call(AbortSignal.timeout(timeoutMs));
    } catch (err) {
      const what = err?.name === "TimeoutError" ? "timeout" : "no-answer";
      tries.push(what);
      answers.push({ status: 0, code: what, at: Date.now() });
    }
    if (res) {
      const body = await res.json().catch(() => null);
      tries.push(res.status);
      answers.push({ status: res.status, code: body?.error?.code, at: Date.now() });
      if (!RETRIED.has(res.status)) return { status: res.status, body, attempts: tries.length, tries, answers };
      const after = Number(res.headers.get("retry-after"));
      if (Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, 10_000);
    }
    if (Date.now() - start > giveUpMs) return { status: 0, body: null, attempts: tries.length, tries, answers };
    await sleep(wait);
    wait = Math.min(wait * 2, 8_000);
  }
}

/** The instance API through the cluster's entry, with the instance's token. */
export function instanceApi(entryUrl, inst) {
  return (method, path, { json, headers = {}, signal } = {}) =>
    fetch(`${entryUrl}/v1/instances/${inst.id}${path}`, {
      method,
      signal,
      headers: {
        "x-instance-token": inst.token,
        ...(json !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: json !== undefined ? JSON.stringify(json) : undefined,
    });
}
