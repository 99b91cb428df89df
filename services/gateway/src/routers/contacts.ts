import {
  type AddressBookEntry,
  ApiError,
  type ContactFacts,
  contactAboutSchema,
  contactIdSchema,
  contactSchema,
  DOC_PATTERNS,
  documented,
  existsResultSchema,
  type Instance,
  listContactsQuery,
  successSchema,
} from "@gw/contracts";
import { storedAddressBook } from "@gw/platform";
import { z } from "zod";
import { pictureLink } from "../http/files.ts";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

/**
 * Spec 4.14 contacts (our design, docs/contacts.md): the address book the network synced (read from
 * what the provider stored, `settings.storage.contacts`), a person's facts, picture and about text,
 * blocks, and the number check. Standard instances only (the capability table).
 */

const tags = ["Contacts"];
const NETWORK = NETWORK_ERRORS;
type Ctx = Context & { instance: Instance };

const route = areaRoute({ path: "/contacts", tags, errors: NETWORK });

const byContact = z.object({ contactId: contactIdSchema });
const book = (ctx: Ctx) => storedAddressBook(ctx.platform);
const stores = (ctx: Ctx) => ctx.instance.settings.storage.contacts;

/** A contact as answered: the person, the saved name (with `storage.contacts`), the picture's signed link. */
function shown(ctx: Ctx, p: Omit<ContactFacts, "blocked">, name: string | null, blocked: boolean) {
  return {
    id: p.id,
    phone: p.phone,
    lid: p.lid,
    pushName: p.pushName,
    name,
    blocked,
    picture: ctx.platform.mediaLinks.avatar(ctx.instance.id, p.id),
  };
}

/**
 * The person behind a contact id, as the network registered it: a number goes through the one number
 * check (the Brazilian ninth digit resolved, its lid learnt; `404` without an account); a lid is asked
 * of the provider with the rest.
 */
async function resolve(ctx: Ctx, contactId: string): Promise<{ id: string; lid: string | null }> {
  if (!contactId.endsWith("@c.us")) return { id: contactId, lid: null };
  const found = await (await connectedOwner(ctx)).checkExists(ctx.instance.id, contactId.split("@")[0]!);
  if (!found.exists || !found.chatId) {
    throw new ApiError("not_found", "Contato não encontrado: o número não tem conta na rede.");
  }
  return { id: found.chatId, lid: found.lid };
}
const resolved = async (ctx: Ctx, contactId: string) => (await resolve(ctx, contactId)).id;

async function facts(ctx: Ctx, contactId: string): Promise<ContactFacts> {
  const { id, lid } = await resolve(ctx, contactId);
  const f = await (await connectedOwner(ctx)).op(ctx.instance.id, "contacts.get", { contactId: id });
  // The number check may have learnt the lid the provider did not have at hand.
  return { ...f, lid: f.lid ?? lid };
}

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

function matches(e: AddressBookEntry, search: string): boolean {
  const q = fold(search);
  const digits = search.replace(/\D/g, "");
  return fold(e.name).includes(q) || fold(e.pushName).includes(q) || (digits.length > 0 && e.phone.includes(digits));
}

