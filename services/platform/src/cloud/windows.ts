import { brazilianMobileAlternate } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";

/** Spec 1 (kind table): outside 24 h since the customer's last message, only templates may be sent. */
export const CONVERSATION_WINDOW_S = 24 * 3600;

/**
 * KEYS: the chat's window. ARGV: unix s of the message, its id, now (unix s). Kept only when newer
 * than what is there (the operator's webhooks arrive out of order); expires when the window closes.
 */
const NOTE = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local at = tonumber(string.match(cur, '^(%d+)|'))
  if at and at >= tonumber(ARGV[1]) then return 0 end
end
local ttl = tonumber(ARGV[1]) + ${CONVERSATION_WINDOW_S} - tonumber(ARGV[3])
if ttl <= 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'EX', ttl)
return 1`;

/**
 * The conversation window of official-gateway chats: the customer's last message (its time and
 * id), known per chat from the inbound webhooks, gone when 24 h have passed. Sends outside it
 * are refused before the operator is called; the typing indicator answers that last message.
 */
export class ConversationWindows {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
  ) {}

  async note(instanceId: string, chatId: string, at: number, messageId: string, now = Date.now()): Promise<void> {
    await this.redis.eval(NOTE, 1, this.k.cloudWindow(instanceId, chatId), at, messageId, Math.floor(now / 1000));
  }

  /**
   * The customer's last message while the window is open, else null. A Brazilian mobile chat is
   * looked up in both forms (spec 1 rule 2): the window is kept under the number the operator
   * registered (its `wa_id`, which may lack the ninth digit or have it), while a send names the
   * number as typed; the newer of the two counts.
   */
  async lastInbound(instanceId: string, chatId: string): Promise<{ at: number; id: string } | null> {
    const m = /^(\d+)@c\.us$/.exec(chatId);
    const other = m ? brazilianMobileAlternate(m[1]!) : null;
    const keys = [chatId, ...(other ? [`${other}@c.us`] : [])].map((c) => this.k.cloudWindow(instanceId, c));
    let last: { at: number; id: string } | null = null;
    for (const v of await this.redis.mget(...keys)) {
      const found = v ? /^(\d+)\|(.+)$/.exec(v) : null;
      if (found && (!last || Number(found[1]) > last.at)) last = { at: Number(found[1]), id: found[2]! };
    }
    return last;
  }
}
