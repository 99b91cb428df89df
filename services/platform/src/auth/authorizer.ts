import type { Redis, Result } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import { TurnBatcher } from "../infra/turn-batch.ts";
import { digestsEqual, hashToken } from "./secrets.ts";

/**
 * One round trip does authentication data and the rate limit together: the instance's token
 * hash, the account's Client-Token state, and a token bucket in Redis (server time, shared by
 * every replica). Nothing is cached in a process, so a rotated token or a changed Client-Token is
 * refused by every replica on the very next request.
 *
 * Requests that arrive in the same turn of the event loop share that round trip: they are
 * collected until `setImmediate` (after the poll phase that parsed them) and checked by one
 * script call, entry after entry, in arrival order. Under load this turns N writes, N reads and
 * N script runs into one of each (measured: `pnpm bench gateway`, docs/benchmarks.md); alone, a
 * request waits for nothing but the end of its own loop turn.
 *
 * The bucket is charged only when the presented token hash matches, so requests with a wrong
 * token cannot drain another instance's budget. The script's `==` only decides whether to
 * charge; the verdict is a constant-time compare in Node.
 *
 * The bucket (`tokens`, `ts`) lives in the instance's auth hash beside the token hash, and so
 * does a copy of its account's Client-Token state (`ct` hash, `ctr` required flag, `ctc` = copied):
 * one HMGET reads everything a request needs and one HSET charges the bucket. (A bucket of its own
 * and the account's hash cost an HMGET, an HSET, a PEXPIRE and another HMGET more per request;
 * docs/benchmarks.md, tenth round.) The copy is not a cache: it is made by this script the first
 * time an instance is asked for (from the account's hash, and the instance joins the account's
 * set of copies), and every change of the account's Client-Token rewrites the account and all its
 * copies in one script (store/accounts.ts). Both are atomic in Redis, so a changed Client-Token is
 * refused on the very next request, as before. A rotated token keeps bucket and copy.
 *
 * ARGV: rate, burst, account key prefix, then per request: auth key, token hash.
 * Reply: per request six values (0 = no instance | 1 = wrong token | 2 = match, the stored
 * hash, the Client-Token hash, its "required" flag, allowed 0|1, wait ms).
 */
const SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 4, #ARGV, 2 do
  local key = ARGV[i]
  local a = redis.call('HMGET', key, 'tokenHash', 'accountId', 'tokens', 'ts', 'ctc', 'ct', 'ctr')
  if not a[1] then
    out[#out + 1] = 0; out[#out + 1] = ''; out[#out + 1] = ''; out[#out + 1] = ''; out[#out + 1] = 0; out[#out + 1] = 0
  elseif a[1] ~= ARGV[i + 1] then
    out[#out + 1] = 1; out[#out + 1] = a[1]; out[#out + 1] = ''; out[#out + 1] = ''; out[#out + 1] = 0; out[#out + 1] = 0
  else
    local tokens = tonumber(a[3]) or burst
    local ts = tonumber(a[4]) or now
    tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
    local allowed = 0
    local waitMs = 0
    if tokens >= 1 then
      tokens = tokens - 1
      allowed = 1
    else
      waitMs = math.ceil((1 - tokens) * 1000 / rate)
    end
    local ct, ctr = a[6] or '', a[7] or ''
    if a[5] == '1' then
      redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', now)
    else
      -- No copy of the account's Client-Token state yet: read it, copy it, join the account's copies.
      local acc = redis.call('HMGET', ARGV[3] .. a[2], 'clientTokenHash', 'requireOnAllCalls')
      ct, ctr = acc[1] or '', acc[2] or ''
      redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', now, 'ctc', '1', 'ct', ct, 'ctr', ctr)
      redis.call('SADD', ARGV[3] .. a[2] .. ':copies', key)
    end
    out[#out + 1] = 2; out[#out + 1] = a[1]; out[#out + 1] = ct; out[#out + 1] = ctr
    out[#out + 1] = allowed; out[#out + 1] = waitMs
  end
end
return out
`;

/**
 * Requests per script call at most: a longer turn's backlog goes as several calls, so the first
 * answers come back while Redis runs the next (8, 16 and 32 measured alike; one call of a whole
 * turn left the gateway idle longer while it waited).
 */
const MAX_BATCH = 16;

export type AuthVerdict =
  | { ok: true }
  | { ok: false; code: "invalid_token" | "invalid_client_token" }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

declare module "ioredis" {
  interface RedisCommander<Context> {
    gwAuthorizeBatch(...args: (string | number)[]): Result<(string | number)[], Context>;
  }
}

interface Pending {
  instanceId: string;
  presented: string;
  clientToken: string | undefined;
}

export class RequestAuthorizer {
  private readonly batcher: TurnBatcher<Pending, AuthVerdict>;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly rate: { perSecond: number; burst: number },
  ) {
    // The script reads keys it derives (the account's), so every key goes in ARGV; the store
    // is one Redis (Stack), never a cluster.
    redis.defineCommand("gwAuthorizeBatch", { numberOfKeys: 0, lua: SCRIPT });
    this.batcher = new TurnBatcher((batch) => this.run(batch), MAX_BATCH);
  }

  authorize(instanceId: string, token: string, clientToken: string | undefined): Promise<AuthVerdict> {
    return this.batcher.add({ instanceId, presented: hashToken(token), clientToken });
  }

  private async run(batch: Pending[]): Promise<AuthVerdict[]> {
    const args: (string | number)[] = [this.rate.perSecond, this.rate.burst, this.k.accountAuthPrefix];
    for (const p of batch) args.push(this.k.instanceAuth(p.instanceId), p.presented);
    const r = await this.redis.gwAuthorizeBatch(...args);
    return batch.map((p, i) => verdictOf(p, r.slice(i * 6, i * 6 + 6)));
  }
}

function verdictOf(p: Pending, r: (string | number)[]): AuthVerdict {
  if (r[0] !== 2 || !digestsEqual(p.presented, String(r[1]))) return { ok: false, code: "invalid_token" };
  const [, , clientTokenHash, required, allowed, waitMs] = r as [number, string, string, string, number, number];
  if (required === "1" && !(p.clientToken && digestsEqual(hashToken(p.clientToken), clientTokenHash))) {
    return { ok: false, code: "invalid_client_token" };
  }
  if (allowed !== 1)
    return { ok: false, code: "rate_limited", retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  return { ok: true };
}
