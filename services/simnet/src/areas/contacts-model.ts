// Contacts on the simulated network: each phone's address book (numbers it saved by name), who it
// blocked, and its about text. The address book and the blocklist reach the phone's linked devices as
// the real network's app state does: a whole copy whenever a device opens, each change as it happens.
// Blocks act on messaging (messaging/send.ts), presence and profile pictures (wire/wire.ts).
import { SimnetError } from "../errors.ts";
import { nowSeconds } from "../ids.ts";
import type { Account, Connection } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { ServerFrame } from "../wire/protocol.ts";

interface ContactsMemory {
  /** Owner phone → contact phone → the name it was saved under. */
  books: Map<string, Map<string, string>>;
  /** Blocker phone → the phones it blocked. */
  blocks: Map<string, Set<string>>;
  /** Phone → its about text and when it was set (unix s). */
  about: Map<string, { text: string; setAt: number }>;
  /**
   * Versions, as the network's app state has: a phone's book and blocklist count their changes, each
   * device the version it last got. A device that missed a change gets the whole copy when it opens.
   */
  versions: Map<string, Versions>;
}
type Versions = { book: number; blocks: number };

const memory = (state: SimnetState) =>
  state.area<ContactsMemory>("contacts", () => ({
    books: new Map(),
    blocks: new Map(),
    about: new Map(),
    versions: new Map(),
  }));

function versionsOf(state: SimnetState, key: string): Versions {
  const all = memory(state).versions;
  let v = all.get(key);
  if (!v) {
    v = { book: 0, blocks: 0 };
    all.set(key, v);
  }
  return v;
}

function entries<K, V>(map: Map<string, Map<K, V> | Set<K>>, key: string, make: () => Map<K, V> | Set<K>) {
  let v = map.get(key);
  if (!v) {
    v = make();
    map.set(key, v);
  }
  return v;
}
const bookOf = (state: SimnetState, phone: string) =>
  entries(memory(state).books, phone, () => new Map<string, string>()) as Map<string, string>;
const blocksOf = (state: SimnetState, phone: string) =>
  entries(memory(state).blocks, phone, () => new Set<string>()) as Set<string>;

/** Whether `blocker` blocked `blocked` (phones). */
export function blocks(state: SimnetState, blocker: string, blocked: string): boolean {
  return memory(state).blocks.get(blocker)?.has(blocked) ?? false;
}

// --- views -----------------------------------------------------------------------------------

/** An address-book entry as the owner's devices get it: saved by number, so the number is known. */
function entryOf(contact: Account, name: string) {
  return { id: `${contact.phone}@c.us`, phone: contact.phone, lid: contact.lid, pushName: contact.pushName, name };
}

export function addressBook(state: SimnetState, owner: Account) {
  return [...bookOf(state, owner.phone)].flatMap(([phone, name]) => {
    const c = state.accounts.get(phone);
    return c ? [entryOf(c, name)] : [];
  });
}

/** What `viewer` learns of `target`: the contact as it sees it, and whether it blocked it. */
export function factsOf(state: SimnetState, target: Account, viewer: Account) {
  const p = state.peer(target, viewer.phone);
  return {
    id: p.id,
    phone: p.phone ?? "",
    lid: p.lid,
    pushName: p.pushName,
    blocked: blocks(state, viewer.phone, target.phone),
  };
}

export function blocklist(state: SimnetState, acc: Account) {
  return [...blocksOf(state, acc.phone)].flatMap((phone) => {
    const target = state.accounts.get(phone);
    return target ? [factsOf(state, target, acc)] : [];
  });
}

/** `target`'s about text as `viewer` sees it: hidden from those it blocked. */
export function aboutOf(state: SimnetState, target: Account, viewer: Account) {
  const about = memory(state).about.get(target.phone);
  if (!about || blocks(state, target.phone, viewer.phone)) return { about: null, setAt: null };
  return { about: about.text, setAt: about.setAt };
}

// --- changes -----------------------------------------------------------------------------------

/** A change for the phone's connected devices; an offline one gets the whole copy when it opens. */
function sync(state: SimnetState, acc: Account, part: keyof Versions, frame: ServerFrame): void {
  const version = ++versionsOf(state, `phone:${acc.phone}`)[part];
  for (const id of acc.devices) {
    const device = state.devices.get(id);
    const conn = device && state.openConnectionOf(device);
    if (!conn) continue;
    state.sendFrame(conn, frame);
    versionsOf(state, `device:${id}`)[part] = version;
  }
}

export function saveContact(state: SimnetState, owner: Account, contact: Account, name: string) {
  if (contact === owner) throw new SimnetError("bad_request", "a phone does not save itself");
  bookOf(state, owner.phone).set(contact.phone, name);
  const entry = entryOf(contact, name);
  sync(state, owner, "book", { type: "contacts", action: "upsert", contacts: [entry] });
  return entry;
}

export function removeContact(state: SimnetState, owner: Account, contact: Account): boolean {
  const removed = bookOf(state, owner.phone).delete(contact.phone);
  if (removed) sync(state, owner, "book", { type: "contacts", action: "remove", ids: [`${contact.phone}@c.us`] });
  return removed;
}

export function setBlock(state: SimnetState, blocker: Account, target: Account, block: boolean): void {
  if (target === blocker) throw new SimnetError("bad_request", "an account does not block itself");
  const set = blocksOf(state, blocker.phone);
  if (set.has(target.phone) === block) return;
  if (block) set.add(target.phone);
  else set.delete(target.phone);
  sync(state, blocker, "blocks", {
    type: "blocklist",
    action: block ? "add" : "remove",
    ids: [state.peer(target, blocker.phone).id],
  });
}

export function setAbout(state: SimnetState, acc: Account, text: string | null): void {
  if (text === null) memory(state).about.delete(acc.phone);
  else memory(state).about.set(acc.phone, { text, setAt: nowSeconds() });
}

/**
 * A device opened (wire/connections.ts `openListeners`): what changed since its last copy comes whole. A new
 * device of a phone that never changed its book gets nothing (nothing to sync, as on the real network).
 */
export function syncOnOpen(state: SimnetState, conn: Connection, acc: Account): void {
  if (!conn.deviceId) return;
  const phone = versionsOf(state, `phone:${acc.phone}`);
  const device = versionsOf(state, `device:${conn.deviceId}`);
  if (device.book !== phone.book) {
    state.sendFrame(conn, { type: "contacts", action: "set", contacts: addressBook(state, acc) });
    device.book = phone.book;
  }
  if (device.blocks !== phone.blocks) {
    state.sendFrame(conn, { type: "blocklist", action: "set", ids: blocklist(state, acc).map((c) => c.id) });
    device.blocks = phone.blocks;
  }
}
