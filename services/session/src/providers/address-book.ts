import { ADDRESS_BOOK_RECORD, type AddressBookEntry, addressBookEntrySchema, BLOCKLIST_RECORD } from "@gw/contracts";
import { phoneOf } from "./addressing.ts";
import type { ProviderContext } from "./contract.ts";

/**
 * The address book and the blocklist the network syncs to a standard instance, kept in the provider's
 * records (docs/contacts.md "Records"): what every provider writes the same way, and the gateway reads
 * (platform `address-book.ts`). Entries are keyed by the id the network gave; a person first known by
 * lid and later by number is kept once, under the number, and the pair is learnt (spec 1 rule 3).
 */
export interface AddressBookWriter {
  /** Entries saved or renamed on the phone (a whole entry each). */
  upsert(entries: AddressBookEntry[]): Promise<void>;
  /** The whole book, as the network sent it: entries it no longer has are dropped. */
  replace(entries: AddressBookEntry[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
  /** An entry by id (`@c.us` or `@lid`, either of the person's), or null when not saved. */
  get(id: string): Promise<AddressBookEntry | null>;
  /** A saved person's profile name changed (messages carry it). */
  pushName(id: string, pushName: string): Promise<void>;
  blocklist: {
    set(ids: string[]): Promise<void>;
    add(ids: string[]): Promise<void>;
    remove(ids: string[]): Promise<void>;
    has(id: string): Promise<boolean>;
  };
}

export function addressBookWriter(ctx: Pick<ProviderContext, "records" | "identity">): AddressBookWriter {
  const { records, identity } = ctx;

  /** The key a person is kept under: its number when known, else its lid. */
  async function keyed(e: AddressBookEntry): Promise<AddressBookEntry> {
    if (e.lid && e.phone) await identity.learn(e.lid, e.phone);
    const id = e.phone ? `${e.phone}@c.us` : await identity.rewrite(e.lid ?? e.id);
    return { ...e, id, phone: e.phone || phoneOf(id) };
  }

  async function entriesOf(list: AddressBookEntry[]) {
    const out: Record<string, string> = {};
    const stale: string[] = [];
    for (const raw of list) {
      const e = await keyed(raw);
      out[e.id] = JSON.stringify(e);
      // Known before by lid only: one entry, under the number.
      if (e.lid && e.lid !== e.id) stale.push(e.lid);
    }
    return { out, stale };
  }

  async function find(id: string): Promise<{ key: string; entry: AddressBookEntry } | null> {
    for (const key of new Set([id, await identity.rewrite(id)])) {
      const raw = await records.get(ADDRESS_BOOK_RECORD, key);
      if (!raw) continue;
      const parsed = addressBookEntrySchema.safeParse(JSON.parse(raw));
      if (parsed.success) return { key, entry: parsed.data };
    }
    return null;
  }

  /** The blocklist's keys that name one of `ids` (a key kept by lid before the number was known too). */
  async function blocked(ids: string[]): Promise<string[]> {
    const wanted = new Set([...ids, ...(await Promise.all(ids.map((id) => identity.rewrite(id))))]);
    const out: string[] = [];
    for (const key of Object.keys(await records.all(BLOCKLIST_RECORD))) {
      if (wanted.has(key) || wanted.has(await identity.rewrite(key))) out.push(key);
    }
    return out;
  }

  return {
    async upsert(list) {
      const { out, stale } = await entriesOf(list);
      await records.remove(ADDRESS_BOOK_RECORD, stale);
      await records.put(ADDRESS_BOOK_RECORD, out);
    },
    async replace(list) {
      const { out } = await entriesOf(list);
      const gone = Object.keys(await records.all(ADDRESS_BOOK_RECORD)).filter((k) => !(k in out));
      await records.remove(ADDRESS_BOOK_RECORD, gone);
      await records.put(ADDRESS_BOOK_RECORD, out);
    },
    async remove(ids) {
      const keys = new Set<string>();
      for (const id of ids) {
        keys.add(id);
        keys.add(await identity.rewrite(id));
      }
      await records.remove(ADDRESS_BOOK_RECORD, [...keys]);
    },
    async get(id) {
      return (await find(id))?.entry ?? null;
    },
    async pushName(id, pushName) {
      const hit = await find(id);
      if (!hit || hit.entry.pushName === pushName) return;
      await records.put(ADDRESS_BOOK_RECORD, { [hit.key]: JSON.stringify({ ...hit.entry, pushName }) });
    },
    blocklist: {
      async set(ids) {
        const keys = await Promise.all(ids.map((id) => identity.rewrite(id)));
        const current = Object.keys(await records.all(BLOCKLIST_RECORD));
        await records.remove(
          BLOCKLIST_RECORD,
          current.filter((k) => !keys.includes(k)),
        );
        await records.put(BLOCKLIST_RECORD, Object.fromEntries(keys.map((k) => [k, "1"])));
      },
      async add(ids) {
        const keys = await Promise.all(ids.map((id) => identity.rewrite(id)));
        await records.put(BLOCKLIST_RECORD, Object.fromEntries(keys.map((k) => [k, "1"])));
      },
      async remove(ids) {
        await records.remove(BLOCKLIST_RECORD, await blocked(ids));
      },
      async has(id) {
        return (await blocked([id])).length > 0;
      },
    },
  };
}
