import { type ApiError, invalid } from "@gw/contracts";
import type { WAMessage, WAMessageKey, WAUrlInfo } from "@whiskeysockets/baileys";

/**
 * What the outbound mapping (outbound.ts) asks of the session, and the one way the mapping and
 * its parts (outbound-options.ts, outbound-media.ts) refuse a field: below all three, so none
 * imports another back.
 */

/** What the mapping asks of the session: our account, stored messages, group participants, thumbnails. */
export interface OutboundContext {
  /** Our account (`creds.me`): excluded from `mentions: ["all"]`. */
  me?: { id?: string | null; lid?: string | null };
  /**
   * The stored message for a key, or undefined when unknown. Keys parsed from a bare id carry only
   * `remoteJid` and `id`. The gateway stores no messages yet, so today this answers undefined.
   */
  loadMessage(key: WAMessageKey): Promise<WAMessage | undefined>;
  /**
   * The JIDs of this send's conversation (the chat as asked, and the address it goes to: LID or
   * number, addressing.ts): a stored message keyed by either is rekeyed to the destination, so a
   * quote does not show as from another chat and a reaction or edit names the right message.
   */
  conversation?: string[];
  /** The LID of a number (`<digits>@s.whatsapp.net` → `<id>@lid`) when known: status audiences. */
  lidOf?(pnJid: string): Promise<string | null>;
  /** Participant JIDs of a group (as the group addresses them: PN or LID), for `mentions: ["all"]`. */
  groupParticipants(groupJid: string): Promise<string[]>;
  /** JPEG thumbnail of a link preview image; default Baileys' `extractImageThumb` at 192 px (sharp). */
  thumbnail?(image: Buffer): Promise<Buffer>;
  /**
   * The preview of a text's first link (link-preview.ts: fetched through the URL guard, bounded in
   * time and size), or undefined for none. Without it, texts with a link go without a preview.
   */
  linkPreview?(text: string): Promise<WAUrlInfo | undefined>;
}

/** `invalid` with the field and its problem in the message too (Baileys' mapping names one field at a time). */
export function invalidField(field: string, text: string): ApiError {
  return invalid(field, text, `Campo inválido: ${field} (${text}).`);
}
