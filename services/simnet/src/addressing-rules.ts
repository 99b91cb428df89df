// How the real network treats the address a message is sent to (docs/simnet.md "Addressing"),
// as reported from the field (reference "LID addressing in the field"): the rules simnet applies,
// and the Baileys provider's tests feed to its socket, so both are held to the same behaviour.

/**
 * How an account's one-to-one conversations are addressed: `lid`, moved to privacy ids (a message
 * to its number is accepted, then refused: Baileys#2683, #2698); `pn`, still on its number (a
 * message to its LID is refused: FelixIsaac/whatsapp-mcp-extended#67); `any`, both delivered
 * (simnet's default, which the rest of the suite relies on).
 */
export type AccountAddressing = "any" | "lid" | "pn";
export const ACCOUNT_ADDRESSING = ["any", "lid", "pn"] as const;

/** The network's ack error codes (Baileys `SERVER_ERROR_CODES`). */
export const ERROR_ADDRESS_REFUSED = 463;
export const ERROR_STATUS_ADDRESSING = 479;

export interface RecipientRules {
  addressing: AccountAddressing;
  /** Refuses first contact: a number it never wrote to gets 463 (the reach-out timelock, Baileys#2653). */
  refusesFirstContact: boolean;
}

const NOTES: Record<number, string> = {
  [ERROR_ADDRESS_REFUSED]: "message refused for this address (no privacy token: wrong address form or first contact)",
  [ERROR_STATUS_ADDRESSING]: "smax-invalid: stanza rejected (status audience addressed by number from a LID account)",
};

export const errorNote = (code: number) => NOTES[code] ?? "refused";

/**
 * The ack error a one-to-one message gets after it was accepted, or null when it is delivered:
 * sent to `addressedBy` (the form of the address used) to `recipient`, who wrote to the sender
 * before (`repliedBefore`) or not.
 */
export function oneToOneVerdict(
  recipient: RecipientRules,
  addressedBy: "lid" | "pn",
  repliedBefore: boolean,
): number | null {
  if (recipient.refusesFirstContact && !repliedBefore) return ERROR_ADDRESS_REFUSED;
  if (recipient.addressing === "lid" && addressedBy === "pn") return ERROR_ADDRESS_REFUSED;
  if (recipient.addressing === "pn" && addressedBy === "lid") return ERROR_ADDRESS_REFUSED;
  return null;
}

/**
 * A status post's ack error, or null: an account moved to LID that names its audience by number is
 * refused (Baileys#2794). `audience` as sent (`@lid`, `@c.us`, `@s.whatsapp.net`, digits).
 */
export function statusVerdict(sender: { addressing: AccountAddressing }, audience: readonly string[]): number | null {
  return sender.addressing === "lid" && audience.some((a) => !a.endsWith("@lid")) ? ERROR_STATUS_ADDRESSING : null;
}

/** The form of an address: `<id>@lid` is a LID; a number in any spelling is a PN. */
export const addressForm = (to: string): "lid" | "pn" => (to.endsWith("@lid") ? "lid" : "pn");
