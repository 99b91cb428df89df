// Groups on the simulated network (docs/simnet.md "Groups"): the wire operations a device asks
// for, the control API that acts as any phone, and `message.ack.group` per participant.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { nowSeconds } from "../ids.ts";
import { receiptListeners } from "../messaging/acks.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { type OpDef, openOp, parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";
import { answerRequests, invite, invitePreview, joinByInvite, joinRequests } from "./groups-invites.ts";
import {
  changeParticipants,
  createGroup,
  type GroupAddPrivacy,
  groupsOf,
  groupView,
  leaveGroup,
  requireGroup,
  setDescription,
  setPicture,
  setPrivacy,
  setSettings,
  setSubject,
} from "./groups-model.ts";

const picture = z.object({ data: z.string().min(1), mimetype: z.string().min(3) });
const gid = z.object({ groupId: z.string().regex(/^\d+(-\d+)?@g\.us$/) });
const settingsPatch = z.object({
  messagesAdminOnly: z.boolean().optional(),
  infoAdminOnly: z.boolean().optional(),
  joinApproval: z.boolean().optional(),
  memberAddMode: z.enum(["admins", "all"]).optional(),
});

/** Every group operation as a function of the acting account and its arguments. */
const actions: Record<string, { schema: z.ZodType; run: (state: SimnetState, acc: Account, a: never) => unknown }> = {
  "groups.create": {
    schema: z.object({
      subject: z.string().min(1).max(100),
      participants: z.array(z.string().min(1)),
      description: z.string().optional(),
      picture: picture.optional(),
    }),
    run: (state, acc, a: Parameters<typeof createGroup>[2]) => createGroup(state, acc, a),
  },
  "groups.list": { schema: z.object({}).loose(), run: (state, acc) => groupsOf(state, acc) },
  "groups.get": {
    schema: gid,
    run: (state, acc, a: { groupId: string }) => {
      const g = requireGroup(state, a.groupId);
      // The network shows a group's metadata to its participants only.
      if (!g.participants.has(acc.phone)) throw new SimnetError("not_found", `${acc.phone} is not in ${g.id}`);
      return groupView(state, g, acc.phone);
    },
  },
  "groups.leave": {
    schema: gid,
    run: (state, acc, a: { groupId: string }) => leaveGroup(state, acc, requireGroup(state, a.groupId)),
  },
  "groups.subject": {
    schema: gid.extend({ subject: z.string().min(1).max(100) }),
    run: (state, acc, a: { groupId: string; subject: string }) =>
      setSubject(state, acc, requireGroup(state, a.groupId), a.subject),
  },
  "groups.description": {
    schema: gid.extend({ description: z.string().max(2048) }),
    run: (state, acc, a: { groupId: string; description: string }) =>
      setDescription(state, acc, requireGroup(state, a.groupId), a.description),
  },
  "groups.picture": {
    schema: gid.extend({ picture: picture.nullable() }),
    run: (state, acc, a: { groupId: string; picture: { data: string; mimetype: string } | null }) =>
      setPicture(state, acc, requireGroup(state, a.groupId), a.picture),
  },
  "groups.settings": {
    schema: gid.extend({ settings: settingsPatch }),
    run: (state, acc, a: { groupId: string; settings: z.infer<typeof settingsPatch> }) =>
      setSettings(state, acc, requireGroup(state, a.groupId), a.settings),
  },
  "groups.participants": {
    schema: gid.extend({
      action: z.enum(["add", "remove", "promote", "demote"]),
      participants: z.array(z.string().min(1)).min(1),
      inviteOnPrivacy: z.boolean().optional(),
    }),
    run: (
      state,
      acc,
      a: {
        groupId: string;
        action: "add" | "remove" | "promote" | "demote";
        participants: string[];
        inviteOnPrivacy?: boolean;
      },
    ) =>
      changeParticipants(
        state,
        acc,
        requireGroup(state, a.groupId),
        a.action,
        a.participants,
        a.inviteOnPrivacy ?? false,
      ),
  },
  "groups.invite": {
    schema: gid.extend({ revoke: z.boolean().default(false) }),
    run: (state, acc, a: { groupId: string; revoke: boolean }) =>
      invite(state, acc, requireGroup(state, a.groupId), a.revoke),
  },
  "groups.invite-info": {
    schema: z.object({ code: z.string().min(1) }),
    run: (state, _acc, a: { code: string }) => invitePreview(state, a.code),
  },
  "groups.join": {
    schema: z.object({ code: z.string().min(1) }),
    run: (state, acc, a: { code: string }) => joinByInvite(state, acc, a.code),
  },
  "groups.requests": {
    schema: gid,
    run: (state, acc, a: { groupId: string }) => joinRequests(state, acc, requireGroup(state, a.groupId)),
  },
  "groups.requests-answer": {
    schema: gid.extend({ action: z.enum(["approve", "reject"]), participants: z.array(z.string().min(1)).min(1) }),
    run: (state, acc, a: { groupId: string; action: "approve" | "reject"; participants: string[] }) =>
      answerRequests(state, acc, requireGroup(state, a.groupId), a.action, a.participants),
  },
};

const ops: Record<string, OpDef> = Object.fromEntries(
  Object.entries(actions).map(([name, act]) => [
    name,
    openOp(act.schema, ({ state, acc }, args) => act.run(state, acc, args as never) ?? { ok: true }),
  ]),
);

function control(app: FastifyInstance, state: SimnetState): void {
  // A phone acts on groups, as its device would: `{op, args}` of the wire operations above.
  app.post("/simnet/phones/:phone/groups", async (req) => {
    const { phone } = parseBody(z.object({ phone: z.string() }), req.params);
    const acc = state.requireAccount(phone);
    const { op, args } = parseBody(z.object({ op: z.string(), args: z.unknown().optional() }), req.body);
    const act = actions[op];
    if (!act) throw new Error(`unknown group op ${op}`);
    return { result: act.run(state, acc, parseBody(act.schema, args) as never) ?? { ok: true } };
  });
  // Who may add the phone to groups (the network's privacy setting).
  app.put("/simnet/phones/:phone/privacy", async (req) => {
    const { phone } = parseBody(z.object({ phone: z.string() }), req.params);
    const acc = state.requireAccount(phone);
    const { groupAdd } = parseBody(z.object({ groupAdd: z.enum(["everyone", "contacts", "nobody"]) }), req.body);
    setPrivacy(state, acc.phone, groupAdd as GroupAddPrivacy);
    return { phone: acc.phone, groupAdd };
  });
}

// `message.ack.group`: a participant received, read or played a message its sender sent to a group.
receiptListeners.push((state, msg, phone, status) => {
  if (!msg.groupId) return;
  const sender = state.accounts.get(msg.senderPhone);
  const participant = state.accounts.get(phone);
  if (!sender || !participant) return;
  const p = state.peer(participant, sender.phone);
  state.deliverEvent(sender, "message.ack.group", {
    id: `true_${msg.groupId}_${msg.id}`,
    chatId: msg.groupId,
    participant: { id: p.id, phone: p.phone ?? "", lid: p.lid, pushName: p.pushName },
    status,
    timestamp: nowSeconds(),
  });
});

export const groupsArea: SimnetArea = { name: "groups", ops, control };
