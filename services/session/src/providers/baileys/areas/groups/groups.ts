import { ApiError, type GroupMeta, type GroupParticipant, invalid, type ParticipantResult } from "@gw/contracts";
import {
  type BaileysEventMap,
  type GroupParticipant as BaileysParticipant,
  type BinaryNode,
  type GroupMetadata,
  getBinaryNodeChild,
  jidNormalizedUser,
  type WASocket,
} from "@whiskeysockets/baileys";
import { BoundedCache } from "../../connection/auth-state.ts";
import { networkCodeOf } from "../../errors.ts";
import { toChatId, toUserJid } from "../../jids.ts";
import { nowSeconds } from "../../seconds.ts";
import type { BaileysArea, BaileysAreaModule } from "../area.ts";

/**
 * Groups through Baileys 7 (reference baileys.md §5.4; `sock.group*` of Socket/groups): each
 * operation is the library's call; the network's per-participant codes become the API's results;
 * its group notifications become the spec's group events (6.2), participants as contacts with
 * privacy ids shown by number when known (spec 1 rule 3).
 */

type Contact = { id: string; phone: string; lid: string | null; pushName: string };

/** How long a group event may wait for the network to name a group it has not named yet. */
const NAME_LOOKUP_MS = 10_000;

/** The network's per-participant status codes (`participant[error]`) → the API's results. */
function resultOf(action: string, status: string, id: string): ParticipantResult {
  switch (status) {
    case "200":
      return { id, status: "ok", message: "feito" };
    case "403":
      return action === "add"
        ? { id, status: "privacy", message: "a privacidade da pessoa não permite ser adicionada" }
        : { id, status: "refused", message: "a rede recusou (sem permissão)" };
    case "409":
      return { id, status: "already_participant", message: "já participa do grupo" };
    case "404":
      if (action === "add") return { id, status: "not_on_network", message: "número sem conta na rede" };
      if (action === "approve" || action === "reject")
        return { id, status: "not_participant", message: "sem pedido de entrada" };
      return { id, status: "not_participant", message: "não participa do grupo" };
    case "408":
      return { id, status: "refused", message: "a pessoa saiu do grupo há pouco e não pode ser adicionada agora" };
    default:
      return { id, status: "refused", message: `a rede recusou (código ${status})` };
  }
}

export async function contactOf(
  area: BaileysArea,
  p: { id: string; lid?: string; phoneNumber?: string; notify?: string; name?: string },
): Promise<Contact> {
  const lid = p.lid ? toChatId(p.lid) : p.id.endsWith("@lid") ? toChatId(p.id) : null;
  const pn = p.phoneNumber ? toChatId(p.phoneNumber) : p.id.endsWith("@s.whatsapp.net") ? toChatId(p.id) : null;
  if (lid && pn?.endsWith("@c.us")) await area.ctx.identity.learn(lid, pn.split("@")[0]!);
  const id = pn ?? (lid ? await area.ctx.identity.rewrite(lid) : toChatId(p.id));
  return { id, phone: id.endsWith("@c.us") ? id.split("@")[0]! : "", lid, pushName: p.notify ?? p.name ?? "" };
}

async function participantOf(area: BaileysArea, p: BaileysParticipant): Promise<GroupParticipant> {
  return {
    ...(await contactOf(area, p)),
    role: p.admin === "superadmin" ? "superadmin" : p.admin === "admin" ? "admin" : "member",
  };
}

export async function groupMetaOf(area: BaileysArea, g: GroupMetadata): Promise<GroupMeta> {
  const participants = await Promise.all(g.participants.map((p) => participantOf(area, p)));
  const owner = g.ownerPn ?? g.owner;
  return {
    id: g.id,
    name: g.subject,
    description: g.desc ?? "",
    owner: owner ? (await contactOf(area, { id: owner })).id : null,
    creation: g.creation ?? 0,
    participantsCount: g.size ?? participants.length,
    participants,
    settings: {
      messagesAdminOnly: g.announce === true,
      infoAdminOnly: g.restrict === true,
      joinApproval: g.joinApprovalMode === true,
      memberAddMode: g.memberAddMode === true ? "all" : "admins",
    },
  };
}

const jidsOf = (ids: string[]) =>
  ids.map((id) => {
    const jid = toUserJid(id);
    if (!jid) throw invalid("participants", `participante inválido: ${id}`);
    return jid;
  });

