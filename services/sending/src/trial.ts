import { ApiError, type Instance } from "@gw/contracts";
import type { Keys } from "@gw/platform";
import type { Redis } from "ioredis";

export const TRIAL_DAILY_MESSAGES = 300;

/** A day's count outlives its day by one (a unit given back after midnight still finds it). */
const COUNT_TTL_MS = 2 * 86_400_000;
/**
 * How long a charge is remembered: longer than a queue item can wait for its send (`ttlHours` at
 * most 168) plus a day, so that whatever charges an item again during its life finds its unit.
 */
export const TRIAL_CHARGE_TTL_MS = 8 * 86_400_000;

// KEYS[1] today's count; KEYS[2] (optional) the charge's mark, holding the count it was taken from.
// ARGV: limit, count ttl, mark ttl.
const TAKE = `
if KEYS[2] then
  local taken = redis.call('GET', KEYS[2])
  if taken then return {0, taken} end
end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return {-1, ''} end
if KEYS[2] then redis.call('SET', KEYS[2], KEYS[1], 'PX', ARGV[3]) end
return {n, KEYS[1]}
`;

// Gives a unit back to the count it was taken from, and forgets the charge.
const GIVE_BACK = `
local from = KEYS[1]
if KEYS[2] then
  from = redis.call('GET', KEYS[2])
  if not from then return 0 end
  redis.call('DEL', KEYS[2])
end
if redis.call('EXISTS', from) == 1 then redis.call('DECR', from) end
return 1
`;

/**
 * Spec 8: the first instance of an account, while on its free trial (`billingStatus`
 * `trialing`), sends at most 300 messages per UTC day. A send counts when accepted (immediate
 * or queued); an immediate send that fails gives its unit back.
 *
 * `charge` names what one unit pays for, and a charge is taken once: taking it again finds the
 * unit and takes nothing. A queued send's charge is its queue item (the queue id; under an
 * Idempotency-Key derived from the run's `origin`, so an enqueue retried by a takeover after its
 * gateway died finds both the item and its unit). The unit is taken at the enqueue and nowhere
 * else: the worker never charges, so a worker killed mid-send, a retried activity or an item sent
 * again after the number came back count nothing more — once per item. An immediate send's charge
 * is its Idempotency-Key run (`origin`): a run taken over finds the unit its first attempt took
 * (the chaos bench's retries counted twice). Without a charge each call takes a unit.
 *
 * A charge remembers the day's count it was taken from: giving it back (queue_full, a failed
 * immediate send) returns the unit to that day, also past midnight.
 */
export class TrialLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly limit = TRIAL_DAILY_MESSAGES,
  ) {}

  applies(instance: Pick<Instance, "billingStatus">): boolean {
    return instance.billingStatus === "trialing";
  }

  private key(instanceId: string, now: Date) {
    return this.k.trialCount(instanceId, now.toISOString().slice(0, 10));
  }

  /**
   * Takes one message of today's allowance (once per `charge`), or `429 trial_limit_reached`
   * (Retry-After: next UTC midnight). Answers the function that gives it back.
   */
  async take(
    instance: Pick<Instance, "id" | "billingStatus">,
    { now = new Date(), charge }: { now?: Date; charge?: string | undefined } = {},
  ): Promise<(() => Promise<void>) | null> {
    if (!this.applies(instance)) return null;
    const key = this.key(instance.id, now);
    const keys = charge ? [key, this.k.trialCharge(instance.id, charge)] : [key];
    const [n] = (await this.redis.eval(TAKE, keys.length, ...keys, this.limit, COUNT_TTL_MS, TRIAL_CHARGE_TTL_MS)) as [
      number,
      string,
    ];
    if (n < 0) {
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      throw new ApiError(
        "trial_limit_reached",
        `Limite de ${this.limit} mensagens por dia do período de teste atingido.`,
        undefined,
        Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)),
      );
    }
    return async () => {
      await this.redis.eval(GIVE_BACK, keys.length, ...keys);
    };
  }
}
