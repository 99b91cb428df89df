// Presence on the simulated network (spec 4.9; docs/simnet.md "Presence"): each account is online
// or not, with the time it was last seen; a device subscribes to a contact's or a group's presence
// and, while its connection lasts, hears that contact go online or offline and type or record in
// their chat (in a group, the members typing there). Nothing is heard without a subscription, as
// on the real network. The control API makes a virtual contact go online, offline, type or record.
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { nowSeconds } from "../ids.ts";
import { resolveTarget } from "../messaging/targets.ts";
import type { Origin } from "../messaging/types.ts";
import type { Account, Connection } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { openOp, parseBody } from "../wire/op-kit.ts";
import { chatTargetSchema, type PresenceState, presenceArgsSchema, type ServerFrame } from "../wire/protocol.ts";
import type { SimnetArea } from "./area.ts";
import { blocks } from "./contacts-model.ts";

interface PresenceMemory {
  /** Each account's own presence (absent: offline, never seen). */
  status: Map<string, { online: boolean; lastSeen: number | null }>;
  /**
   * What each connection subscribed to: `p:<phone>` for an account, the group id for a group. A
   * subscription lasts as long as its connection, as on the real network (a new one subscribes again).
   */
  subs: Map<string, Set<string>>;
}

const memory = (state: SimnetState) =>
  state.area<PresenceMemory>("presence", () => ({ status: new Map(), subs: new Map() }));

const CHAT_STATES = new Set<PresenceState>(["composing", "recording", "paused"]);
const accountKey = (acc: Account) => `p:${acc.phone}`;

function statusOf(state: SimnetState, acc: Account) {
  return memory(state).status.get(acc.phone) ?? { online: false, lastSeen: null };
}

/** The open connections subscribed to `target`, with their account; closed ones are forgotten. */
function subscribers(state: SimnetState, target: string): { conn: Connection; viewer: Account }[] {
  const mem = memory(state);
  const out: { conn: Connection; viewer: Account }[] = [];
  for (const [connId, targets] of mem.subs) {
    const conn = state.connections.get(connId);
    if (!conn || conn.state === "closed") {
      mem.subs.delete(connId);
      continue;
    }
    if (!targets.has(target) || conn.state !== "open" || !conn.phone) continue;
    const viewer = state.accounts.get(conn.phone);
    if (viewer && conn.ws.readyState === conn.ws.OPEN) out.push({ conn, viewer });
  }
  return out;
}

function frameOf(
  state: SimnetState,
  sender: Account,
  viewer: Account,
  chatId: string | null,
  presence: PresenceState,
  lastSeen: number | null,
): ServerFrame {
  const from = state.peer(sender, viewer.phone);
  return {
    type: "presence",
    chatId: chatId ?? from.id,
    from,
    state: presence,
    timestamp: nowSeconds(),
    ...(presence === "unavailable" ? { lastSeen } : {}),
  };
}

/** Presence does not pass between two people when either blocked the other. */
const blockedEitherWay = (state: SimnetState, a: Account, b: Account) =>
  blocks(state, a.phone, b.phone) || blocks(state, b.phone, a.phone);

/**
 * `sender` sets its presence: `available`/`unavailable` for the whole account (heard by whoever
 * subscribed to it), or an indicator in the chat `to` (heard there by the other side, or the
 * group's members, when subscribed). Every change is kept in the sender's presence log.
 */
