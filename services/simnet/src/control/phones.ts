// The control API's phone routes: accounts made and changed as the phones would (name, hidden
// number, auto-read, addressing, restrictions, picture), pairing from the phone (QR scan, code),
// logging devices out, sending and reading as the phone, and what each phone sent and received.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { ACCOUNT_ADDRESSING } from "../addressing-rules.ts";
import { SimnetError } from "../errors.ts";
import { markRead } from "../messaging/acks.ts";
import { sendMessage } from "../messaging/send.ts";
import { inboxView, sentView } from "../messaging/views.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { logoutDevices } from "../wire/connections.ts";
import { parseBody as parse } from "../wire/op-kit.ts";
import { scanQr, typePairingCode } from "../wire/pairing.ts";
import { capping, phoneInputSchema, sendArgsSchema, timelock } from "../wire/protocol.ts";
import { pictureBody } from "./picture.ts";

const phoneParams = z.object({ phone: z.string() });
const autoRead = z.union([z.boolean().transform((b) => (b ? 1 : 0)), z.number().int().min(0).max(1000)]);

const accountInput = z.object({
  phone: phoneInputSchema,
  pushName: z.string().min(1).max(100).optional(),
  hidePhone: z.boolean().optional(),
  autoRead: autoRead.optional(),
  /** How its conversations are addressed: `lid` (LID-migrated), `pn`, `any` (docs/simnet.md "Addressing"). */
  addressing: z.enum(ACCOUNT_ADDRESSING).optional(),
  /** Refuses first contact: 463 for a number it never wrote to. */
  refusesFirstContact: z.boolean().optional(),
});
const listQuery = z.object({
  since: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});

function accountView(state: SimnetState, acc: Account) {
  return {
    phone: acc.phone,
    lid: acc.lid,
    pushName: acc.pushName,
    hidePhone: acc.hidePhone,
    revealed: acc.revealed,
    autoRead: acc.autoRead,
    addressing: acc.addressing,
    refusesFirstContact: acc.refusesFirstContact,
    createdAt: new Date(acc.createdAt).toISOString(),
    devices: [...acc.devices].flatMap((id) => {
      const d = state.devices.get(id);
      if (!d) return [];
      return [
        {
          deviceId: d.deviceId,
          instanceId: d.instanceId,
          deviceName: d.deviceName,
          browserName: d.browserName,
          open: state.openConnectionOf(d) !== undefined,
          pending: d.pending.length,
          createdAt: new Date(d.createdAt).toISOString(),
        },
      ];
    }),
    capping: state.capping(acc),
    timelock: state.timelock(acc),
  };
}

function page<T extends { seq: number }>(items: T[], q: z.infer<typeof listQuery>): T[] {
  const after = q.since ?? 0;
  const filtered = after > 0 ? items.filter((i) => i.seq > after) : items;
  return q.limit ? filtered.slice(-q.limit) : filtered;
}

export function phoneRoutes(app: FastifyInstance, state: SimnetState): void {
  const phoneOf = (req: FastifyRequest) => parse(phoneParams, req.params).phone;
  const account = (req: FastifyRequest) => state.requireAccount(phoneOf(req));

  app.post("/simnet/phones", async (req, reply) => {
    const input = parse(accountInput, req.body);
    const existed = state.findAccount(input.phone);
    const acc = state.ensureAccount(input.phone);
    if (input.pushName !== undefined) acc.pushName = input.pushName;
    if (input.hidePhone !== undefined) {
      acc.hidePhone = input.hidePhone;
      if (input.hidePhone) acc.revealed = false;
    }
    if (input.autoRead !== undefined) acc.autoRead = input.autoRead;
    if (input.addressing !== undefined) acc.addressing = input.addressing;
    if (input.refusesFirstContact !== undefined) acc.refusesFirstContact = input.refusesFirstContact;
    return reply.code(existed ? 200 : 201).send(accountView(state, acc));
  });

  app.get("/simnet/phones", async () => ({ phones: [...state.accounts.values()].map((a) => accountView(state, a)) }));

  app.get("/simnet/phones/:phone", async (req) => accountView(state, account(req)));

  app.post("/simnet/phones/:phone/scan", async (req) => {
    const body = parse(z.object({ qr: z.string().min(1), pushName: z.string().min(1).optional() }), req.body);
    return scanQr(state, phoneOf(req), body.qr, body.pushName);
  });

  app.post("/simnet/phones/:phone/pairing-code", async (req) => {
    const body = parse(z.object({ code: z.string().min(1), pushName: z.string().min(1).optional() }), req.body);
    return typePairingCode(state, phoneOf(req), body.code, body.pushName);
  });

  app.post("/simnet/phones/:phone/logout", async (req) => {
    const acc = account(req);
    const { deviceId } = parse(z.object({ deviceId: z.string().optional() }), req.body);
    if (deviceId && !acc.devices.has(deviceId))
      throw new SimnetError("not_found", `${acc.phone} has no device ${deviceId}`);
    const devices = [...acc.devices]
      .filter((id) => !deviceId || id === deviceId)
      .flatMap((id) => {
        const d = state.devices.get(id);
        return d ? [d] : [];
      });
    logoutDevices(state, devices, "the phone removed this device");
    return { removed: devices.map((d) => d.deviceId) };
  });

  /** The phone sets (or, with `null`, removes) its profile picture. */
  app.put("/simnet/phones/:phone/picture", async (req) => {
    const acc = account(req);
    acc.picture = parse(pictureBody, req.body).picture;
    return { picture: acc.picture };
  });

  app.post("/simnet/phones/:phone/reveal", async (req) => {
    const acc = account(req);
    acc.revealed = true;
    return accountView(state, acc);
  });

  app.put("/simnet/phones/:phone/restrictions", async (req) => {
    const acc = account(req);
    const body = parse(
      z.object({
        capping: capping.partial().nullable().optional(),
        timelock: timelock.partial().nullable().optional(),
      }),
      req.body,
    );
    if (body.capping !== undefined) acc.restrictions.capping = body.capping ?? {};
    if (body.timelock !== undefined) acc.restrictions.timelock = body.timelock ?? {};
    return { capping: state.capping(acc), timelock: state.timelock(acc) };
  });

  app.post("/simnet/phones/:phone/send", async (req, reply) => {
    const args = parse(sendArgsSchema, req.body);
    const acc = state.ensureAccount(phoneOf(req));
    return reply.code(201).send(sendMessage(state, acc, { kind: "phone" }, args));
  });

  app.post("/simnet/phones/:phone/read", async (req) => {
    const acc = account(req);
    const body = parse(
      z.object({ ids: z.array(z.string().min(1)).optional(), played: z.boolean().optional() }),
      req.body,
    );
    return { read: markRead(state, acc, body.ids, body.played ?? true) };
  });

  app.get("/simnet/phones/:phone/inbox", async (req) => {
    const acc = account(req);
    const q = parse(listQuery, req.query);
    return { messages: page(acc.inbox, q).map((m) => inboxView(state, m, acc)) };
  });

  app.get("/simnet/phones/:phone/sent", async (req) => {
    const acc = account(req);
    const q = parse(listQuery, req.query);
    return { messages: page(acc.sent, q).map(sentView) };
  });

  app.get("/simnet/phones/:phone/presence-log", async (req) => {
    const acc = account(req);
    const q = parse(listQuery, req.query);
    return { presences: page(acc.presenceLog, q) };
  });
}
