/**
 * The operator's ids as the gateway shows them.
 *
 * Messages: a `wamid.<base64>` id is kept, with `+` and `/` written `-` and `~` (neither is in
 * base64), so that it fits the spec's message id `{fromMe}_{chatId}_{id}` and a URL path without
 * escaping; `-` and `~` are turned back before the operator is called.
 *
 * Chats: a number is `<digits>@c.us`; a user who has a username and no visible number is known
 * only by the business-scoped id the operator gives (`US.1349…`): `<bsuid>@bsuid` (spec 1).
 */
export function networkIdOf(wamid: string): string {
  return wamid.replace(/\+/g, "-").replace(/\//g, "~");
}

export function wamidOf(networkId: string): string {
  return networkId.replace(/-/g, "+").replace(/~/g, "/");
}

/** The chat of a customer: by number when the operator shows it, else by BSUID. */
export function chatOfUser(waId: string | null | undefined, userId: string | null | undefined): string | null {
  if (waId && /^\d{6,20}$/.test(waId)) return `${waId}@c.us`;
  if (userId) return `${userId}@bsuid`;
  return null;
}

/** What the operator's `to` / `recipient` take for a chat id. */
export function recipientOf(chatId: string): { to: string } | { recipient: string } {
  if (chatId.endsWith("@bsuid")) return { recipient: chatId.slice(0, -"@bsuid".length) };
  return { to: chatId.split("@")[0]! };
}
