// Contacts (Api::V1::Accounts::ContactsController and Contacts::ConversationsController): search,
// create with its contact inbox, show, and a contact's conversations.
import type { FastifyInstance } from "fastify";
import { access, idParam } from "./auth.ts";
import { ChatwootError, notFound, recordInvalid } from "./errors.ts";
import { castBoolean } from "./message-input.ts";
import { conversationView } from "./message-views.ts";
import type { Contact, Obj } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import { contactView, inboxRecord } from "./views.ts";

const PER_PAGE = 15;
const base = "/api/v1/accounts/:accountId/contacts";
const str = (v: unknown): string | null =>
  v === undefined || v === null || v === "" ? null : String(v).trim() || null;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** Contact's validations, in the order Chatwoot declares them (their messages joined in that order). */
function validate(state: ChatwootMockState, c: Omit<Contact, "id">): void {
  const others = [...state.contacts.values()].filter((o) => o.accountId === c.accountId);
  const errors: { attribute: string; message: string }[] = [];
  if (c.email && others.some((o) => o.email?.toLowerCase() === c.email)) {
    errors.push({ attribute: "email", message: "Email has already been taken" });
  }
  if (c.email && !/^[^@\s]+@[^@\s]+$/.test(c.email))
    errors.push({ attribute: "email", message: "Email Invalid email" });
  if (c.identifier && others.some((o) => o.identifier === c.identifier)) {
    errors.push({ attribute: "identifier", message: "Identifier has already been taken" });
  }
  if (c.phoneNumber && others.some((o) => o.phoneNumber === c.phoneNumber)) {
    errors.push({ attribute: "phone_number", message: "Phone number has already been taken" });
  }
  // Chatwoot's /\+[1-9]\d{1,14}\z/ is not anchored at the start; the mock holds callers to real E.164.
  if (c.phoneNumber && !/^\+[1-9]\d{1,14}$/.test(c.phoneNumber)) {
    errors.push({ attribute: "phone_number", message: "Phone number should be in e164 format" });
  }
  if (errors.length) throw recordInvalid(errors);
}

function ofAccount(state: ChatwootMockState, accountId: number, id: number): Contact {
  const c = state.contacts.get(id);
  if (!c || c.accountId !== accountId) throw notFound();
  return c;
}

export function registerContacts(app: FastifyInstance, state: ChatwootMockState): void {
  app.get(`${base}/search`, async (req) => {
    const { account } = access(state, req);
    const query = req.query as Record<string, string | undefined>;
    const q = (query.q ?? "").trim();
    if (!q) throw new ChatwootError(422, { error: "Specify search string with parameter q" });
    // ILIKE on name, email and phone number (so "5511…" finds "+5511…"), LIKE on identifier, = on id.
    const needle = q.toLowerCase();
    const has = (v: string | null) => v?.toLowerCase().includes(needle) ?? false;
    const matches = [...state.contacts.values()].filter(
      (c) =>
        c.accountId === account.id &&
        (has(c.name) ||
          has(c.email) ||
          has(c.phoneNumber) ||
          (c.identifier?.includes(q) ?? false) ||
          (/^\d+$/.test(q) && c.id === Number(q))),
    );
    // `current_page` is the `page` parameter as given (a string), or the integer 1.
    const currentPage: string | number = query.page ?? 1;
    const page = Math.max(1, Number.parseInt(String(currentPage), 10) || 1);
    const slice = matches.slice((page - 1) * PER_PAGE, page * PER_PAGE + 1);
    const results = slice.slice(0, PER_PAGE);
    const withInboxes = query.include_contact_inboxes === undefined || query.include_contact_inboxes === "true";
    return {
      meta: { count: results.length, current_page: currentPage, has_more: slice.length > PER_PAGE },
      payload: results.map((c) => contactView(state, c, withInboxes)),
    };
  });

  app.post(base, async (req) => {
    const { account } = access(state, req);
    const b = obj(req.body);
    const now = new Date();
    const draft: Omit<Contact, "id"> = {
      accountId: account.id,
      name: str(b.name) ?? "",
      email: str(b.email)?.toLowerCase() ?? null,
      phoneNumber: str(b.phone_number),
      identifier: str(b.identifier),
      // Chatwoot downloads `avatar_url` in a job and links its own copy; the mock links the URL given.
      avatarUrl: str(b.avatar_url),
      additionalAttributes: obj(b.additional_attributes),
      customAttributes: obj(b.custom_attributes),
      blocked: castBoolean(b.blocked ?? false),
      createdAt: now,
      updatedAt: now,
      lastActivityAt: null,
    };
    validate(state, draft);
    // The contact inbox is built in the same transaction: an unknown inbox rolls the contact back.
    const inboxId = str(b.inbox_id);
    const inbox = inboxId === null ? null : state.inboxes.get(Number(inboxId));
    if (inboxId !== null && (!inbox || inbox.accountId !== account.id)) throw notFound();
    const contact: Contact = { id: state.next("contact"), ...draft };
    state.contacts.set(contact.id, contact);
    const ci = inbox ? state.contactInbox(contact.id, inbox.id, str(b.source_id) ?? undefined) : null;
    return {
      payload: {
        contact: contactView(state, contact, true),
        contact_inbox: { inbox: inbox ? inboxRecord(inbox) : null, source_id: ci?.sourceId ?? null },
      },
    };
  });

  app.get(`${base}/:id`, async (req) => {
    const { account } = access(state, req);
    return { payload: contactView(state, ofAccount(state, account.id, idParam(req, "id")), true) };
  });

  app.get(`${base}/:id/conversations`, async (req) => {
    const { account } = access(state, req);
    const contact = ofAccount(state, account.id, idParam(req, "id"));
    const conversations = [...state.conversations.values()]
      .filter((c) => c.contactId === contact.id)
      .sort((a, b) => b.lastActivityAt.getTime() - a.lastActivityAt.getTime() || b.key - a.key)
      .slice(0, 20);
    return { payload: conversations.map((c) => conversationView(state, c)) };
  });
}
