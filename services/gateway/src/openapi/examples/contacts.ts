import { instanceExamples } from "./define.ts";
import { avatarLink, HIDDEN_LID, MARIA, NOW_S } from "./samples.ts";

const contact = (p: { id: string; phone: string; lid: string | null; pushName: string }, name: string | null) => ({
  id: p.id,
  phone: p.phone,
  lid: p.lid,
  pushName: p.pushName,
  name,
  blocked: false,
  picture: avatarLink(p.id),
});
const SPAM = {
  id: "5511955554444@c.us",
  phone: "5511955554444",
  lid: "140377295515812@lid",
  pushName: "Promoções 24h",
};

const noAccount = { message: "Contato não encontrado: o número não tem conta na rede." };
const withNotFound = { not_found: noAccount };

/** Spec 4.14 contacts (routers/contacts.ts; test/e2e/contacts.test.ts; docs/contacts.md). */
export const contactsExamples = instanceExamples({
  listContacts: {
    query: { limit: 50, offset: 0, sortBy: "name", sortOrder: "asc", search: "souza" },
    errors: { validation_error: { message: "Campos inválidos.", details: { sortBy: "sortBy: name ou id" } } },
    response: [contact(MARIA, "Maria Souza (cliente)")],
  },
  countContacts: { response: { count: 312 } },
  checkExists: {
    summary: "An older Brazilian mobile, registered without the ninth digit: `chatId` is the form the network knows",
    query: { phone: "5531988776655" },
    response: { exists: true, chatId: "553188776655@c.us", lid: "58320174496231@lid" },
  },
  listBlocked: { response: [{ ...contact(SPAM, null), blocked: true }] },
  getContact: {
    response: contact(MARIA, "Maria Souza (cliente)"),
    errors: withNotFound,
  },
  contactPicture: {
    query: { refresh: false },
    response: { url: avatarLink(MARIA.id) },
    errors: { not_found: { message: "Contato sem foto visível." } },
  },
  contactAbout: {
    path: { contactId: MARIA.phone },
    response: { id: MARIA.id, about: "Disponível", setAt: NOW_S - 40 * 86_400 },
    errors: withNotFound,
  },
  blockContact: { path: { contactId: SPAM.id }, response: { success: true }, errors: withNotFound },
  unblockContact: { path: { contactId: HIDDEN_LID }, response: { success: true }, errors: withNotFound },
});
