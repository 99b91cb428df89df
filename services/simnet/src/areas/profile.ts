// Profile on the simulated network (spec 4.3; docs/simnet.md "Profile"): each account's name (its
// pushName), about text and picture, set by any of its devices or by the phone. A new name reaches
// every device of the account (a `profile` frame, queued while a device is offline, as the network
// syncs it to linked devices); contacts see the name on what the account sends from then on, and
// the name, about and picture through the control API (what a contact sees).
import { z } from "zod";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { openOp, parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";

interface ProfileMemory {
  /** The about text of each account that set one. */
  about: Map<string, string>;
}

const memory = (state: SimnetState) => state.area<ProfileMemory>("profile", () => ({ about: new Map() }));

/** The network's limits: names of up to 25 characters, about texts of up to 139. */
const name = z.string().trim().min(1).max(25);
const about = z.string().trim().min(1).max(139);
const picture = z.object({
  data: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "base64 expected"),
  mimetype: z.enum(["image/jpeg", "image/png"]),
});

/** The account's new name, told to each of its devices (the sim provider updates the instance's pushName). */
export function setName(state: SimnetState, acc: Account, value: string): void {
  acc.pushName = value;
  for (const id of acc.devices) {
    const device = state.devices.get(id);
    if (device) state.deliverToDevice(device, { type: "profile", me: state.me(acc) });
  }
}

function aboutOf(state: SimnetState, acc: Account): string | null {
  return memory(state).about.get(acc.phone) ?? null;
}

const phoneParams = z.object({ phone: z.string().min(1) });
const contactParams = z.object({ phone: z.string().min(1), contact: z.string().min(1) });

export const profileArea: SimnetArea = {
  name: "profile",
  ops: {
    "profile.get": openOp(z.object({}), ({ state, acc }) => ({
      phone: acc.phone,
      lid: acc.lid,
      name: acc.pushName,
      about: aboutOf(state, acc),
    })),
    "profile.set-name": openOp(z.object({ name }), ({ state, acc }, a) => {
      setName(state, acc, a.name);
      return {};
    }),
    "profile.set-status": openOp(z.object({ status: about }), ({ state, acc }, a) => {
      memory(state).about.set(acc.phone, a.status);
      return {};
    }),
    "profile.set-picture": openOp(z.object({ picture }), ({ acc }, a) => {
      acc.picture = a.picture;
      return {};
    }),
    "profile.remove-picture": openOp(z.object({}), ({ acc }) => {
      acc.picture = null;
      return {};
    }),
  },
  control(app, state) {
    /** The phone changes its own name or about text (its devices are told of a new name). */
    app.put("/simnet/phones/:phone/profile", async (req) => {
      const acc = state.requireAccount(parseBody(phoneParams, req.params).phone);
      const body = parseBody(z.object({ pushName: name.optional(), about: about.optional() }), req.body);
      if (body.pushName !== undefined) setName(state, acc, body.pushName);
      if (body.about !== undefined) memory(state).about.set(acc.phone, body.about);
      return { phone: acc.phone, pushName: acc.pushName, about: aboutOf(state, acc), picture: acc.picture };
    });

    /**
     * What `phone` sees of `contact`: `{id, phone, lid, pushName, about, picture}` (its number hidden
     * while the contact hides it, as everywhere else).
     */
    app.get("/simnet/phones/:phone/contacts/:contact", async (req) => {
      const p = parseBody(contactParams, req.params);
      const viewer = state.requireAccount(p.phone);
      const contact = state.requireAccount(p.contact);
      return { ...state.peer(contact, viewer.phone), about: aboutOf(state, contact), picture: contact.picture };
    });
  },
};
