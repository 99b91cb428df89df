import { type AddressBookEntry, ApiError, type ContactFacts, invalid } from "@gw/contracts";
import { addressBookWriter } from "../../address-book.ts";
import { phoneOf } from "../../addressing.ts";
import type { SimArea, SimAreaModule } from "../area.ts";
import { shownContact } from "./shown.ts";

/**
 * Contacts on simnet (docs/contacts.md): the address book and the blocklist arrive as simnet's
 * `contacts` and `blocklist` frames (a whole copy when the connection opens, each change as it
 * happens) and are kept in the provider's records, as the Baileys provider keeps what the real
 * network syncs; a person's facts, about text and blocks are simnet's `contacts.*` operations.
 * Privacy ids are shown by number when the instance knows it (spec 1 rule 3).
 */

type Frame = { action?: string; contacts?: AddressBookEntry[]; ids?: string[] };

const refusals = {
  not_on_network: () => new ApiError("not_found", "Contato não encontrado: o número não tem conta na rede."),
  bad_request: () => invalid("contactId", "não é uma pessoa"),
};

async function facts(area: SimArea, f: ContactFacts): Promise<ContactFacts> {
  const shown = await shownContact(area.ctx, f);
  if (f.lid && shown.id.endsWith("@c.us")) await area.ctx.identity.learn(f.lid, phoneOf(shown.id));
  return shown;
}

export const simContacts: SimAreaModule = (area) => {
  const book = addressBookWriter(area.ctx);
  const ask = <T>(op: string, args: unknown) => area.request(op, args, refusals) as Promise<T>;

  // Frames are applied one after the other: a change that overtook the whole copy would be undone by it.
  let chain: Promise<void> = Promise.resolve();
  const inOrder = (job: () => Promise<void>) => {
    chain = chain.then(job).catch((err) => area.ctx.log.warn({ err }, "contacts sync"));
    return chain;
  };
  area.onFrame("contacts", (frame) =>
    inOrder(async () => {
      const f = frame as Frame;
      if (f.action === "set") await book.replace(f.contacts ?? []);
      else if (f.action === "upsert") await book.upsert(f.contacts ?? []);
      else if (f.action === "remove") await book.remove(f.ids ?? []);
    }),
  );
  area.onFrame("blocklist", (frame) =>
    inOrder(async () => {
      const f = frame as Frame;
      const ids = f.ids ?? [];
      if (f.action === "set") await book.blocklist.set(ids);
      else if (f.action === "add") await book.blocklist.add(ids);
      else if (f.action === "remove") await book.blocklist.remove(ids);
    }),
  );

  return {
    "contacts.get": async ({ contactId }) => facts(area, await ask<ContactFacts>("contacts.get", { id: contactId })),
    "contacts.about": ({ contactId }) => ask("contacts.about", { id: contactId }),
    "contacts.block": async ({ contactId, block }) => {
      await ask("contacts.block", { id: contactId, block });
      // simnet's blocklist frame says the same; kept now so that a read right after agrees.
      await inOrder(() => (block ? book.blocklist.add([contactId]) : book.blocklist.remove([contactId])));
      return { success: true as const };
    },
    "contacts.blocklist": async () => {
      const r = await ask<{ contacts: ContactFacts[] }>("contacts.blocklist", {});
      const list = await Promise.all(r.contacts.map((c) => facts(area, c)));
      await inOrder(() => book.blocklist.set(list.map((c) => c.id)));
      return list;
    },
  };
};
