// The control API (HTTP, Bearer ADMIN_TOKEN): what tests, demos and benchmarks use to act as the
// phones and as the network.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ACCOUNT_ADDRESSING } from "./addressing-rules.ts";
import { SIMNET_AREAS } from "./areas.ts";
import { closeConnection, dropConnection, logoutDevices } from "./connections.ts";
import { SimnetError } from "./errors.ts";
import { newGroupId, nowSeconds, sameSecret } from "./ids.ts";
import { groupMetadata, inboxView, markRead, sendMessage, sentView } from "./messaging.ts";
import { parseBody as parse } from "./op-kit.ts";
import { scanQr, typePairingCode } from "./pairing.ts";
import { capping, phoneInputSchema, sendArgsSchema, timelock } from "./protocol.ts";
import type { Account, Group, SimnetState } from "./state.ts";

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
const groupInput = z.object({
  subject: z.string().min(1).max(100),
  participants: z.array(z.string().min(1)).min(1),
  admins: z.array(z.string().min(1)).optional(),
  onlyAdminsCanSend: z.boolean().optional(),
});
const groupPatch = groupInput.partial();
/** A group made by the control API may be given its id: a legacy `<creator's number>-<timestamp>@g.us` one too. */
const newGroupInput = groupInput.extend({
  id: z
    .string()
    .regex(/^\d+(-\d+)?@g\.us$/)
    .optional(),
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

function groupView(group: Group) {
  return {
    id: group.id,
    subject: group.subject,
    participants: [...group.participants],
    admins: [...group.admins],
    onlyAdminsCanSend: group.onlyAdminsCanSend,
    creation: group.creation,
  };
}

function resolveMembers(state: SimnetState, phones: string[]): string[] {
  const missing: string[] = [];
  const out = new Set<string>();
  for (const p of phones) {
    const acc = state.findAccount(p);
    if (acc) out.add(acc.phone);
    else missing.push(p);
  }
  if (missing.length > 0)
    throw new SimnetError("not_on_network", `not on the network: ${missing.join(", ")}`, { missing });
  return [...out];
}

function page<T extends { seq: number }>(items: T[], q: z.infer<typeof listQuery>): T[] {
  const after = q.since ?? 0;
  const filtered = after > 0 ? items.filter((i) => i.seq > after) : items;
  return q.limit ? filtered.slice(-q.limit) : filtered;
}

export interface ControlHooks {
  startOutage(seconds: number): void;
  reset(): void;
}

/** `PUT …/picture`: a profile or group picture, or null to remove it. */
const pictureBody = z.object({
  picture: z.object({ data: z.string().min(1), mimetype: z.string().min(3) }).nullable(),
});
export function registerControl(app: FastifyInstance, state: SimnetState, hooks: ControlHooks): void {
  app.setErrorHandler((err, req, reply: FastifyReply) => {
    if (err instanceof SimnetError) return reply.code(err.status).send(err.toBody());
    const fe = err as { statusCode?: number; message?: string };
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply
        .code(fe.statusCode)
        .send({ error: { code: fe.statusCode === 401 ? "unauthorized" : "bad_request", message: fe.message ?? "" } });
    }
    req.log.error({ err }, "simnet control error");
    return reply.code(500).send({ error: { code: "internal_error", message: "unexpected error" } });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: { code: "not_found", message: "no route" } }));

  app.addHook("onRequest", async (req: FastifyRequest) => {
    if (!req.url.startsWith("/simnet")) return;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!m?.[1] || !sameSecret(m[1], state.opts.adminToken))
      throw new SimnetError("unauthorized", "Authorization: Bearer <ADMIN_TOKEN> required");
  });

  const phoneOf = (req: FastifyRequest) => parse(phoneParams, req.params).phone;
  const account = (req: FastifyRequest) => state.requireAccount(phoneOf(req));

  app.get("/healthz", async () => ({ status: "ok" }));

  // --- network ---------------------------------------------------------------------------------

  app.get("/simnet/stats", async () => ({
    conflicts: state.stats.conflicts,
    connectionsOpened: state.stats.connectionsOpened,
    connectionsAccepted: state.stats.connectionsAccepted,
    instanceOverlaps: state.stats.instanceOverlaps,
    refusedUpgrades: state.stats.refusedUpgrades,
    messagesSent: state.stats.messagesSent,
    conflictLog: state.stats.conflictLog,
    connections: state.connections.size,
    outageUntil: state.faults.outageUntil > Date.now() ? new Date(state.faults.outageUntil).toISOString() : null,
    slowMs: state.faults.slowMs,
    openDelayMs: state.faults.openDelayMs,
    rateLimitSends: state.faults.rateLimitSends,
  }));

  app.get("/simnet/connections", async () => ({
    connections: [...state.connections.values()].map((c) => ({
      connectionId: c.id,
      instanceId: c.instanceId,
      pod: c.pod,
      state: c.state,
      phone: c.phone,
      deviceId: c.deviceId,
      since: new Date(c.since).toISOString(),
    })),
  }));

  app.get("/simnet/instances/:instanceId/qr", async (req) => {
    const { instanceId } = parse(z.object({ instanceId: z.string() }), req.params);
    const conn = [...state.connections.values()]
      .filter((c) => c.instanceId === instanceId && c.state === "pairing" && c.qr)
      .at(-1);
    if (!conn?.qr) throw new SimnetError("not_pairing", `no connection of ${instanceId} is showing a QR code`);
    return { value: conn.qr, connectionId: conn.id, shown: conn.qrShown };
  });

  app.post("/simnet/faults/drop", async (req) => {
    const { instanceId } = parse(z.object({ instanceId: z.string().optional() }), req.body);
    const conns = [...state.connections.values()].filter((c) => !instanceId || c.instanceId === instanceId);
    for (const c of conns) dropConnection(state, c);
    return { dropped: conns.length };
  });

  app.post("/simnet/faults/outage", async (req) => {
    const { seconds } = parse(z.object({ seconds: z.number().min(0).max(86_400) }), req.body);
    hooks.startOutage(seconds);
    return {
      outageUntil: state.faults.outageUntil > Date.now() ? new Date(state.faults.outageUntil).toISOString() : null,
    };
  });

  app.post("/simnet/faults/slow", async (req) => {
    const { ms } = parse(z.object({ ms: z.number().int().min(0).max(600_000) }), req.body);
    state.faults.slowMs = ms;
    return { slowMs: ms };
  });

  // A device's session opens this long after its hello (a slow handshake): the window in which
  // an instance's new owner holds its lease but not yet its connection.
  app.post("/simnet/faults/slow-open", async (req) => {
    const { ms } = parse(z.object({ ms: z.number().int().min(0).max(600_000) }), req.body);
    state.faults.openDelayMs = ms;
    return { openDelayMs: ms };
  });

  app.post("/simnet/faults/rate-limit", async (req) => {
    const { sends, phone } = parse(
      z.object({ sends: z.number().int().min(0).max(1_000_000), phone: z.string().optional() }),
      req.body,
    );
    if (phone === undefined) {
      state.faults.rateLimitSends = sends;
      return { rateLimitSends: sends };
    }
    const acc = state.requireAccount(phone);
    if (sends === 0) state.faults.rateLimitedPhones.delete(acc.phone);
    else state.faults.rateLimitedPhones.set(acc.phone, sends);
    return { rateLimitSends: sends, phone: acc.phone };
  });

  /** One instance cannot reach the network for N seconds (0 ends it): its connection is cut, reconnects reset. */
  app.post("/simnet/faults/unreachable", async (req) => {
    const { instanceId, seconds } = parse(
      z.object({ instanceId: z.string().min(1).max(200), seconds: z.number().min(0).max(86_400) }),
      req.body,
    );
    if (seconds === 0) state.faults.unreachable.delete(instanceId);
    else {
      state.faults.unreachable.set(instanceId, Date.now() + seconds * 1000);
      for (const conn of [...state.connections.values()]) if (conn.instanceId === instanceId) conn.ws.terminate();
    }
    const until = state.faults.unreachable.get(instanceId);
    return { instanceId, unreachableUntil: until ? new Date(until).toISOString() : null };
  });

  app.post("/simnet/reset", async () => {
    hooks.reset();
    return { ok: true };
  });

  // --- phones ----------------------------------------------------------------------------------

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

  // --- groups ----------------------------------------------------------------------------------

  app.post("/simnet/groups", async (req, reply) => {
    const input = parse(newGroupInput, req.body);
    if (input.id && state.groups.has(input.id)) throw new SimnetError("validation_error", `group ${input.id} exists`);
    const participants = resolveMembers(state, input.participants);
    const admins = input.admins ? resolveMembers(state, input.admins) : participants.slice(0, 1);
    const notMember = admins.filter((a) => !participants.includes(a));
    if (notMember.length > 0)
      throw new SimnetError("validation_error", `admins must be participants: ${notMember.join(", ")}`);
    let id = input.id ?? newGroupId();
    while (state.groups.has(id)) id = newGroupId();
    const group: Group = {
      id,
      subject: input.subject,
      participants: new Set(participants),
      admins: new Set(admins),
      onlyAdminsCanSend: input.onlyAdminsCanSend ?? false,
      creation: nowSeconds(),
    };
    state.groups.set(id, group);
    return reply.code(201).send(groupView(group));
  });

  const groupOf = (req: FastifyRequest) => {
    const { groupId } = parse(z.object({ groupId: z.string() }), req.params);
    const group = state.groups.get(groupId);
    if (!group) throw new SimnetError("not_found", `no group ${groupId}`);
    return group;
  };

  app.get("/simnet/groups", async () => ({ groups: [...state.groups.values()].map(groupView) }));

  app.get("/simnet/groups/:groupId", async (req) => {
    const group = groupOf(req);
    return { ...groupView(group), metadata: groupMetadata(state, group, null) };
  });

  app.patch("/simnet/groups/:groupId", async (req) => {
    const group = groupOf(req);
    const input = parse(groupPatch, req.body);
    const participants = input.participants ? resolveMembers(state, input.participants) : [...group.participants];
    const admins = input.admins
      ? resolveMembers(state, input.admins)
      : [...group.admins].filter((a) => participants.includes(a));
    const notMember = admins.filter((a) => !participants.includes(a));
    if (notMember.length > 0)
      throw new SimnetError("validation_error", `admins must be participants: ${notMember.join(", ")}`);
    if (input.subject !== undefined) group.subject = input.subject;
    if (input.onlyAdminsCanSend !== undefined) group.onlyAdminsCanSend = input.onlyAdminsCanSend;
    group.participants = new Set(participants);
    group.admins = new Set(admins);
    return groupView(group);
  });

  /** A group's picture (`null` removes it). */
  app.put("/simnet/groups/:groupId/picture", async (req) => {
    const group = groupOf(req);
    group.picture = parse(pictureBody, req.body).picture;
    return { picture: group.picture };
  });

  // The feature areas' own routes (areas.ts).
  for (const area of SIMNET_AREAS) area.control?.(app, state);
}

/** Every connection gets `close` with this reason. */
export function closeAll(state: SimnetState, reason: "outage", message: string): void {
  for (const conn of [...state.connections.values()]) closeConnection(state, conn, reason, message);
}
