// Labels on the simulated network (spec 4.7; docs/simnet.md "Labels"): each business account's
// labels and the chats they tag, changed by a linked device (wire operations) or by the phone
// (control API) the same way, and announced to every device of the account — the network syncs
// labels to all devices, including the one that made the change.
import { SimnetError } from "../errors.ts";
import { nowSeconds, phoneDigits } from "../ids.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";

/** How many colors the network's palette has (indices 0–19). */
export const PALETTE_SIZE = 20;

export interface SimLabel {
  id: string;
  name: string;
  color: number;
  /** The network's built-in labels of a new business account (1–5), else null. */
  predefinedId: number | null;
  /** Chat keys: `<phone>@c.us` for people, the group id for groups; in tagging order. */
  chats: Set<string>;
}

export interface LabelBook {
  labels: Map<string, SimLabel>;
  /** The highest id ever given: ids are never reused. */
  lastId: number;
}

interface LabelsMemory {
  books: Map<string, LabelBook>;
  /** Accounts that are personal (not business): every label operation is refused. */
  personal: Set<string>;
}

const memory = (state: SimnetState) =>
  state.area<LabelsMemory>("labels", () => ({ books: new Map(), personal: new Set() }));

/**
 * The labels a new business account starts with, as a Brazilian phone shows them (the network's
 * predefined labels; their colors are simnet's choice).
 */
const PREDEFINED = ["Novo cliente", "Novo pedido", "Pagamento pendente", "Pago", "Pedido finalizado"];

export function isBusiness(state: SimnetState, acc: Account): boolean {
  return !memory(state).personal.has(acc.phone);
}

export function setBusiness(state: SimnetState, acc: Account, business: boolean): void {
  if (business) memory(state).personal.delete(acc.phone);
  else memory(state).personal.add(acc.phone);
}

/** The account's labels; refused for personal accounts, as the network keeps labels for business ones. */
export function bookOf(state: SimnetState, acc: Account): LabelBook {
  if (!isBusiness(state, acc)) {
    throw new SimnetError("not_business", `${acc.phone} is a personal account: labels need a business account`);
  }
  const books = memory(state).books;
  let book = books.get(acc.phone);
  if (!book) {
    book = { labels: new Map(), lastId: PREDEFINED.length };
    PREDEFINED.forEach((name, i) => {
      const id = String(i + 1);
      book!.labels.set(id, { id, name, color: i, predefinedId: i + 1, chats: new Set() });
    });
    books.set(acc.phone, book);
  }
  return book;
}

/** Live labels, by numeric id. */
export function labelsOf(book: LabelBook): SimLabel[] {
  return [...book.labels.values()].sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
}

export function requireLabel(book: LabelBook, id: string): SimLabel {
  const label = book.labels.get(id);
  if (!label) throw new SimnetError("not_found", `no label ${id}`);
  return label;
}

/**
 * A chat as the network resolves it for `acc`: a person with an account (`<digits>`, `@c.us`,
 * `@lid`) or a group `acc` is in. Anything else is `invalid_target`.
 */
export function chatKeyOf(state: SimnetState, acc: Account, raw: string): string {
  const v = raw.trim();
  if (v.endsWith("@g.us")) {
    const group = state.groups.get(v);
    if (!group?.participants.has(acc.phone))
      throw new SimnetError("invalid_target", `${acc.phone} is in no group ${v}`);
    return group.id;
  }
  const digits = v.endsWith("@lid") ? null : phoneDigits(v);
  const person = v.endsWith("@lid") ? state.accountsByLid.get(v) : digits ? state.findAccount(digits) : undefined;
  if (!person) throw new SimnetError("invalid_target", `no account for ${v}`);
  return `${person.phone}@c.us`;
}

/** A chat key as `viewer` sees it: a person by number, or by privacy id while the number is hidden. */
export function chatView(state: SimnetState, key: string, viewer: Account): string {
  if (!key.endsWith("@c.us")) return key;
  const acc = state.accounts.get(key.slice(0, -"@c.us".length));
  return acc ? state.peer(acc, viewer.phone).id : key;
}

const labelView = (l: SimLabel) => ({ id: l.id, name: l.name, color: l.color });

export function labelEvent(label: SimLabel) {
  return { ...labelView(label), timestamp: nowSeconds() };
}

function announce(state: SimnetState, acc: Account, kind: string, payload: Record<string, unknown>): void {
  state.deliverEvent(acc, kind, payload);
}

function chatEvent(state: SimnetState, acc: Account, kind: string, label: SimLabel, key: string): void {
  announce(state, acc, kind, {
    labelId: label.id,
    chatId: chatView(state, key, acc),
    label: labelView(label),
    timestamp: nowSeconds(),
  });
}

/** The first palette color no label uses, else the palette again in order (as the apps pick). */
function nextColor(book: LabelBook): number {
  const used = labelsOf(book).map((l) => l.color);
  for (let i = 0; i < PALETTE_SIZE; i++) if (!used.includes(i)) return i;
  return used.length % PALETTE_SIZE;
}

// --- changes (from a device or from the phone: announced the same way) -----------------------------

export function createLabel(state: SimnetState, acc: Account, input: { name: string; color?: number }): SimLabel {
  const book = bookOf(state, acc);
  const id = String(++book.lastId);
  const label: SimLabel = {
    id,
    name: input.name,
    color: input.color ?? nextColor(book),
    predefinedId: null,
    chats: new Set(),
  };
  book.labels.set(id, label);
  announce(state, acc, "label.upsert", labelEvent(label));
  return label;
}

export function editLabel(
  state: SimnetState,
  acc: Account,
  id: string,
  change: { name?: string; color?: number },
): SimLabel {
  const label = requireLabel(bookOf(state, acc), id);
  const name = change.name ?? label.name;
  const color = change.color ?? label.color;
  if (name === label.name && color === label.color) return label;
  label.name = name;
  label.color = color;
  announce(state, acc, "label.upsert", labelEvent(label));
  return label;
}

/** Deleting a label untags its chats first (one `label.chat.deleted` each), then `label.deleted`. */
export function deleteLabel(state: SimnetState, acc: Account, id: string): void {
  const book = bookOf(state, acc);
  const label = requireLabel(book, id);
  for (const key of [...label.chats]) untag(state, acc, label, key);
  book.labels.delete(id);
  announce(state, acc, "label.deleted", labelEvent(label));
}

export function tag(state: SimnetState, acc: Account, label: SimLabel, key: string): void {
  if (label.chats.has(key)) return;
  label.chats.add(key);
  chatEvent(state, acc, "label.chat.added", label, key);
}

export function untag(state: SimnetState, acc: Account, label: SimLabel, key: string): void {
  if (!label.chats.delete(key)) return;
  chatEvent(state, acc, "label.chat.deleted", label, key);
}

export function chatLabels(book: LabelBook, key: string): SimLabel[] {
  return labelsOf(book).filter((l) => l.chats.has(key));
}

/** A chat's whole label set: the missing ones added (in the order given), then the others removed. */
export function setChatLabels(state: SimnetState, acc: Account, key: string, ids: string[]): SimLabel[] {
  const book = bookOf(state, acc);
  const wanted = [...new Set(ids)];
  const unknown = wanted.filter((id) => !book.labels.has(id));
  if (unknown.length > 0) throw new SimnetError("not_found", `no label ${unknown.join(", ")}`, { unknown });
  for (const id of wanted) tag(state, acc, requireLabel(book, id), key);
  for (const label of chatLabels(book, key)) if (!wanted.includes(label.id)) untag(state, acc, label, key);
  return chatLabels(book, key);
}

export { labelView };
