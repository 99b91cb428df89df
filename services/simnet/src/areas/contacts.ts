// Contacts on the simulated network (docs/simnet.md "Contacts"): the wire operations a device asks
// for (a person's facts, about text, blocks), the control API that acts as the phones (address book,
// about, blocks), and the address book and blocklist synced to devices when they open.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { resolveTarget } from "../messaging/targets.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { openListeners } from "../wire/connections.ts";
import { type OpDef, openOp, parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";
import {
  aboutOf,
  addressBook,
  blocklist,
  factsOf,
  removeContact,
  saveContact,
  setAbout,
  setBlock,
  syncOnOpen,
} from "./contacts-model.ts";

const byId = z.object({ id: z.string().min(1) });

/** A person named by number, `@c.us` or `@lid` (`not_on_network` when no account has it; groups are refused). */
function person(state: SimnetState, id: string): Account {
  const target = resolveTarget(state, id);
  if (target.kind !== "user") throw new SimnetError("bad_request", `${id} is not a person`);
  return target.acc;
}

const ops: Record<string, OpDef> = {
  "contacts.get": openOp(byId, ({ state, acc }, a) => factsOf(state, person(state, a.id), acc)),
  "contacts.about": openOp(byId, ({ state, acc }, a) => aboutOf(state, person(state, a.id), acc)),
  "contacts.block": openOp(byId.extend({ block: z.boolean() }), ({ state, acc }, a) => {
    setBlock(state, acc, person(state, a.id), a.block);
    return { ok: true };
  }),
  "contacts.blocklist": openOp(z.object({}).loose(), ({ state, acc }) => ({ contacts: blocklist(state, acc) })),
};

const phoneParams = z.object({ phone: z.string() });
const pairParams = z.object({ phone: z.string(), contact: z.string() });

function control(app: FastifyInstance, state: SimnetState): void {
  const owner = (params: unknown) => state.requireAccount(parseBody(phoneParams, params).phone);

  // The phone's address book: save (or rename) a number under a name, remove it, list it.
  app.put("/simnet/phones/:phone/contacts/:contact", async (req) => {
    const { phone, contact } = parseBody(pairParams, req.params);
    const { name } = parseBody(z.object({ name: z.string().trim().min(1).max(100) }), req.body);
    const acc = state.requireAccount(phone);
    const other = state.findAccount(contact);
    if (!other) throw new SimnetError("not_on_network", `${contact} is not on the network`);
    return saveContact(state, acc, other, name);
  });
  app.delete("/simnet/phones/:phone/contacts/:contact", async (req) => {
    const { phone, contact } = parseBody(pairParams, req.params);
    const acc = state.requireAccount(phone);
    const other = state.findAccount(contact);
    if (!other || !removeContact(state, acc, other)) {
      throw new SimnetError("not_found", `${contact} is not in ${acc.phone}'s address book`);
    }
    return { removed: other.phone };
  });
  app.get("/simnet/phones/:phone/contacts", async (req) => ({ contacts: addressBook(state, owner(req.params)) }));

  // The phone's about text (`null` removes it).
  app.put("/simnet/phones/:phone/about", async (req) => {
    const acc = owner(req.params);
    const { about } = parseBody(z.object({ about: z.string().max(139).nullable() }), req.body);
    setAbout(state, acc, about);
    return { phone: acc.phone, about };
  });

  // The phone blocks and unblocks people (from its own app), and lists whom it blocked.
  app.post("/simnet/phones/:phone/blocks", async (req) => {
    const acc = owner(req.params);
    const { phone } = parseBody(z.object({ phone: z.string().min(1) }), req.body);
    setBlock(state, acc, person(state, phone), true);
    return { blocked: blocklist(state, acc).map((c) => c.id) };
  });
  app.delete("/simnet/phones/:phone/blocks/:contact", async (req) => {
    const { phone, contact } = parseBody(pairParams, req.params);
    const acc = state.requireAccount(phone);
    setBlock(state, acc, person(state, contact), false);
    return { blocked: blocklist(state, acc).map((c) => c.id) };
  });
  app.get("/simnet/phones/:phone/blocks", async (req) => {
    const acc = owner(req.params);
    return { blocked: blocklist(state, acc).map((c) => c.id) };
  });
}

openListeners.push(syncOnOpen);

export const contactsArea: SimnetArea = { name: "contacts", ops, control };
