import { ApiError, type Instance } from "@gw/contracts";
import type { Keys } from "@gw/platform";
import type { Redis } from "ioredis";

export const TRIAL_DAILY_MESSAGES = 300;

const TAKE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], 172800000) end
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return -1 end
return n
`;

/**
 * Spec 8: the first instance of an account, while on its free trial (`billingStatus`
 * `trialing`), sends at most 300 messages per UTC day. A send counts when accepted (immediate
 * or queued); an immediate send that fails gives its unit back.
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

  /** Takes one message of today's allowance, or `429 trial_limit_reached` (Retry-After: next UTC midnight). */
  async take(
    instance: Pick<Instance, "id" | "billingStatus">,
    now = new Date(),
  ): Promise<(() => Promise<void>) | null> {
    if (!this.applies(instance)) return null;
    const key = this.key(instance.id, now);
    const n = (await this.redis.eval(TAKE, 1, key, this.limit)) as number;
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
      await this.redis.decr(key);
    };
  }
}
