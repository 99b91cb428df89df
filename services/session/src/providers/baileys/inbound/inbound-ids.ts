import type { InboundParty } from "@gw/contracts";
import { areJidsSameUser, jidDecode, type WAMessage, type WAMessageKey } from "@whiskeysockets/baileys";

// Baileys JIDs → the contract's ids (inbound.ts, reference §3): a user is known by its phone
// number (PN) and its privacy id (LID); ids come out as `<digits>@c.us` whenever the number is known.

export interface InboundLookups {
  /** Our account (`creds.me`): `from` of our own messages, and who created / voted in polls. */
  me?: { id?: string | null; lid?: string | null; name?: string | null } | null;
  /** The PN JID behind a LID, from Baileys' local mapping store (`lidMapping.getPNForLID`); null when unknown. */
  pnForLid?(lidJid: string): Promise<string | null>;
  /** A stored message by network id (poll votes need the poll's secret). */
  loadMessage?(id: string): Promise<WAMessage | undefined>;
  /** The conversation's name: group subject, contact name. Null when unknown. */
  chatName?(chat: { jid: string; pn: string | null; lid: string | null; isGroup: boolean }): Promise<string | null>;
  /** Told when a poll vote or event response could not be decrypted (diagnostics only). */
  onUndecrypted?(reason: string, key: WAMessageKey): void;
}

export interface Jids {
  /** `<digits>@s.whatsapp.net`, without device. */
  pn: string | null;
  /** `<id>@lid`, without device. */
  lid: string | null;
  /** Anything else (group, newsletter, bot), normalized. */
  other: string | null;
}

function decode(jid: string | null | undefined): { user: string; server: string } | null {
  if (!jid) return null;
  const d = jidDecode(jid);
  if (!d?.user) return null;
  return { user: d.user, server: d.server };
}

function pnJid(jid: string | null | undefined): string | null {
  const d = decode(jid);
  if (!d) return null;
  return d.server === "s.whatsapp.net" || d.server === "c.us" || d.server === "hosted"
    ? `${d.user}@s.whatsapp.net`
    : null;
}

function lidJid(jid: string | null | undefined): string | null {
  const d = decode(jid);
  if (!d) return null;
  return d.server === "lid" || d.server === "hosted.lid" ? `${d.user}@lid` : null;
}

export const toCus = (pn: string) => `${pn.split("@")[0]}@c.us`;
const digitsOf = (pn: string) => pn.split("@")[0]!;

/** The PN / LID pair of a user JID and its alternative, asking the LID store when the number is not in the message. */
export async function resolveUser(
  jid: string | null | undefined,
  alt: string | null | undefined,
  lookups: InboundLookups,
): Promise<Jids> {
  const pn = pnJid(jid) ?? pnJid(alt);
  const lid = lidJid(jid) ?? lidJid(alt);
  let resolved = pn;
  if (!resolved && lid && lookups.pnForLid) {
    try {
      resolved = pnJid(await lookups.pnForLid(lid));
    } catch {
      resolved = null;
    }
  }
  const other = !pn && !lid && jid ? jid : null;
  return { pn: resolved, lid, other };
}

export function partyOf(j: Jids, pushName: string | null): InboundParty {
  return {
    id: j.pn ? toCus(j.pn) : (j.lid ?? j.other ?? ""),
    phone: j.pn ? digitsOf(j.pn) : null,
    lid: j.lid,
    pushName,
  };
}

export function isMe(jid: string | null | undefined, lookups: InboundLookups): boolean {
  if (!jid) return false;
  const me = lookups.me;
  return Boolean((me?.id && areJidsSameUser(jid, me.id)) || (me?.lid && areJidsSameUser(jid, me.lid)));
}

export function meJids(lookups: InboundLookups): Jids {
  return { pn: pnJid(lookups.me?.id), lid: lidJid(lookups.me?.lid), other: null };
}
