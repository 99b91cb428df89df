// Groups on the simulated network: what a group is beyond its participants (description, roles,
// settings, invite code, join requests), the accounts' privacy for being added, and every change
// to its members, info and settings as the network does it — refused when the actor may not,
// announced to the participants' devices. Invites and join requests: groups-invites.ts.
import { randomBytes } from "node:crypto";
import { SimnetError } from "../errors.ts";
import { newGroupId, nowSeconds } from "../ids.ts";
import type { Account, Group } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";

export type GroupAddPrivacy = "everyone" | "contacts" | "nobody";

export interface GroupExtra {
  description: string;
  owner: string | null;
  /** Super admins (the creator): they cannot be demoted by other admins. */
  superadmins: Set<string>;
  infoAdminOnly: boolean;
  joinApproval: boolean;
  memberAddMode: "admins" | "all";
  inviteCode: string;
  /** Phones waiting for approval → when they asked (unix s). */
  requests: Map<string, number>;
}

interface GroupsMemory {
  extras: Map<string, GroupExtra>;
  privacy: Map<string, GroupAddPrivacy>;
}

export const groupsMemory = (state: SimnetState) =>
  state.area<GroupsMemory>("groups", () => ({ extras: new Map(), privacy: new Map() }));

export const newInviteCode = () => randomBytes(16).toString("base64url").replace(/[-_]/g, "").slice(0, 22);

export function extraOf(state: SimnetState, group: Group): GroupExtra {
  const extras = groupsMemory(state).extras;
  let e = extras.get(group.id);
  if (!e) {
    const first = [...group.admins][0] ?? null;
    e = {
      description: "",
      owner: first,
      superadmins: new Set(first ? [first] : []),
      infoAdminOnly: false,
      joinApproval: false,
      memberAddMode: "admins",
      inviteCode: newInviteCode(),
      requests: new Map(),
    };
    extras.set(group.id, e);
  }
  return e;
}

export function setPrivacy(state: SimnetState, phone: string, groupAdd: GroupAddPrivacy): void {
  groupsMemory(state).privacy.set(phone, groupAdd);
}

// --- views -----------------------------------------------------------------------------------

export const contact = (state: SimnetState, acc: Account, viewer: string) => {
  const p = state.peer(acc, viewer);
  return { id: p.id, phone: p.phone ?? "", lid: p.lid, pushName: p.pushName };
};

export function roleOf(state: SimnetState, group: Group, phone: string): "superadmin" | "admin" | "member" {
  if (extraOf(state, group).superadmins.has(phone)) return "superadmin";
  return group.admins.has(phone) ? "admin" : "member";
}

/** The group as `viewer` sees it (participants by number or lid, their roles, the settings). */
export function groupView(state: SimnetState, group: Group, viewer: string) {
  const e = extraOf(state, group);
  const participants = [...group.participants].flatMap((p) => {
    const acc = state.accounts.get(p);
    return acc ? [{ ...contact(state, acc, viewer), role: roleOf(state, group, p) }] : [];
  });
  const owner = e.owner ? state.accounts.get(e.owner) : undefined;
  return {
    id: group.id,
    name: group.subject,
    description: e.description,
    owner: owner ? state.peer(owner, viewer).id : null,
    creation: group.creation,
    participantsCount: participants.length,
    participants,
    settings: {
      messagesAdminOnly: group.onlyAdminsCanSend,
      infoAdminOnly: e.infoAdminOnly,
      joinApproval: e.joinApproval,
      memberAddMode: e.memberAddMode,
    },
  };
}

// --- events ----------------------------------------------------------------------------------

/** An event to every participant's devices (and to `also`), shaped for each viewer. */
function announce(
  state: SimnetState,
  group: Group,
  kind: string,
  build: (viewer: Account) => Record<string, unknown>,
  also: Account[] = [],
): void {
  const seen = new Set<string>();
  for (const acc of [...[...group.participants].flatMap((p) => state.accounts.get(p) ?? []), ...also]) {
    if (seen.has(acc.phone)) continue;
    seen.add(acc.phone);
    state.deliverEvent(acc, kind, {
      chatId: group.id,
      group: { id: group.id, name: group.subject },
      timestamp: nowSeconds(),
      ...build(acc),
    });
  }
}

