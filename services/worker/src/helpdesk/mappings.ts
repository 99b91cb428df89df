import { parseMessageId } from "@gw/contracts";
import type { Platform } from "@gw/platform";

/** As long as our messages are kept: a reaction or revocation later than that finds nothing to name. */
const MAPPING_TTL_S = 7 * 86_400;

type Store = Pick<Platform, "redis" | "keys">;

/** A message's network id (the part of `{fromMe}_{chatId}_{id}` that stays when the chat's id changes form). */
export const networkIdOf = (apiId: string) => parseMessageId(apiId)?.id ?? apiId;

/**
 * Our message (or event, for reactions and edits) → its help-desk message, written once Chatwoot
 * answered or an agent's reply was sent: what makes each of ours exactly one of theirs, and what
 * keeps an agent's reply from coming back as the account's message.
 */
export const helpdeskMappings = (platform: Store, appId: string) => ({
  has: async (key: string) => (await platform.redis.exists(platform.keys.helpdeskMessage(appId, key))) === 1,
  set: (key: string, value: { conversationId: number; messageId: number } | "revoked") =>
    platform.redis.set(
      platform.keys.helpdeskMessage(appId, key),
      value === "revoked" ? value : `${value.conversationId} ${value.messageId}`,
      "EX",
      MAPPING_TTL_S,
    ),
  /** The help-desk message of one of ours (an api id or a network id), if relayed. */
  async of(apiId: string): Promise<{ conversationId: number; messageId: number } | null> {
    const found = await platform.redis.get(platform.keys.helpdeskMessage(appId, networkIdOf(apiId)));
    const [conversationId, messageId] = (found ?? "").split(" ").map(Number);
    return conversationId && messageId ? { conversationId, messageId } : null;
  },
});
