import { ApiError, isBrazilianMobile } from "@gw/contracts";
import type { SessionApi } from "@gw/session";

const TTL_MS = 60 * 60_000;
const MAX_ENTRIES = 100_000;

/**
 * Spec 1 rule 2: the ninth digit of Brazilian numbers is resolved when sending, through the
 * network's number check. Answers are kept an hour per process (a number's registered form
 * does not change); a number without an account is `network_rejected` at once.
 */
export class ChatResolver {
  private readonly cache = new Map<string, { chatId: string; until: number }>();

  async resolve(owner: SessionApi, instanceId: string, chatId: string): Promise<string> {
    const m = /^(\d+)@c\.us$/.exec(chatId);
    if (!m || !isBrazilianMobile(m[1]!)) return chatId;
    const digits = m[1]!;
    const hit = this.cache.get(digits);
    if (hit && hit.until > Date.now()) return hit.chatId;
    const found = await owner.checkExists(instanceId, digits);
    if (!found.exists || !found.chatId) {
      throw new ApiError("network_rejected", "O número não tem conta na rede de mensagens.", {
        chatId: "número sem conta na rede",
      });
    }
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(digits, { chatId: found.chatId, until: Date.now() + TTL_MS });
    return found.chatId;
  }
}