export function sendPresence(
  state: SimnetState,
  sender: Account,
  origin: Origin,
  args: { to?: string | undefined; state: PresenceState },
): Record<string, never> {
  let to: string | null = null;
  const timestamp = nowSeconds();
  if (CHAT_STATES.has(args.state)) {
    if (!args.to) throw new SimnetError("bad_request", `${args.state} needs the chat it happens in (to)`);
    const target = resolveTarget(state, args.to);
    to = target.chatId;
    if (target.kind === "group") {
      const group = target.group;
      if (!group.participants.has(sender.phone))
        throw new SimnetError("network_rejected", `${sender.phone} is not a participant of ${group.id}`);
      for (const { conn, viewer } of subscribers(state, group.id)) {
        if (viewer !== sender && group.participants.has(viewer.phone))
          state.sendFrame(conn, frameOf(state, sender, viewer, group.id, args.state, null));
      }
    } else if (target.acc !== sender && !blockedEitherWay(state, sender, target.acc)) {
      for (const { conn, viewer } of subscribers(state, accountKey(sender))) {
        if (viewer === target.acc) state.sendFrame(conn, frameOf(state, sender, viewer, null, args.state, null));
      }
    }
    memory(state).status.set(sender.phone, { online: true, lastSeen: null });
  } else {
    if (args.to) to = resolveTarget(state, args.to).chatId;
    const online = args.state === "available";
    const lastSeen = online ? null : timestamp;
    memory(state).status.set(sender.phone, { online, lastSeen });
    for (const { conn, viewer } of subscribers(state, accountKey(sender))) {
      if (viewer !== sender && !blockedEitherWay(state, sender, viewer))
        state.sendFrame(conn, frameOf(state, sender, viewer, null, args.state, lastSeen));
    }
  }
  state.push(sender.presenceLog, {
    seq: state.nextSeq(),
    at: Date.now(),
    timestamp,
    to,
    state: args.state,
    origin: origin.kind,
    deviceId: origin.kind === "device" ? origin.device.deviceId : null,
    instanceId: origin.kind === "device" ? origin.device.instanceId : null,
  });
  return {};
}

/**
 * The connection subscribes to a contact's or a group's presence. A contact's current presence is
 * sent at once (the network answers a subscription with it); a group's members are heard as they
 * type. Only the group's members may subscribe to it.
 */
function subscribe(state: SimnetState, conn: Connection, acc: Account, to: string): Record<string, never> {
  const target = resolveTarget(state, to);
  const mem = memory(state);
  let key: string;
  if (target.kind === "group") {
    if (!target.group.participants.has(acc.phone))
      throw new SimnetError("network_rejected", `${acc.phone} is not a participant of ${target.group.id}`);
    key = target.group.id;
  } else {
    key = accountKey(target.acc);
  }
  const set = mem.subs.get(conn.id) ?? new Set<string>();
  set.add(key);
  mem.subs.set(conn.id, set);
  if (target.kind === "user" && target.acc !== acc && !blockedEitherWay(state, target.acc, acc)) {
    const now = statusOf(state, target.acc);
    state.sendFrame(
      conn,
      frameOf(state, target.acc, acc, null, now.online ? "available" : "unavailable", now.lastSeen),
    );
  }
  return {};
}

/** An account's presence and who listens to it, for the control API. */
function presenceView(state: SimnetState, acc: Account) {
  const mem = memory(state);
  const own = statusOf(state, acc);
  const subscriptions: { target: string; instanceId: string | null; deviceId: string | null }[] = [];
  for (const [connId, targets] of mem.subs) {
    const conn = state.connections.get(connId);
    if (conn?.state !== "open" || conn.phone !== acc.phone) continue;
    for (const t of targets) {
      subscriptions.push({
        target: t.startsWith("p:") ? `${t.slice(2)}@c.us` : t,
        instanceId: conn.instanceId,
        deviceId: conn.deviceId,
      });
    }
  }
  return {
    phone: acc.phone,
    online: own.online,
    lastSeen: own.lastSeen,
    subscribers: subscribers(state, accountKey(acc)).map(({ conn, viewer }) => ({
      phone: viewer.phone,
      instanceId: conn.instanceId,
      deviceId: conn.deviceId,
    })),
    subscriptions,
  };
}

const phoneParams = z.object({ phone: z.string().min(1) });

export const presenceArea: SimnetArea = {
  name: "presence",
  ops: {
    presence: openOp(presenceArgsSchema, ({ state, acc, origin }, a) => sendPresence(state, acc, origin, a)),
    "presence-subscribe": openOp(z.object({ to: chatTargetSchema }), ({ state, conn, acc }, a) =>
      subscribe(state, conn, acc, a.to),
    ),
  },
  control(app, state) {
    const account = (raw: unknown) => state.requireAccount(parseBody(phoneParams, raw).phone);

    /** The phone goes online or offline, or types / records / stops in a chat (`to`). */
    app.post("/simnet/phones/:phone/presence", async (req) =>
      sendPresence(state, account(req.params), { kind: "phone" }, parseBody(presenceArgsSchema, req.body)),
    );

    /** `{phone, online, lastSeen, subscribers, subscriptions}`: its presence, who hears it, what it hears. */
    app.get("/simnet/phones/:phone/presence", async (req) => presenceView(state, account(req.params)));
  },
};
