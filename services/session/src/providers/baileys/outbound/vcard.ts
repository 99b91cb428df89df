// Contacts as WhatsApp's vCards (outbound.ts: the `contacts` content).

/** vCard 3.0 text value: backslash, comma, semicolon and newlines escaped (RFC 2426 §4). */
export function escapeVCardText(value: string): string {
  return value
    .replace(/\\/g, "\\\\")
    .replace(/\r\n|\r|\n/g, "\\n")
    .replace(/,/g, "\\,")
    .replace(/;/g, "\\;");
}

export interface VCardContact {
  fullName: string;
  phoneNumber: string;
  organization?: string;
  whatsappId?: string;
}

/**
 * One contact as WhatsApp's vCard: `FN`, `N`, `ORG` and a `TEL` with `waid=<digits>` so the phone
 * shows the "message" button (README "Contact Message"). `waid` comes from `whatsappId`, else
 * from the phone number's digits.
 */
export function buildVCard(c: VCardContact): string {
  const waid = (c.whatsappId?.split("@")[0] ?? "").replace(/\D/g, "") || c.phoneNumber.replace(/\D/g, "");
  // TEL is not a text value in vCard 3.0: no escaping, but no line breaks or parameter syntax either.
  const tel = c.phoneNumber
    .replace(/[\r\n;:]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const lines = [
    "BEGIN:VCARD",
    "VERSION:3.0",
    `N:;${escapeVCardText(c.fullName)};;;`,
    `FN:${escapeVCardText(c.fullName)}`,
  ];
  if (c.organization) lines.push(`ORG:${escapeVCardText(c.organization)};`);
  lines.push(waid ? `TEL;type=CELL;type=VOICE;waid=${waid}:${tel}` : `TEL;type=CELL;type=VOICE:${tel}`);
  lines.push("END:VCARD");
  return lines.join("\n");
}