export const contactsRouter = router({
  listContacts: route("GET", "", "The address book: the contacts saved on the phone (paged)", {
    errors: [],
    description:
      "Read from the address book the network synced to the instance (no network call; also while not " +
      "connected). Only saved contacts: people met in groups or chats without being saved are not in it. " +
      "Sorted by `name` (the saved name) or `id`. Empty while `settings.storage.contacts` is off.",
  })
    .input(listContactsQuery)
    .output(z.array(contactSchema))
    .query(async ({ ctx, input }) => {
      if (!stores(ctx)) return [];
      const [all, blocked] = await Promise.all([book(ctx).list(ctx.instance.id), book(ctx).blocked(ctx.instance.id)]);
      const picked = input.search ? all.filter((e) => matches(e, input.search!)) : all;
      const key = (e: AddressBookEntry) => (input.sortBy === "name" ? fold(e.name) : e.id);
      picked.sort((a, b) => key(a).localeCompare(key(b)) || a.id.localeCompare(b.id));
      if (input.sortOrder === "desc") picked.reverse();
      return picked
        .slice(input.offset, input.offset + input.limit)
        .map((e) => shown(ctx, e, e.name, blocked.has(e.id) || (e.lid !== null && blocked.has(e.lid))));
    }),

  countContacts: route("GET", "/count", "How many contacts the address book has", {
    errors: [],
    description: "0 while `settings.storage.contacts` is off.",
  })
    .output(z.object({ count: z.number().int() }))
    .query(async ({ ctx }) => ({ count: stores(ctx) ? (await book(ctx).list(ctx.instance.id)).length : 0 })),

  // The one number check (spec 1 rule 5); sends resolve numbers through the same provider call.
  checkExists: route(
    "GET",
    "/check-exists",
    "Whether a number has an account, and its chatId as the network registered it",
    {
      errors: ["instance_not_connected", "network_unavailable", "network_timeout"],
      description: "Brazilian numbers: the ninth digit is resolved (the answer is the registered form).",
    },
  )
    .input(
      z.object({
        phone: documented(
          z
            .string("informe o número")
            .transform((s) => s.replace(/[\s()+.-]/g, ""))
            .pipe(z.string().regex(/^\d{8,15}$/, "informe o número com DDI e DDD, só dígitos")),
          { pattern: DOC_PATTERNS.phone },
        ),
      }),
    )
    .output(existsResultSchema)
    .query(async ({ ctx, input }) => (await connectedOwner(ctx)).checkExists(ctx.instance.id, input.phone)),

  listBlocked: route("GET", "/blocklist", "The contacts this account blocked", {
    description: "Asked of the network now. `name` comes from the address book (with `settings.storage.contacts`).",
  })
    .output(z.array(contactSchema))
    .query(async ({ ctx }) => {
      const list = await (await connectedOwner(ctx)).op(ctx.instance.id, "contacts.blocklist", {});
      return Promise.all(
        list.map(async (c) => {
          const saved = stores(ctx) ? await book(ctx).get(ctx.instance.id, c.id) : null;
          return shown(ctx, { ...c, pushName: c.pushName || saved?.pushName || "" }, saved?.name ?? null, true);
        }),
      );
    }),

  getContact: route("GET", "/{contactId}", "A contact: the person, the saved name, whether blocked, the picture link", {
    errors: [...NETWORK, "not_found"],
    description:
      "By number (the ninth digit resolved), `<digits>@c.us` or `<id>@lid`; `404` when the network has no such " +
      "account. Also for people not saved (`name` null).",
  })
    .input(byContact)
    .output(contactSchema)
    .query(async ({ ctx, input }) => {
      const f = await facts(ctx, input.contactId);
      const saved = stores(ctx) ? await book(ctx).get(ctx.instance.id, f.id) : null;
      return shown(ctx, { ...f, pushName: f.pushName || saved?.pushName || "" }, saved?.name ?? null, f.blocked);
    }),

  contactPicture: route("GET", "/{contactId}/picture", "The contact's profile picture as a signed link", {
    errors: [...NETWORK, "not_found"],
    description:
      "Cached a day like chat pictures (`refresh=true` asks the network again); `404` when no picture is " +
      "visible to this account (none, privacy, or the contact blocked it).",
  })
    .input(
      byContact.extend({
        refresh: z
          .union([z.boolean(), z.enum(["true", "false", "1", "0"], "refresh: use true ou false")])
          .transform((v) => v === true || v === "true" || v === "1")
          .optional(),
      }),
    )
    .output(z.object({ url: z.string() }))
    .query(({ ctx, input }) =>
      pictureLink(ctx.platform, ctx.sessions, ctx.instance.id, input.contactId, {
        refresh: input.refresh === true,
        notFound: "Contato sem foto visível.",
        beforeNetwork: () => connectedOwner(ctx),
      }),
    ),

  contactAbout: route("GET", "/{contactId}/about", "The contact's about text (its profile status)", {
    errors: [...NETWORK, "not_found"],
    description: "`about` is null when the contact has none or hides it from this account.",
  })
    .input(byContact)
    .output(contactAboutSchema)
    .query(async ({ ctx, input }) => {
      const id = await resolved(ctx, input.contactId);
      const about = await (await connectedOwner(ctx)).op(ctx.instance.id, "contacts.about", { contactId: id });
      return { id: (await ctx.platform.identity.rewrite(ctx.instance.id, id)) ?? id, ...about };
    }),

  blockContact: route("POST", "/{contactId}/block", "Block the contact", {
    errors: [...NETWORK, "not_found"],
    description:
      "Their messages and calls stop reaching this number, and they no longer see its picture, about text and " +
      "presence. Blocking a blocked contact succeeds.",
  })
    .input(byContact)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const id = await resolved(ctx, input.contactId);
      return (await connectedOwner(ctx)).op(ctx.instance.id, "contacts.block", { contactId: id, block: true });
    }),

  unblockContact: route("POST", "/{contactId}/unblock", "Unblock the contact", {
    errors: [...NETWORK, "not_found"],
    description: "What they sent while blocked is not delivered afterwards. Unblocking one not blocked succeeds.",
  })
    .input(byContact)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const id = await resolved(ctx, input.contactId);
      return (await connectedOwner(ctx)).op(ctx.instance.id, "contacts.block", { contactId: id, block: false });
    }),
});
