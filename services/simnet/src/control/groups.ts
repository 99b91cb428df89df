// The control API's group routes: groups made, read and changed as any of their phones would
// (subject, participants, admins, who may send, picture).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { newGroupId, nowSeconds } from "../ids.ts";
import { groupMetadata } from "../messaging/targets.ts";
import type { Group } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { parseBody as parse } from "../wire/op-kit.ts";
import { pictureBody } from "./picture.ts";

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

export function groupRoutes(app: FastifyInstance, state: SimnetState): void {
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
}
