import { ADDRESS_BOOK_RECORD, type AddressBookEntry, addressBookEntrySchema, BLOCKLIST_RECORD } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { IdentityMap } from "./identity.ts";

/**
 * The address book and the blocklist a standard instance's provider keeps from what the network synced
 * (session `providers/address-book.ts` writes them as provider records), read for the contacts routes
 * (docs/contacts.md): no network call, privacy ids shown by number when the instance knows it (spec 1
 * rule 3), a person kept once even when the network named them by both ids.
 */
export interface StoredAddressBook {
  list(instanceId: string): Promise<AddressBookEntry[]>;
  get(instanceId: string, id: string): Promise<AddressBookEntry | null>;
  /** The ids (as shown, and the lids) this instance blocked. */
  blocked(instanceId: string): Promise<Set<string>>;
}

export function storedAddressBook(p: { redis: Redis; keys: Keys; identity: IdentityMap }): StoredAddressBook {
  const key = (instanceId: string, name: string) => p.keys.providerRecords(instanceId, name);

  async function shown(instanceId: string, raw: string): Promise<AddressBookEntry | null> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return null;
    }
    const e = addressBookEntrySchema.safeParse(parsed);
    if (!e.success) return null;
    const id = (await p.identity.rewrite(instanceId, e.data.id)) ?? e.data.id;
    return { ...e.data, id, phone: e.data.phone || (id.endsWith("@c.us") ? id.split("@")[0]! : "") };
  }

  return {
    async list(instanceId) {
      const byId = new Map<string, AddressBookEntry>();
      for (const raw of Object.values(await p.redis.hgetall(key(instanceId, ADDRESS_BOOK_RECORD)))) {
        const e = await shown(instanceId, raw);
        if (!e) continue;
        const prev = byId.get(e.id);
        byId.set(e.id, prev ? { ...prev, ...e, lid: e.lid ?? prev.lid, pushName: e.pushName || prev.pushName } : e);
      }
      return [...byId.values()];
    },
    async get(instanceId, id) {
      const shownId = (await p.identity.rewrite(instanceId, id)) ?? id;
      const lid = shownId.endsWith("@c.us") ? await p.identity.lidOf(instanceId, shownId.split("@")[0]!) : null;
      const candidates = [...new Set([shownId, id, ...(lid ? [lid] : [])])];
      const raws = await p.redis.hmget(key(instanceId, ADDRESS_BOOK_RECORD), ...candidates);
      for (const raw of raws) {
        const e = raw ? await shown(instanceId, raw) : null;
        if (e) return e;
      }
      return null;
    },
    async blocked(instanceId) {
      const out = new Set<string>();
      for (const id of Object.keys(await p.redis.hgetall(key(instanceId, BLOCKLIST_RECORD)))) {
        out.add(id);
        out.add((await p.identity.rewrite(instanceId, id)) ?? id);
      }
      return out;
    },
  };
}
