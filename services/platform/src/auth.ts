import type { Redis, Result } from "ioredis";
import type { Keys } from "./keys.ts";
import { digestsEqual, hashToken } from "./secrets.ts";

/**
 * One round trip per request does authentication data and the rate limit together:
 * the instance's token hash, the account's Client-Token state, and a token bucket in Redis
 * (server time, shared by every replica). Nothing is cached, so a rotated token or a changed
 * Client-Token is refused by every replica on the very next request.
 *
 * The bucket is charged only when the presented token hash matches, so requests with a wrong
 * token cannot drain another instance's budget. The script's `==` only decides whether to
 * charge; the verdict is a constant-time compare in Node.
 */
const SCRIPT = `
local a = redis.call('HMGET', KEYS[1], 'tokenHash', 'accountId')
if not a[1] then return {0} end
if a[1] ~= ARGV[1] then return {1, a[1]} end
local acc = redis.call('HMGET', ARGV[4] .. a[2], 'clientTokenHash', 'requireOnAllCalls')
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[2], 'tokens', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
local waitMs = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  waitMs = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[2], math.ceil(burst * 1000 / rate) + 1000)
return {2, a[1], acc[1] or '', acc[2] or '', allowed, waitMs}
`;

export type AuthVerdict =
  | { ok: true }
  | { ok: false; code: "invalid_token" | "invalid_client_token" }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

declare module "ioredis" {
  interface RedisCommander<Context> {
    gwAuthorize(
      instanceAuthKey: string,
      rateKey: string,
      tokenHash: string,
      rate: number,
      burst: number,
      accountAuthPrefix: string,
    ): Result<(string | number)[], Context>;
  }
}

export class RequestAuthorizer {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly rate: { perSecond: number; burst: number },
  ) {
    redis.defineCommand("gwAuthorize", { numberOfKeys: 2, lua: SCRIPT });
  }

  async authorize(instanceId: string, token: string, clientToken: string | undefined): Promise<AuthVerdict> {
    const presented = hashToken(token);
    const r = await this.redis.gwAuthorize(
      this.k.instanceAuth(instanceId),
      this.k.rateLimit(instanceId),
      presented,
      this.rate.perSecond,
      this.rate.burst,
      this.k.accountAuthPrefix,
    );
    if (r[0] !== 2 || !digestsEqual(presented, String(r[1]))) return { ok: false, code: "invalid_token" };
    const [, , clientTokenHash, required, allowed, waitMs] = r as [number, string, string, string, number, number];
    if (required === "1" && !(clientToken && digestsEqual(hashToken(clientToken), clientTokenHash))) {
      return { ok: false, code: "invalid_client_token" };
    }
    if (allowed !== 1)
      return { ok: false, code: "rate_limited", retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    return { ok: true };
  }
}
