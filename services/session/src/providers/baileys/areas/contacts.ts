import { type AddressBookEntry, ApiError, type ContactFacts, invalid } from "@gw/contracts";
import { type Contact, isLidUser, isPnUser, jidNormalizedUser, type WASocket } from "@whiskeysockets/baileys";
import { addressBookWriter } from "../../address-book.ts";
import { BoundedCache } from "../connection/auth-state.ts";
import { toChatId, toUserJid } from "../jids.ts";
import type { BaileysAreaModule } from "./area.ts";

/**
 * Contacts through Baileys 7 (docs/contacts.md). The real network never answers "the address book" to a
 * query: it syncs it — app state `contactAction`s reach the socket as `contacts.upsert`, push names as
 * `contacts.update` and history syncs — so the saved contacts are kept in the provider's records as
 * they arrive (the same records the sim provider keeps). Blocks: `updateBlockStatus`, `fetchBlocklist`
 * and the `blocklist.set` / `blocklist.update` notifications; about texts: `fetchStatus`. Pictures go
 * through the session's `picture` (`profilePictureUrl`), as chat pictures do.
 */

type Jids = { pn: string | null; lid: string | null };

/** The number and the lid a Baileys contact names, normalized (no device), each when known. */
async function jidsOf(sock: WASocket, c: Partial<Contact>): Promise<Jids> {
  const norm = (j: string | undefined | null) => (j ? jidNormalizedUser(j) : null);
  let pn = norm(c.phoneNumber) ?? (c.id && isPnUser(norm(c.id)!) ? norm(c.id) : null);
  const lid = norm(c.lid) ?? (c.id && isLidUser(norm(c.id)!) ? norm(c.id) : null);
  // The library's own store of pairs (filled by every stanza that carried both): local, no query.
  if (!pn && lid) pn = norm(await sock.signalRepository.lidMapping.getPNForLID(lid).catch(() => null));
  return { pn: pn && isPnUser(pn) ? pn : null, lid: lid && isLidUser(lid) ? lid : null };
}