export function participantsEvent(
  state: SimnetState,
  group: Group,
  actor: Account,
  action: string,
  phones: string[],
): void {
  const accounts = phones.flatMap((p) => state.accounts.get(p) ?? []);
  announce(
    state,
    group,
    "group.participants",
    (viewer) => ({
      action,
      participants: accounts.map((a) => contact(state, a, viewer.phone)),
      by: contact(state, actor, viewer.phone),
    }),
    action === "remove" ? accounts : [],
  );
  for (const acc of accounts) {
    if (action === "add") {
      state.deliverEvent(acc, "group.join", {
        chatId: group.id,
        group: { id: group.id, name: group.subject },
        by: contact(state, actor, acc.phone),
        timestamp: nowSeconds(),
      });
    }
    if (action === "remove") {
      state.deliverEvent(acc, "group.leave", {
        chatId: group.id,
        group: { id: group.id, name: group.subject },
        by: contact(state, actor, acc.phone),
        reason: acc === actor ? "left" : "removed",
        timestamp: nowSeconds(),
      });
    }
  }
}

export function updateEvent(
  state: SimnetState,
  group: Group,
  actor: Account,
  changed: string,
  value: Record<string, unknown>,
) {
  announce(state, group, "group.update", (viewer) => ({ changed, ...value, by: contact(state, actor, viewer.phone) }));
}

// --- rules -----------------------------------------------------------------------------------

export function requireGroup(state: SimnetState, groupId: string): Group {
  const group = state.groups.get(groupId);
  if (!group) throw new SimnetError("not_found", `no group ${groupId}`);
  return group;
}

function requireMember(group: Group, acc: Account): void {
  if (!group.participants.has(acc.phone)) throw new SimnetError("not_found", `${acc.phone} is not in ${group.id}`);
}

export function requireAdmin(group: Group, acc: Account): void {
  requireMember(group, acc);
  if (!group.admins.has(acc.phone)) throw new SimnetError("network_rejected", "only admins can do this");
}

function requireInfoEditor(state: SimnetState, group: Group, acc: Account): void {
  requireMember(group, acc);
  if (extraOf(state, group).infoAdminOnly && !group.admins.has(acc.phone)) {
    throw new SimnetError("network_rejected", "only admins edit the group's info");
  }
}

export type Result = { id: string; status: string; message: string; invited?: boolean };

/** Whether `actor` may add `target` (the target's privacy: everyone, contacts, nobody). */
function mayAdd(state: SimnetState, actor: Account, target: Account): boolean {
  const privacy = groupsMemory(state).privacy.get(target.phone) ?? "everyone";
  if (privacy === "everyone") return true;
  return privacy === "contacts" && target.conversations.has(actor.phone);
}

// --- operations (as the network does them for `actor`) ----------------------------------------

export function createGroup(
  state: SimnetState,
  actor: Account,
  input: {
    subject: string;
    participants: string[];
    description?: string;
    picture?: { data: string; mimetype: string };
  },
) {
  let id = newGroupId();
  while (state.groups.has(id)) id = newGroupId();
  const group: Group = {
    id,
    subject: input.subject,
    participants: new Set([actor.phone]),
    admins: new Set([actor.phone]),
    onlyAdminsCanSend: false,
    creation: nowSeconds(),
    ...(input.picture ? { picture: input.picture } : {}),
  };
  state.groups.set(id, group);
  const e = extraOf(state, group);
  e.description = input.description ?? "";
  state.deliverEvent(actor, "group.join", {
    chatId: id,
    group: { id, name: group.subject },
    by: contact(state, actor, actor.phone),
    timestamp: nowSeconds(),
  });
  const results = changeParticipants(state, actor, group, "add", input.participants, false);
  return { group: groupView(state, group, actor.phone), results };
}

