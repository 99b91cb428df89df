import { instanceExamples } from "./define.ts";
import { avatarLink, GROUP_ID, GROUP_SUBJECT, JOAO, MARIA, ME, NOW_S } from "./samples.ts";

const ANA = { id: "5531977771234@c.us", phone: "5531977771234", lid: "71932648105527@lid", pushName: "Ana Lima" };
const CARLOS = { id: "5541966665555@c.us", phone: "5541966665555", lid: null, pushName: "Carlos Mendes" };

const SETTINGS = {
  messagesAdminOnly: false,
  infoAdminOnly: true,
  joinApproval: false,
  memberAddMode: "admins" as const,
};
const PARTICIPANTS = [
  { id: ME.id, phone: ME.phone, lid: ME.lid, pushName: ME.pushName, role: "superadmin" as const },
  { id: MARIA.id, phone: MARIA.phone, lid: MARIA.lid, pushName: MARIA.pushName, role: "admin" as const },
  { id: JOAO.id, phone: JOAO.phone, lid: JOAO.lid, pushName: JOAO.pushName, role: "member" as const },
];
const GROUP = {
  id: GROUP_ID,
  name: GROUP_SUBJECT,
  description: "Metas, escalas e avisos da equipe de vendas.",
  owner: ME.id,
  creation: NOW_S - 90 * 86_400,
  participantsCount: PARTICIPANTS.length,
  participants: PARTICIPANTS,
  settings: SETTINGS,
  picture: avatarLink(GROUP_ID),
};
const INVITE = { code: "F3kLq9ZxW2mB7rTy4VnC1a", link: "https://chat.whatsapp.com/F3kLq9ZxW2mB7rTy4VnC1a" };

const notFound = { message: "Grupo não encontrado (ou esta conta não participa dele)." };
const notAdmin = {
  message: "A rede recusou: só administradores do grupo podem fazer isso.",
  details: { groupId: "sem permissão neste grupo" },
};
const groupErrors = { not_found: notFound, network_rejected: notAdmin };
const done = { success: true as const };

