import type { Redis } from "ioredis";
import type { Keys } from "./keys.ts";

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

  /** The customer's last message while the window is open, else null. */
  async lastInbound(instanceId: string, chatId: string): Promise<{ at: number; id: string } | null> {
    const v = await this.redis.get(this.k.cloudWindow(instanceId, chatId));
    const m = v ? /^(\d+)\|(.+)$/.exec(v) : null;
    return m ? { at: Number(m[1]), id: m[2]! } : null;
  }
}