export function changeParticipants(
  state: SimnetState,
  actor: Account,
  group: Group,
  action: "add" | "remove" | "promote" | "demote",
  ids: string[],
  inviteOnPrivacy: boolean,
): Result[] {
  const e = extraOf(state, group);
  if (action === "add" && e.memberAddMode === "all") requireMember(group, actor);
  else requireAdmin(group, actor);
  const results: Result[] = [];
  const changed: string[] = [];
  for (const id of ids) {
    const target = id.endsWith("@lid") ? state.accountsByLid.get(id) : state.findAccount(id);
    if (!target) {
      results.push({ id, status: "not_on_network", message: "número sem conta na rede" });
      continue;
    }
    const shown = state.peer(target, actor.phone).id;
    const inGroup = group.participants.has(target.phone);
    if (action === "add") {
      if (inGroup) results.push({ id: shown, status: "already_participant", message: "já participa do grupo" });
      else if (!mayAdd(state, actor, target)) {
        results.push({
          id: shown,
          status: "privacy",
          message: "a privacidade da pessoa não permite ser adicionada",
          ...(inviteOnPrivacy ? { invited: true } : {}),
        });
      } else {
        group.participants.add(target.phone);
        changed.push(target.phone);
        results.push({ id: shown, status: "ok", message: "adicionado" });
      }
      continue;
    }
    if (!inGroup) {
      results.push({ id: shown, status: "not_participant", message: "não participa do grupo" });
      continue;
    }
    if ((action === "remove" || action === "demote") && e.superadmins.has(target.phone) && target !== actor) {
      results.push({ id: shown, status: "refused", message: "o criador do grupo não pode ser removido nem rebaixado" });
      continue;
    }
    if (action === "remove") {
      group.participants.delete(target.phone);
      group.admins.delete(target.phone);
    } else if (action === "promote") group.admins.add(target.phone);
    else group.admins.delete(target.phone);
    changed.push(target.phone);
    results.push({ id: shown, status: "ok", message: "feito" });
  }
  if (changed.length > 0) participantsEvent(state, group, actor, action, changed);
  return results;
}

export function leaveGroup(state: SimnetState, actor: Account, group: Group): void {
  requireMember(group, actor);
  group.participants.delete(actor.phone);
  group.admins.delete(actor.phone);
  participantsEvent(state, group, actor, "remove", [actor.phone]);
  // A group without admins gets one, as the network does.
  const next = [...group.participants][0];
  if (group.admins.size === 0 && next) group.admins.add(next);
}

export function setSubject(state: SimnetState, actor: Account, group: Group, subject: string): void {
  requireInfoEditor(state, group, actor);
  group.subject = subject;
  updateEvent(state, group, actor, "subject", { subject });
}

export function setDescription(state: SimnetState, actor: Account, group: Group, description: string): void {
  requireInfoEditor(state, group, actor);
  extraOf(state, group).description = description;
  updateEvent(state, group, actor, "description", { description });
}

export function setPicture(
  state: SimnetState,
  actor: Account,
  group: Group,
  picture: { data: string; mimetype: string } | null,
): void {
  requireInfoEditor(state, group, actor);
  group.picture = picture;
  updateEvent(state, group, actor, "picture", { removed: picture === null });
}

export function setSettings(
  state: SimnetState,
  actor: Account,
  group: Group,
  patch: Partial<{
    messagesAdminOnly: boolean;
    infoAdminOnly: boolean;
    joinApproval: boolean;
    memberAddMode: "admins" | "all";
  }>,
) {
  requireAdmin(group, actor);
  const e = extraOf(state, group);
  if (patch.messagesAdminOnly !== undefined) group.onlyAdminsCanSend = patch.messagesAdminOnly;
  if (patch.infoAdminOnly !== undefined) e.infoAdminOnly = patch.infoAdminOnly;
  if (patch.joinApproval !== undefined) e.joinApproval = patch.joinApproval;
  if (patch.memberAddMode !== undefined) e.memberAddMode = patch.memberAddMode;
  const settings = groupView(state, group, actor.phone).settings;
  updateEvent(state, group, actor, "settings", { settings });
  return settings;
}

export function groupsOf(state: SimnetState, acc: Account) {
  return [...state.groups.values()]
    .filter((g) => g.participants.has(acc.phone))
    .map((g) => groupView(state, g, acc.phone));
}
