import { z } from "zod";
import type { Capability } from "../capability.ts";
import { normalizePersonId } from "../chat-id.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { defineOps } from "../ops.ts";
import { pageLimitSchema, pageOffsetSchema } from "../paging.ts";

/**
 * Contacts (spec 4.14 "contacts (address book, number check, profile picture)"; the shapes are ours,
 * docs/contacts.md): the contact record, the address book the network syncs to the instance (kept
 * as provider records, read by the gateway), the session operations and the routes' capabilities.
 * A contact is always `{id, phone, lid, pushName}` (spec 2.11) plus the address book's `name`.
 */

// --- ids -------------------------------------------------------------------------------------

/** A person: a number (8–15 digits, `+`, spaces and dashes allowed), `<digits>@c.us` or `<id>@lid`. */
export const contactIdSchema = documented(
  z
    .string("informe o contato")
    .max(200, "id de contato longo demais")
    .transform((s, ctx) => {
      const id = normalizePersonId(s);
      if (!id) {
        ctx.addIssue({
          code: "custom",
          message: "contato inválido: use o número com DDI e DDD, <número>@c.us ou <id>@lid",
        });
        return z.NEVER;
      }
      return id;
    }),
  { pattern: DOC_PATTERNS.person },
  { description: "A number with country and area code, `<digits>@c.us` or `<id>@lid`" },
);

// --- records ----------------------------------------------------------------------------------

export const contactSchema = z
  .object({
    id: z.string().meta({ description: "`<digits>@c.us`; `<id>@lid` only while the number behind it is unknown" }),
    phone: z.string().meta({ description: "Digits with country code; empty while unknown" }),
    lid: z.string().nullable().meta({ description: "The privacy id (spec 1 rule 4), when known" }),
    pushName: z.string().meta({ description: "The name the person set on their profile (empty when unknown)" }),
    name: z
      .string()
      .nullable()
      .meta({ description: "The name saved in the account's address book; null when not saved (or storage is off)" }),
    blocked: z.boolean().meta({ description: "This account blocked the contact" }),
    picture: z.string().meta({ description: "Signed link of the profile picture (404 while none is visible)" }),
  })
  .meta({ id: "Contact" });
export type Contact = z.infer<typeof contactSchema>;

export const contactAboutSchema = z
  .object({
    id: z.string(),
    about: z.string().nullable().meta({ description: "The contact's about text; null when none or not visible" }),
    setAt: z.number().int().nullable().meta({ description: "When it was set (unix seconds), when known" }),
  })
  .meta({ id: "ContactAbout" });
export type ContactAbout = z.infer<typeof contactAboutSchema>;

/**
 * The address book as the network syncs it to the instance (the phone's saved contacts), kept by the
 * provider in its records (`ctx.records`) and read by the gateway: one JSON entry per person, keyed by
 * the id the network gave (`<digits>@c.us`, or `<id>@lid` while the number is unknown).
 */
export const ADDRESS_BOOK_RECORD = "contacts";
/** Who this account blocked, as the network last said: field = id (`@c.us` or `@lid`), value `1`. */
export const BLOCKLIST_RECORD = "blocklist";

export const addressBookEntrySchema = z.object({
  id: z.string(),
  phone: z.string(),
  lid: z.string().nullable(),
  pushName: z.string(),
  name: z.string(),
});
export type AddressBookEntry = z.infer<typeof addressBookEntrySchema>;

// --- queries ----------------------------------------------------------------------------------

export const CONTACTS_PAGE_DEFAULT = 100;
export const CONTACTS_PAGE_MAX = 500;

export const listContactsQuery = z.object({
  limit: pageLimitSchema(CONTACTS_PAGE_MAX, CONTACTS_PAGE_DEFAULT),
  offset: pageOffsetSchema,
  sortBy: z.enum(["name", "id"], "sortBy: name ou id").default("name"),
  sortOrder: z.enum(["asc", "desc"], "sortOrder: asc ou desc").default("asc"),
  search: z
    .string()
    .trim()
    .min(1, "search: informe ao menos 1 caractere")
    .max(100, "search vai até 100 caracteres")
    .optional()
    .meta({ description: "Part of the saved name, the profile name or the number (case and accents ignored)" }),
});

// --- session operations ----------------------------------------------------------------------

/** What the network says of a person now (the gateway adds the address book's name and the picture link). */
export const contactFactsSchema = z.object({
  id: z.string(),
  phone: z.string(),
  lid: z.string().nullable(),
  pushName: z.string(),
  blocked: z.boolean(),
});
export type ContactFacts = z.infer<typeof contactFactsSchema>;

const byContact = z.object({ contactId: z.string() });

export const contactsOps = defineOps({
  /** The person behind an id (`not_found` when the network has no such account). */
  "contacts.get": { input: byContact, output: contactFactsSchema },
  "contacts.about": { input: byContact, output: contactAboutSchema.omit({ id: true }) },
  "contacts.block": {
    input: byContact.extend({ block: z.boolean() }),
    output: z.object({ success: z.literal(true) }),
  },
  /** Everyone this account blocked, as the network says now. */
  "contacts.blocklist": { input: z.object({}), output: z.array(contactFactsSchema) },
});

// --- capabilities ----------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };
export const contactsCapabilities: Record<string, Capability> = {
  "GET /contacts": standard,
  "GET /contacts/count": standard,
  "GET /contacts/check-exists": standard,
  "GET /contacts/blocklist": standard,
  "GET /contacts/{contactId}": standard,
  "GET /contacts/{contactId}/picture": standard,
  "GET /contacts/{contactId}/about": standard,
  "POST /contacts/{contactId}/block": standard,
  "POST /contacts/{contactId}/unblock": standard,
};
