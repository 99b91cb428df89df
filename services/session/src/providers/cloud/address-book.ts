import type { InboundMessage } from "@gw/contracts";
import type { Platform } from "@gw/platform";
import { providerRecords } from "../../provider-records.ts";
import { type AddressBookWriter, addressBookWriter } from "../address-book.ts";
import { arr, obj } from "./values.ts";

/**
 * Coexistence numbers: the business app's contact book, which the operator syncs
 * (`smb_app_state_sync`, reference cloud-api.md §3.6; our `contact.sync` with `source:
 * "smb_app_state_sync"`). Kept in the instance's address-book record, as standard instances keep
 * theirs (providers/address-book.ts), for one use: a chat's `chatName` is the name the business
 * saved, else the customer's profile name (spec 1 rule 7). The contacts routes stay 501 on
 * official instances (docs/contacts.md).
 */

type Book = Pick<Platform, "identity" | "redis" | "keys">;

function bookOf(platform: Book, instanceId: string): AddressBookWriter {
  const { identity } = platform;
  return addressBookWriter({
    records: providerRecords(platform, instanceId),
    identity: {
      rewrite: async (id) => (await identity.rewrite(instanceId, id)) ?? id,
      lidOf: (phone) => identity.lidOf(instanceId, phone),
      learn: (lid, phone) => identity.learn(instanceId, lid, phone),
    },
  });
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** A `contact.sync` payload of the business app's contact book: its additions and edits kept, its removals dropped. */
export async function keepContactBook(platform: Book, instanceId: string, payload: Record<string, unknown>) {
  if (payload.source !== "smb_app_state_sync") return;
  const book = bookOf(platform, instanceId);
  for (const raw of arr(payload.contacts)) {
    const c = obj(raw);
    const chatId = str(c.chatId);
    if (!chatId) continue;
    const name = str(c.fullName) ?? str(c.firstName);
    if (c.action === "remove") await book.remove([chatId]);
    else if (name) await book.upsert([{ id: chatId, phone: str(c.phone) ?? "", lid: null, pushName: "", name }]);
  }
}

/** The message with `chatName` the name the business saved for the customer, when it did. */
export async function namedByBook(platform: Book, instanceId: string, m: InboundMessage): Promise<InboundMessage> {
  if (!m.chatId.endsWith("@c.us")) return m;
  const entry = await bookOf(platform, instanceId).get(m.chatId);
  return entry?.name ? { ...m, chatName: entry.name } : m;
}
