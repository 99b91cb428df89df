import { createHash, randomUUID } from "node:crypto";
import { ApiError, invalid } from "@gw/contracts";
import { base32Of, type Keys } from "@gw/platform";
import type { Redis } from "ioredis";

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * A request marks its key running for this long and renews the mark every third of it while it
 * runs: a mark not renewed in time belongs to a request whose process died (a gateway killed
 * mid-request), and the next request with the key takes over — within seconds, not never.
 * The send it repeats has the same network id (networkId), so a send the dead process made
 * is not delivered twice.
 */
const RUNNING_LEASE_MS = 15_000;
const WAIT_STEP_MS = 100;

const BEGIN = `
-- KEYS: record; ARGV: fingerprint, now, lease, ttl, holder
local r = redis.call('HMGET', KEYS[1], 'state', 'fp', 'until', 'status', 'body', 'origin')
if not r[1] then
  redis.call('HSET', KEYS[1], 'state', 'running', 'fp', ARGV[1], 'until', tonumber(ARGV[2]) + tonumber(ARGV[3]), 'holder', ARGV[5], 'origin', ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'new', ARGV[5]}
end
if r[2] ~= ARGV[1] then return {'mismatch'} end
if r[1] == 'done' then return {'done', r[4], r[5]} end
if tonumber(r[3]) < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'until', tonumber(ARGV[2]) + tonumber(ARGV[3]), 'holder', ARGV[5])
  return {'new', r[6] or ARGV[5]}
end
return {'running'}
`;

/** Extends a running mark, only while this request still holds it. */
const RENEW = `
-- KEYS: record; ARGV: holder, now, lease
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'running' then
  redis.call('HSET', KEYS[1], 'until', tonumber(ARGV[2]) + tonumber(ARGV[3]))
  return 1
end
return 0
`;

export interface Answer {
  status: number;
  body: unknown;
}

export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on send routes (beyond the spec; docs/api.md): the same key within 24 h
 * answers what the first request answered and never sends again — also while the first is
 * still running (the second waits for it) or after its client gave up. Only successes are
 * kept: a failed request frees its key, so the client can fix things and retry with it. A key
 * reused with another body is refused. Sends made under a key give the network a message id
 * derived from it, so even a retry after a timeout cannot deliver twice.
 */
export class IdempotencyStore {
  private readonly waitMs: number;
  private readonly leaseMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    opts: { waitMs?: number; leaseMs?: number } = {},
  ) {
    this.waitMs = opts.waitMs ?? 120_000;
    this.leaseMs = opts.leaseMs ?? RUNNING_LEASE_MS;
  }

  private key(instanceId: string, key: string) {
    return this.k.idempotency(instanceId, createHash("sha256").update(key).digest("hex").slice(0, 32));
  }

  /**
   * The queue id of a queued send made under a key, from its run's `origin` (the first
   * request's, kept by a takeover): a retry that takes over from a gateway killed after the
   * enqueue finds the item already there instead of queuing it twice (the chaos bench found such
   * a pair 15 s apart). A new run after a failure, or after the key expired, gets a new origin.
   */
  static queueId(instanceId: string, origin: string): string {
    return `qm_${base32Of(createHash("sha256").update(`${instanceId}:queue:${origin}`).digest(), 26)}`;
  }

  /** The network message id of a send made under `key`. */
  static networkId(instanceId: string, key: string): string {
    return `3EB0${createHash("sha256").update(`${instanceId}:${key}`).digest("hex").slice(0, 20).toUpperCase()}`;
  }

  static fingerprint(route: string, body: unknown): string {
    return createHash("sha256")
      .update(route)
      .update("\n")
      .update(JSON.stringify(body ?? null))
      .digest("hex");
  }

  run(
    instanceId: string,
    key: string,
    fingerprint: string,
    fn: (run: { origin: string }) => Promise<Answer>,
  ): Promise<Answer & { replayed: boolean }>;
  /** `A`: the caller's answers; a replay is the first request's, as this store kept it. */
  run<A extends Answer>(
    instanceId: string,
    key: string,
    fingerprint: string,
    fn: (run: { origin: string }) => Promise<A>,
  ): Promise<A & { replayed: boolean }>;
  async run<A extends Answer>(
    instanceId: string,
    key: string,
    fingerprint: string,
    fn: (run: { origin: string }) => Promise<A>,
  ): Promise<A & { replayed: boolean }> {
    if (!IDEMPOTENCY_KEY_RE.test(key)) {
      throw invalid("Idempotency-Key", "de 1 a 255 caracteres ASCII visíveis");
    }
    const record = this.key(instanceId, key);
    const holder = randomUUID();
    const deadline = Date.now() + this.waitMs;
    let origin: string = holder;
    for (;;) {
      const r = (await this.redis.eval(
        BEGIN,
        1,
        record,
        fingerprint,
        Date.now(),
        this.leaseMs,
        IDEMPOTENCY_TTL_MS,
        holder,
      )) as string[];
      if (r[0] === "mismatch") {
        throw invalid("Idempotency-Key", "chave já usada com outra requisição");
      }
      if (r[0] === "done") {
        return { status: Number(r[1]), body: JSON.parse(r[2]!), replayed: true } as A & { replayed: boolean };
      }
      if (r[0] === "new") {
        origin = r[1] ?? holder;
        break;
      }
      if (Date.now() >= deadline) {
        throw new ApiError(
          "network_unavailable",
          "A requisição original com esta chave ainda está em andamento.",
          undefined,
          5,
        );
      }
      await new Promise((res) => setTimeout(res, WAIT_STEP_MS));
    }
    const renewal = setInterval(() => {
      this.redis.eval(RENEW, 1, record, holder, Date.now(), this.leaseMs).catch(() => {});
    }, this.leaseMs / 3);
    let answer: A;
    try {
      answer = await fn({ origin });
    } catch (err) {
      await this.redis.del(record).catch(() => {});
      throw err;
    } finally {
      clearInterval(renewal);
    }
    await this.redis.hset(record, "state", "done", "status", answer.status, "body", JSON.stringify(answer.body));
    return { ...answer, replayed: false };
  }
}