/** A privacy refusal carries an invite the adder may send (`add_request`): sent as the network's invite message. */
async function inviteRefused(sock: WASocket, group: GroupMetadata, target: string, node: BinaryNode): Promise<boolean> {
  const request = getBinaryNodeChild(node, "add_request");
  const code = request?.attrs.code;
  if (!code) return false;
  await sock.sendMessage(target, {
    groupInvite: {
      jid: group.id,
      inviteCode: code,
      inviteExpiration: Number(request.attrs.expiration ?? 0),
      subject: group.subject,
      text: "Convite para entrar no grupo",
    },
  });
  return true;
}

export const baileysGroups: BaileysAreaModule = (area) => {
  const me = (sock: WASocket) => [sock.user?.id, sock.user?.lid].filter(Boolean).map((j) => jidNormalizedUser(j!));
  const group = (g: { id: string; subject?: string }) => ({ id: g.id, name: g.subject ?? "" });
  const emit = (kind: Parameters<BaileysArea["ctx"]["emit"]>[0] & { type: "event" }) => area.ctx.emit(kind);
  /**
   * Group subjects for the events' `group.name`: as notifications and reads tell them; a group not
   * heard of since the process started (a restart, a group never listed) is asked of the network
   * once. A group this number can no longer read (it was removed) stays unnamed (`""`).
   */
  const subjects = new BoundedCache(5_000, 24 * 60 * 60_000);
  const nameOf = async (sock: WASocket, groupId: string): Promise<string> => {
    const known = subjects.get<string>(groupId);
    if (known !== undefined) return known;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), NAME_LOOKUP_MS);
    });
    const g = await Promise.race([sock.groupMetadata(groupId).catch(() => null), timeout]).finally(() =>
      clearTimeout(timer),
    );
    if (g) subjects.set(groupId, g.subject ?? "");
    return g?.subject ?? "";
  };
  // Notifications are handled one after the other: reshaping waits (identity lookups) must not reorder events.
  let chain: Promise<void> = Promise.resolve();
  const inOrder = (job: () => Promise<void>) => {
    chain = chain.then(job).catch((err) => area.ctx.log.warn({ err }, "group notification"));
  };

  area.onSocket((sock, current) => {
    sock.ev.on("groups.upsert", (groups) =>
      inOrder(async () => {
        if (!current()) return;
        for (const g of groups) {
          subjects.set(g.id, g.subject);
          const by = g.author ? await contactOf(area, { id: g.authorPn ?? g.author }) : null;
          emit({
            type: "event",
            kind: "group.join",
            payload: { chatId: g.id, group: group(g), by, timestamp: g.creation ?? nowSeconds() },
          });
        }
      }),
    );
    sock.ev.on("groups.update", (updates) =>
      inOrder(async () => {
        if (!current()) return;
        for (const u of updates) {
          if (!u.id) continue;
          if (u.subject !== undefined) subjects.set(u.id, u.subject);
          // `groupFetchAllParticipating` (a list, or the server's "groups changed" hint) echoes every
          // group's whole metadata as an update: nothing changed, no event.
          if (Array.isArray(u.participants)) continue;
          const by = u.author ? await contactOf(area, { id: u.authorPn ?? u.author }) : null;
          const base = {
            chatId: u.id,
            group: { id: u.id, name: u.subject ?? (await nameOf(sock, u.id)) },
            by,
            timestamp: nowSeconds(),
          };
          const changes: [string, Record<string, unknown>][] = [];
          if (u.subject !== undefined) changes.push(["subject", { subject: u.subject }]);
          if (u.desc !== undefined) changes.push(["description", { description: u.desc }]);
          if (u.inviteCode !== undefined) changes.push(["invite", {}]);
          const settings: Record<string, unknown> = {};
          if (u.announce !== undefined) settings.messagesAdminOnly = u.announce;
          if (u.restrict !== undefined) settings.infoAdminOnly = u.restrict;
          if (u.joinApprovalMode !== undefined) settings.joinApproval = u.joinApprovalMode;
          if (u.memberAddMode !== undefined) settings.memberAddMode = u.memberAddMode ? "all" : "admins";
          if (Object.keys(settings).length > 0) changes.push(["settings", { settings }]);
          for (const [changed, value] of changes) {
            emit({ type: "event", kind: "group.update", payload: { ...base, changed, ...value } });
          }
        }
      }),
    );
    sock.ev.on("group-participants.update", (u: BaileysEventMap["group-participants.update"]) =>
      inOrder(() => participantsUpdate(sock, u)),
    );
    sock.ev.on("group.join-request", (r) =>
      inOrder(async () => {
        if (!current()) return;
        emit({
          type: "event",
          kind: "group.join_request",
          payload: {
            chatId: r.id,
            group: { id: r.id, name: await nameOf(sock, r.id) },
            action: r.action,
            method: r.method ?? null,
            requester: await contactOf(area, { id: r.participantPn ?? r.participant }),
            timestamp: nowSeconds(),
          },
        });
      }),
    );

    async function participantsUpdate(s: WASocket, u: BaileysEventMap["group-participants.update"]) {
      if (!current() || u.action === "modify") return;
      const by = await contactOf(area, { id: u.authorPn ?? u.author });
      const participants = await Promise.all(u.participants.map((p) => contactOf(area, p)));
      const base = { chatId: u.id, group: { id: u.id, name: await nameOf(s, u.id) }, timestamp: nowSeconds() };
      emit({ type: "event", kind: "group.participants", payload: { ...base, action: u.action, participants, by } });
      const mine = new Set(me(s));
      const touchesMe = u.participants.some(
        (p) => mine.has(jidNormalizedUser(p.id)) || (p.phoneNumber && mine.has(jidNormalizedUser(p.phoneNumber))),
      );
      if (!touchesMe) return;
      if (u.action === "add") emit({ type: "event", kind: "group.join", payload: { ...base, by } });
      if (u.action === "remove") {
        const self = mine.has(jidNormalizedUser(u.authorPn ?? u.author));
        emit({ type: "event", kind: "group.leave", payload: { ...base, by, reason: self ? "left" : "removed" } });
      }
    }
  });

  const meta = (sock: WASocket, groupId: string) =>
    sock.groupMetadata(groupId).then(
      (g) => {
        subjects.set(g.id, g.subject ?? "");
        return g;
      },
      (err: unknown) => {
        const status = networkCodeOf(err);
        if (status === 404 || status === 403)
          throw new ApiError("not_found", "Grupo não encontrado (ou esta conta não participa dele).");
        throw err;
      },
    );

  return {
    "groups.create": ({ subject, participants, description, picture }) =>
      area.call("groups.create", async (sock) => {
        const created = await sock.groupCreate(subject, jidsOf(participants));
        if (description) await sock.groupUpdateDescription(created.id, description);
        if (picture) await sock.updateProfilePicture(created.id, Buffer.from(picture.data, "base64"));
        // The creation answers only who was added; everyone asked is in the result, in the order asked
        // (the network does not say why the others were left out).
        const added = new Set(created.participants.map((p) => jidNormalizedUser(p.phoneNumber ?? p.id)));
        const results = jidsOf(participants).map(
          (jid): ParticipantResult =>
            added.has(jidNormalizedUser(jid))
              ? resultOf("add", "200", toChatId(jid))
              : {
                  id: toChatId(jid),
                  status: "refused",
                  message: "não adicionado (privacidade da pessoa ou número sem conta)",
                },
        );
        return { group: await groupMetaOf(area, await meta(sock, created.id)), results };
      }),
    "groups.list": () =>
      area.call("groups.list", async (sock) =>
        Promise.all(
          Object.values(await sock.groupFetchAllParticipating()).map((g) => {
            subjects.set(g.id, g.subject ?? "");
            return groupMetaOf(area, g);
          }),
        ),
      ),
    "groups.get": ({ groupId }) =>
      area.call("groups.get", async (sock) => groupMetaOf(area, await meta(sock, groupId))),
    "groups.leave": ({ groupId }) =>
      area.call("groups.leave", async (sock) => {
        await sock.groupLeave(groupId);
        return { success: true as const };
      }),
    "groups.setSubject": ({ groupId, subject }) =>
      area.call("groups.setSubject", async (sock) => {
        await sock.groupUpdateSubject(groupId, subject);
        return { success: true as const };
      }),
    "groups.setDescription": ({ groupId, description }) =>
      area.call("groups.setDescription", async (sock) => {
        await sock.groupUpdateDescription(groupId, description || undefined);
        return { success: true as const };
      }),
    "groups.setPicture": ({ groupId, picture }) =>
      area.call("groups.setPicture", async (sock) => {
        if (picture) await sock.updateProfilePicture(groupId, Buffer.from(picture.data, "base64"));
        else await sock.removeProfilePicture(groupId);
        return { success: true as const };
      }),
    "groups.setSettings": ({ groupId, settings }) =>
      area.call("groups.setSettings", async (sock) => {
        if (settings.messagesAdminOnly !== undefined) {
          await sock.groupSettingUpdate(groupId, settings.messagesAdminOnly ? "announcement" : "not_announcement");
        }
        if (settings.infoAdminOnly !== undefined)
          await sock.groupSettingUpdate(groupId, settings.infoAdminOnly ? "locked" : "unlocked");
        if (settings.joinApproval !== undefined)
          await sock.groupJoinApprovalMode(groupId, settings.joinApproval ? "on" : "off");
        if (settings.memberAddMode !== undefined) {
          await sock.groupMemberAddMode(groupId, settings.memberAddMode === "all" ? "all_member_add" : "admin_add");
        }
        return (await groupMetaOf(area, await meta(sock, groupId))).settings;
      }),
    "groups.participants": ({ groupId, action, participants, inviteOnPrivacy }) =>
      area.call("groups.participants", async (sock) => {
        const answers = await sock.groupParticipantsUpdate(groupId, jidsOf(participants), action);
        const info = inviteOnPrivacy && action === "add" ? await meta(sock, groupId) : null;
        return Promise.all(
          answers.map(async (a) => {
            const id = a.jid ? (await contactOf(area, { id: a.jid })).id : "";
            const r = resultOf(action, a.status, id);
            if (info && r.status === "privacy" && a.jid) r.invited = await inviteRefused(sock, info, a.jid, a.content);
            return r;
          }),
        );
      }),
    "groups.invite": ({ groupId, revoke }) =>
      area.call("groups.invite", async (sock) => {
        const code = revoke ? await sock.groupRevokeInvite(groupId) : await sock.groupInviteCode(groupId);
        if (!code) throw new ApiError("network_error", "A rede não deu o código de convite.");
        return { code, link: `https://chat.whatsapp.com/${code}` };
      }),
    "groups.invitePreview": ({ code }) =>
      area.call("groups.invitePreview", async (sock) => {
        const g = await sock.groupGetInviteInfo(code).catch((err: unknown) => {
          const status = networkCodeOf(err);
          if (status === 404 || status === 406 || status === 410)
            throw new ApiError("not_found", "Convite inválido ou revogado.");
          throw err;
        });
        const owner = g.ownerPn ?? g.owner;
        return {
          id: g.id,
          name: g.subject,
          description: g.desc ?? "",
          size: g.size ?? g.participants.length,
          creation: g.creation ?? 0,
          owner: owner ? (await contactOf(area, { id: owner })).id : null,
          joinApproval: g.joinApprovalMode === true,
        };
      }),
    "groups.join": ({ code }) =>
      area.call("groups.join", async (sock) => {
        const groupId = await sock.groupAcceptInvite(code);
        // The network answers no group id while the request waits for an admin's approval.
        return groupId ? { groupId, status: "joined" as const } : { groupId: "", status: "pending_approval" as const };
      }),
    "groups.requests": ({ groupId }) =>
      area.call("groups.requests", async (sock) =>
        Promise.all(
          (await sock.groupRequestParticipantsList(groupId)).map(async (r) => ({
            // A requester by lid comes with its number: both kept (and the pair learnt).
            ...(await contactOf(area, {
              id: r.jid ?? r.phone_number ?? "",
              ...(r.phone_number ? { phoneNumber: r.phone_number } : {}),
            })),
            requestedAt: Number(r.request_time ?? 0),
          })),
        ),
      ),
    "groups.answerRequests": ({ groupId, action, participants }) =>
      area.call("groups.answerRequests", async (sock) =>
        Promise.all(
          (await sock.groupRequestParticipantsUpdate(groupId, jidsOf(participants), action)).map(async (a) =>
            resultOf(action, a.status, a.jid ? (await contactOf(area, { id: a.jid })).id : ""),
          ),
        ),
      ),
  };
};