export const baileysContacts: BaileysAreaModule = (area) => {
  const book = addressBookWriter(area.ctx);
  /** Profile names of people not saved, from the messages they sent (by user JID, PN and LID). */
  const pushNames = new BoundedCache(5_000, 24 * 60 * 60_000);
  // Notifications are applied one after the other: a rename that overtook the save would be lost.
  let chain: Promise<void> = Promise.resolve();
  const inOrder = (job: () => Promise<void>) => {
    chain = chain.then(job).catch((err) => area.ctx.log.warn({ err }, "contacts notification"));
    return chain;
  };

  /** The people a list of JIDs names (lids with their number when the pair is known), pairs learnt. */
  async function peopleOf(sock: WASocket, jids: (string | undefined)[]): Promise<Jids[]> {
    const out: Jids[] = [];
    for (const jid of jids) {
      if (!jid) continue;
      const found = await jidsOf(sock, { id: jid });
      if (found.pn && found.lid) await area.ctx.identity.learn(toChatId(found.lid), toChatId(found.pn).split("@")[0]!);
      if (found.pn || found.lid) out.push(found);
    }
    return out;
  }
  const idsOf = async (sock: WASocket, jids: (string | undefined)[]) =>
    (await peopleOf(sock, jids)).map((p) => toChatId(p.pn ?? p.lid!));

  async function onContacts(sock: WASocket, list: Partial<Contact>[]): Promise<void> {
    const saved: AddressBookEntry[] = [];
    for (const c of list) {
      const { pn, lid } = await jidsOf(sock, c);
      if (!pn && !lid) continue; // groups, newsletters, broadcast lists
      const notify = c.notify || c.verifiedName || undefined;
      for (const j of [pn, lid]) if (j && notify) pushNames.set(j, notify);
      const id = toChatId(pn ?? lid!);
      if (typeof c.name === "string" && c.name.trim()) {
        const prev = await book.get(id);
        saved.push({
          id,
          phone: pn ? toChatId(pn).split("@")[0]! : "",
          lid: lid ? toChatId(lid) : (prev?.lid ?? null),
          pushName: notify ?? prev?.pushName ?? "",
          name: c.name.trim(),
        });
      } else if (notify) {
        await book.pushName(id, notify);
      }
    }
    if (saved.length > 0) await book.upsert(saved);
  }

  async function refreshBlocklist(sock: WASocket): Promise<Jids[]> {
    const people = await peopleOf(sock, await sock.fetchBlocklist());
    await inOrder(() => book.blocklist.set(people.map((p) => toChatId(p.pn ?? p.lid!))));
    return people;
  }

  area.onSocket((sock, current) => {
    const when = (job: () => Promise<void>) => () => (current() ? job() : Promise.resolve());
    sock.ev.on("contacts.upsert", (list) => void inOrder(when(() => onContacts(sock, list))));
    sock.ev.on("contacts.update", (list) => void inOrder(when(() => onContacts(sock, list))));
    // History syncs carry chats' display names (not proof the number is saved) and push names:
    // only the push names are taken.
    sock.ev.on(
      "messaging-history.set",
      ({ contacts }) =>
        void inOrder(
          when(() =>
            onContacts(
              sock,
              contacts.map(({ id, lid, phoneNumber, notify, verifiedName }) => ({
                id,
                lid,
                phoneNumber,
                notify,
                verifiedName,
              })),
            ),
          ),
        ),
    );
    sock.ev.on(
      "blocklist.set",
      ({ blocklist }) => void inOrder(when(async () => book.blocklist.set(await idsOf(sock, blocklist)))),
    );
    sock.ev.on(
      "blocklist.update",
      ({ blocklist, type }) =>
        void inOrder(
          when(async () => {
            const ids = await idsOf(sock, blocklist);
            await (type === "add" ? book.blocklist.add(ids) : book.blocklist.remove(ids));
          }),
        ),
    );
    // The network tells changes, not the list: it is read once per connection (as WA Web does).
    sock.ev.on("connection.update", ({ connection }) => {
      if (connection !== "open") return;
      refreshBlocklist(sock).catch((err) => area.ctx.log.debug({ err }, "blocklist fetch failed"));
    });
  });

  /** A person's JIDs from the API's id; a lid the instance never met is unknown (`404`). */
  async function person(sock: WASocket, contactId: string): Promise<Jids> {
    const jid = toUserJid(contactId);
    if (!jid) throw invalid("contactId", "contato inválido");
    const found = await jidsOf(sock, { id: jid });
    if (!found.pn && found.lid && !pushNames.get(found.lid) && !(await book.get(toChatId(found.lid)))) {
      throw new ApiError("not_found", "Contato desconhecido: esta instância não conhece este id de privacidade.");
    }
    return found;
  }

  async function factsOf({ pn, lid }: Jids): Promise<ContactFacts> {
    const id = toChatId(pn ?? lid!);
    if (pn && lid) await area.ctx.identity.learn(toChatId(lid), id.split("@")[0]!);
    const saved = await book.get(id);
    return {
      id,
      phone: pn ? id.split("@")[0]! : "",
      lid: lid ? toChatId(lid) : (saved?.lid ?? null),
      pushName: saved?.pushName || pushNames.get<string>(pn ?? lid!) || (lid ? pushNames.get<string>(lid) : "") || "",
      blocked: await book.blocklist.has(id),
    };
  }

  return {
    "contacts.get": ({ contactId }) =>
      area.call("contacts.get", async (sock) => factsOf(await person(sock, contactId))),
    "contacts.about": ({ contactId }) =>
      area.call("contacts.about", async (sock) => {
        const { pn, lid } = await person(sock, contactId);
        const jid = pn ?? lid!;
        const result = await sock.fetchStatus(jid);
        if (!result) throw new ApiError("network_timeout", "A rede de mensagens não respondeu.");
        const found = result.find((r) => jidNormalizedUser(r.id) === jid) ?? result[0];
        const status = (found as { status?: { status?: string | null; setAt?: Date } } | undefined)?.status;
        const text = typeof status?.status === "string" && status.status ? status.status : null;
        const at = status?.setAt ? Math.floor(status.setAt.getTime() / 1000) : 0;
        return { about: text, setAt: text && at > 0 ? at : null };
      }),
    "contacts.block": ({ contactId, block }) =>
      area.call("contacts.block", async (sock) => {
        const { pn, lid } = await person(sock, contactId);
        await sock.updateBlockStatus(pn ?? lid!, block ? "block" : "unblock");
        const id = toChatId(pn ?? lid!);
        await inOrder(() => (block ? book.blocklist.add([id]) : book.blocklist.remove([id])));
        return { success: true as const };
      }),
    "contacts.blocklist": () =>
      area.call("contacts.blocklist", async (sock) => {
        const people = await refreshBlocklist(sock);
        return Promise.all(people.map(async (p) => ({ ...(await factsOf(p)), blocked: true })));
      }),
  };
};
