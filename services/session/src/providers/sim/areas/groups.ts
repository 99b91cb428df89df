import { ApiError, type GroupMeta, type ParticipantResult } from "@gw/contracts";
import type { SimArea, SimAreaModule } from "../area.ts";
import { shownContact } from "./shown.ts";

/**
 * Groups on simnet (docs/groups.md): each operation is simnet's `groups.*` request; privacy ids in
 * what comes back and in the group events are shown by number when the instance knows it (spec 1
 * rule 3; the lid stays in `lid`).
 */

type Contact = { id: string; phone: string; lid: string | null; pushName: string };

const refusals = {
  not_found: () => new ApiError("not_found", "Grupo não encontrado (ou esta conta não participa dele)."),
  network_rejected: () =>
    new ApiError("network_rejected", "A rede recusou: só administradores do grupo podem fazer isso.", {
      groupId: "sem permissão neste grupo",
    }),
};

async function meta(area: SimArea, g: GroupMeta): Promise<GroupMeta> {
  const owner = g.owner ? await area.ctx.identity.rewrite(g.owner) : null;
  return {
    ...g,
    owner,
    participants: await Promise.all(
      g.participants.map(async (p) => ({ ...(await shownContact(area.ctx, p)), role: p.role })),
    ),
  };
}

async function results(area: SimArea, list: ParticipantResult[]): Promise<ParticipantResult[]> {
  return Promise.all(list.map(async (r) => ({ ...r, id: await area.ctx.identity.rewrite(r.id) })));
}

export const simGroups: SimAreaModule = (area) => {
  const ask = <T>(op: string, args: unknown) => area.request(op, args, refusals) as Promise<T>;

  // The group events of simnet carry contacts as the account sees them: numbers when known.
  const rewrite = async (payload: Record<string, unknown>) => {
    const out = { ...payload };
    for (const key of ["by", "requester", "participant"]) {
      if (out[key] && typeof out[key] === "object") out[key] = await shownContact(area.ctx, out[key] as Contact);
    }
    if (Array.isArray(out.participants)) {
      out.participants = await Promise.all((out.participants as Contact[]).map((p) => shownContact(area.ctx, p)));
    }
    return out;
  };
  for (const kind of [
    "group.join",
    "group.leave",
    "group.update",
    "group.participants",
    "group.join_request",
    "message.ack.group",
  ]) {
    area.onEvent(kind, rewrite);
  }

  return {
    "groups.create": async (input) => {
      const r = await ask<{ group: GroupMeta; results: ParticipantResult[] }>("groups.create", input);
      return { group: await meta(area, r.group), results: await results(area, r.results) };
    },
    "groups.list": async () => Promise.all((await ask<GroupMeta[]>("groups.list", {})).map((g) => meta(area, g))),
    "groups.get": async ({ groupId }) => meta(area, await ask<GroupMeta>("groups.get", { groupId })),
    "groups.leave": async ({ groupId }) => {
      await ask("groups.leave", { groupId });
      return { success: true as const };
    },
    "groups.setSubject": async ({ groupId, subject }) => {
      await ask("groups.subject", { groupId, subject });
      return { success: true as const };
    },
    "groups.setDescription": async ({ groupId, description }) => {
      await ask("groups.description", { groupId, description });
      return { success: true as const };
    },
    "groups.setPicture": async ({ groupId, picture }) => {
      await ask("groups.picture", { groupId, picture });
      return { success: true as const };
    },
    "groups.setSettings": ({ groupId, settings }) => ask("groups.settings", { groupId, settings }),
    "groups.participants": async (input) => results(area, await ask<ParticipantResult[]>("groups.participants", input)),
    "groups.invite": ({ groupId, revoke }) => ask("groups.invite", { groupId, revoke }),
    "groups.invitePreview": ({ code }) => ask("groups.invite-info", { code }),
    "groups.join": ({ code }) => ask("groups.join", { code }),
    "groups.requests": async ({ groupId }) =>
      Promise.all(
        (await ask<(Contact & { requestedAt: number })[]>("groups.requests", { groupId })).map(async (r) => ({
          ...(await shownContact(area.ctx, r)),
          requestedAt: r.requestedAt,
        })),
      ),
    "groups.answerRequests": async (input) =>
      results(area, await ask<ParticipantResult[]>("groups.requests-answer", input)),
  };
};
