import type { HelpdeskApp, Platform } from "@gw/platform";
import type { ChatwootClient, CwContact } from "./chatwoot.ts";

/** Where a chat's messages go in the help desk: its contact and its current conversation. */
export interface Place {
  contactId: number;
  conversationId: number;
}

export interface ChatParty {
  chatId: string;
  /** The name to give a contact made for this chat. */
  name: string;
  /** The customer's message: Chatwoot itself reopens a resolved conversation for one. */
  incoming: boolean;
}

/** `+<digits>` for a chat that is a number; null for groups and privacy ids (they have none to show). */
export function phoneOf(chatId: string): string | null {
  const m = /^(\d{6,20})@(c\.us|s\.whatsapp\.net)$/.exec(chatId) ?? /^(\d{6,20})$/.exec(chatId);
  return m ? `+${m[1]}` : null;
}

/**
 * The chat's contact (found by our chat id as its `identifier`, else by phone, else made) and the
 * conversation to write in: the inbox's open one, else the last resolved one reopened
 * (`reopenResolved`), else a new one. The contact is remembered; the conversation is asked for on
 * every message, because agents resolve conversations in the help desk without telling us —
 * except for the customer's messages when resolved ones are to be reopened: Chatwoot reopens the
 * conversation an incoming message lands in, so the one known is right (half the calls).
 */
export async function placeOf(
  platform: Pick<Platform, "redis" | "keys">,
  app: HelpdeskApp,
  client: ChatwootClient,
  party: ChatParty,
): Promise<Place> {
  const key = platform.keys.helpdeskChat(app.id, party.chatId);
  const known = await platform.redis.hgetall(key);
  let contactId = Number(known.contactId) || 0;
  let sourceId = known.sourceId || null;
  if (contactId && known.conversationId && party.incoming && app.config.reopenResolved) {
    return { contactId, conversationId: Number(known.conversationId) };
  }
  if (!contactId) {
    ({ contactId, sourceId } = await contactFor(client, party));
    await platform.redis.hset(key, { contactId, sourceId: sourceId ?? "" });
  }
  const conversations = (await client.conversationsOf(contactId)).sort((a, b) => b.id - a.id);
  let conversation = conversations.find((c) => c.status !== "resolved");
  if (!conversation && app.config.reopenResolved && conversations[0]) {
    conversation = conversations[0];
    await client.reopen(conversation.id);
  }
  conversation ??= await client.createConversation(contactId, sourceId);
  if (String(conversation.id) !== known.conversationId) {
    await platform.redis.hset(key, { conversationId: conversation.id });
    await platform.redis.set(platform.keys.helpdeskConversation(app.id, conversation.id), party.chatId);
  }
  return { contactId, conversationId: conversation.id };
}

async function contactFor(client: ChatwootClient, party: ChatParty) {
  const phone = phoneOf(party.chatId);
  const matches = (c: CwContact) =>
    c.identifier === party.chatId || (phone !== null && c.phone_number?.replace(/\s/g, "") === phone);
  const found = (await client.searchContacts(phone ?? party.chatId)).find(matches);
  if (found) return { contactId: found.id, sourceId: null };
  const made = await client.createContact({
    name: party.name,
    identifier: party.chatId,
    ...(phone ? { phone_number: phone } : {}),
  });
  return { contactId: made.contact.id, sourceId: made.sourceId };
}