/** Spec 4.14 groups (routers/groups.ts; test/e2e/groups.test.ts; docs/groups.md). */
export const groupsExamples = instanceExamples({
  createGroup: {
    body: {
      subject: GROUP_SUBJECT,
      participants: [MARIA.phone, JOAO.id, CARLOS.phone],
      description: "Metas, escalas e avisos da equipe de vendas.",
      picture: { url: "https://cdn.lojacentro.com.br/marca/equipe.jpg" },
    },
    response: {
      group: {
        ...GROUP,
        creation: NOW_S,
        settings: { messagesAdminOnly: false, infoAdminOnly: false, joinApproval: false, memberAddMode: "admins" },
        participants: PARTICIPANTS.map((p) => ({ ...p, role: p.id === ME.id ? "superadmin" : "member" })),
      },
      results: [
        { id: MARIA.id, status: "ok", message: "feito" },
        { id: JOAO.id, status: "ok", message: "feito" },
        { id: CARLOS.id, status: "privacy", message: "a privacidade da pessoa não permite ser adicionada" },
      ],
    },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { picture: "a imagem deve ser JPG ou PNG (recebido image/webp)" },
      },
    },
  },
  listGroups: {
    query: { limit: 20, offset: 0, sortBy: "subject", sortOrder: "asc" },
    errors: { validation_error: { message: "Campos inválidos.", details: { limit: "limit vai de 1 a 500" } } },
    response: [
      GROUP,
      {
        id: "120363025558887777@g.us",
        name: "Fornecedores SP",
        description: "",
        owner: JOAO.id,
        creation: NOW_S - 400 * 86_400,
        participantsCount: 2,
        participants: [
          { id: JOAO.id, phone: JOAO.phone, lid: JOAO.lid, pushName: JOAO.pushName, role: "superadmin" },
          { id: ME.id, phone: ME.phone, lid: ME.lid, pushName: ME.pushName, role: "member" },
        ],
        settings: { messagesAdminOnly: true, infoAdminOnly: true, joinApproval: true, memberAddMode: "admins" },
        picture: avatarLink("120363025558887777@g.us"),
      },
    ],
  },
  countGroups: { response: { count: 2 } },
  joinGroup: {
    body: { code: INVITE.link },
    response: { groupId: GROUP_ID, status: "joined" },
    errors: { not_found: { message: "Convite inválido ou revogado." } },
  },
  previewInvite: {
    path: { code: INVITE.code },
    response: {
      id: GROUP_ID,
      name: GROUP_SUBJECT,
      description: GROUP.description,
      size: 3,
      creation: GROUP.creation,
      owner: ME.id,
      joinApproval: false,
    },
    errors: { not_found: { message: "Convite inválido ou revogado." } },
  },
  getGroup: { response: GROUP, errors: { not_found: notFound } },
  leaveGroup: { response: done, errors: { not_found: notFound } },
  setGroupSubject: { body: { subject: "Vendas — Loja Centro" }, response: done, errors: groupErrors },
  setGroupDescription: {
    body: { description: "Metas, escalas e avisos. Reunião toda segunda às 9h." },
    response: done,
    errors: groupErrors,
  },
  setGroupPicture: {
    body: { file: { url: "https://cdn.lojacentro.com.br/marca/equipe.jpg" } },
    response: done,
    errors: groupErrors,
  },
  removeGroupPicture: { response: done, errors: groupErrors },
  getGroupSettings: { response: SETTINGS, errors: { not_found: notFound } },
  setGroupSettings: {
    body: { messagesAdminOnly: true, joinApproval: true },
    response: { ...SETTINGS, messagesAdminOnly: true, joinApproval: true },
    errors: groupErrors,
  },
  listParticipants: { response: PARTICIPANTS, errors: { not_found: notFound } },
  addParticipants: {
    body: { participants: [ANA.phone, CARLOS.id], inviteOnPrivacy: true },
    response: {
      results: [
        { id: ANA.id, status: "ok", message: "feito" },
        {
          id: CARLOS.id,
          status: "privacy",
          message: "a privacidade da pessoa não permite ser adicionada",
          invited: true,
        },
      ],
    },
    errors: groupErrors,
  },
  removeParticipants: {
    body: { participants: [JOAO.id, CARLOS.phone] },
    response: {
      results: [
        { id: JOAO.id, status: "ok", message: "feito" },
        { id: CARLOS.id, status: "not_participant", message: "não participa do grupo" },
      ],
    },
    errors: groupErrors,
  },
  promoteParticipants: {
    body: { participants: [JOAO.id] },
    response: { results: [{ id: JOAO.id, status: "ok", message: "feito" }] },
    errors: groupErrors,
  },
  demoteParticipants: {
    body: { participants: [MARIA.id] },
    response: { results: [{ id: MARIA.id, status: "ok", message: "feito" }] },
    errors: groupErrors,
  },
  getInvite: { response: INVITE, errors: groupErrors },
  revokeInvite: {
    response: { code: "Hq8Ws3Pd6Rk1Zn4Xc7Vb2M", link: "https://chat.whatsapp.com/Hq8Ws3Pd6Rk1Zn4Xc7Vb2M" },
    errors: groupErrors,
  },
  listJoinRequests: {
    response: [{ id: ANA.id, phone: ANA.phone, lid: ANA.lid, pushName: ANA.pushName, requestedAt: NOW_S - 1_800 }],
    errors: groupErrors,
  },
  approveJoinRequests: {
    body: { participants: [ANA.phone] },
    response: { results: [{ id: ANA.id, status: "ok", message: "feito" }] },
    errors: groupErrors,
  },
  rejectJoinRequests: {
    body: { participants: [ANA.phone] },
    response: { results: [{ id: ANA.id, status: "ok", message: "feito" }] },
    errors: groupErrors,
  },
});
