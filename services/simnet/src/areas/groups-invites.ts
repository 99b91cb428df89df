// Group invites on the simulated network: the invite code and link, a look at the group before
// joining, joining by the code (straight in, or a request the admins approve), and the pending
// requests answered — as the network does them, announced like every group change.
import { SimnetError } from "../errors.ts";
import { nowSeconds } from "../ids.ts";
import type { Account, Group } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import {
  contact,
  extraOf,
  groupsMemory,
  newInviteCode,
  participantsEvent,
  type Result,
  requireAdmin,
  updateEvent,
} from "./groups-model.ts";

export function groupByInvite(state: SimnetState, code: string): Group {
  for (const [id, e] of groupsMemory(state).extras) {
    if (e.inviteCode === code) {
      const g = state.groups.get(id);
      if (g) return g;
    }
  }
  throw new SimnetError("not_found", "no group has this invite code");
}

export function invite(state: SimnetState, actor: Account, group: Group, revoke: boolean) {
  requireAdmin(group, actor);
  const e = extraOf(state, group);
  if (revoke) {
    e.inviteCode = newInviteCode();
    updateEvent(state, group, actor, "invite", {});
  }
  return { code: e.inviteCode, link: `https://chat.whatsapp.com/${e.inviteCode}` };
}

export function invitePreview(state: SimnetState, code: string) {
  const group = groupByInvite(state, code);
  const e = extraOf(state, group);
  const owner = e.owner ? state.accounts.get(e.owner) : undefined;
  return {
    id: group.id,
    name: group.subject,
    description: e.description,
    size: group.participants.size,
    creation: group.creation,
    owner: owner ? `${owner.phone}@c.us` : null,
    joinApproval: e.joinApproval,
  };
}

export function joinByInvite(state: SimnetState, actor: Account, code: string) {
  const group = groupByInvite(state, code);
  if (group.participants.has(actor.phone)) return { groupId: group.id, status: "joined" as const };
  const e = extraOf(state, group);
  if (e.joinApproval) {
    e.requests.set(actor.phone, nowSeconds());
    const admins = [...group.admins].flatMap((p) => state.accounts.get(p) ?? []);
    for (const admin of admins) {
      state.deliverEvent(admin, "group.join_request", {
        chatId: group.id,
        group: { id: group.id, name: group.subject },
        action: "created",
        requester: contact(state, actor, admin.phone),
        method: "invite_link",
        timestamp: nowSeconds(),
      });
    }
    return { groupId: group.id, status: "pending_approval" as const };
  }
  group.participants.add(actor.phone);
  participantsEvent(state, group, actor, "add", [actor.phone]);
  return { groupId: group.id, status: "joined" as const };
}

export function joinRequests(state: SimnetState, actor: Account, group: Group) {
  requireAdmin(group, actor);
  return [...extraOf(state, group).requests].flatMap(([phone, at]) => {
    const acc = state.accounts.get(phone);
    return acc ? [{ ...contact(state, acc, actor.phone), requestedAt: at }] : [];
  });
}

export function answerRequests(
  state: SimnetState,
  actor: Account,
  group: Group,
  action: "approve" | "reject",
  ids: string[],
): Result[] {
  requireAdmin(group, actor);
  const e = extraOf(state, group);
  const approved: string[] = [];
  const results = ids.map((id): Result => {
    const target = id.endsWith("@lid") ? state.accountsByLid.get(id) : state.findAccount(id);
    if (!target || !e.requests.has(target.phone))
      return { id, status: "not_participant", message: "sem pedido de entrada" };
    e.requests.delete(target.phone);
    if (action === "approve") {
      group.participants.add(target.phone);
      approved.push(target.phone);
    }
    return {
      id: state.peer(target, actor.phone).id,
      status: "ok",
      message: action === "approve" ? "aprovado" : "recusado",
    };
  });
  if (approved.length > 0) participantsEvent(state, group, actor, "add", approved);
  return results;
}
