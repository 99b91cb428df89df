import { z } from "zod";
import type { Capability } from "../capability.ts";
import { normalizeChatId, normalizePersonId } from "../chat-id.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { typedFile } from "../file.ts";
import { PICTURE_TYPES_PATTERN } from "../media-kinds.ts";
import { defineOps } from "../ops.ts";
import { pageOffsetSchema } from "../paging.ts";

/**
 * Groups (spec 4.14 "groups (create, administer, participants, invites)"; shapes are ours,
 * docs/groups.md): the records, the request bodies, the session operations and the routes'
 * capabilities. A contact is always `{id, phone, lid, pushName}`, a group `{id, name, …}` (spec 2.11).
 */

// --- ids -------------------------------------------------------------------------------------

/**
 * A bare group id: the digits of today's groups (`120363…`), or a legacy group's
 * `<creator's number>-<creation timestamp>` (groups created before 2021 keep that id).
 */
const BARE_GROUP_RE = /^(\d{10,40}|\d{1,30}-\d{1,20})$/;
/** What comes before `@g.us`. */
const GROUP_USER_RE = /^\d{1,40}(-\d{1,20})?$/;

/** `<id>@g.us` or the bare id (a group id accepted in both forms, legacy `<number>-<timestamp>` ids too). */
export const groupIdSchema = documented(
  z.string("informe o id do grupo").transform((s, ctx) => {
    const v = s.trim();
    const id = BARE_GROUP_RE.test(v) ? `${v}@g.us` : normalizeChatId(v);
    if (!id?.endsWith("@g.us") || !GROUP_USER_RE.test(id.slice(0, -"@g.us".length))) {
      ctx.addIssue({ code: "custom", message: "id de grupo inválido: use <id>@g.us ou só o id" });
      return z.NEVER;
    }
    return id;
  }),
  { pattern: DOC_PATTERNS.group },
  { description: "`<id>@g.us`, or just the id (legacy groups: `<creator's number>-<timestamp>`)" },
);

/** People to add, remove, promote…: numbers or ids, normalized (`<digits>@c.us` or `@lid`). */
export const participantIdsSchema = z
  .array(
    documented(z.string().min(1).max(200), { pattern: DOC_PATTERNS.person }),
    "informe participants (números ou ids)",
  )
  .min(1, "informe ao menos um participante")
  .max(256, "até 256 participantes por chamada")
  .transform((list, ctx) => {
    const out: string[] = [];
    for (const [i, raw] of list.entries()) {
      const id = normalizePersonId(raw);
      if (!id) {
        ctx.addIssue({ code: "custom", message: `participante inválido: ${raw}`, path: [i] });
        return z.NEVER;
      }
      if (!out.includes(id)) out.push(id);
    }
    return out;
  });

// --- records ----------------------------------------------------------------------------------

export const groupRoleSchema = z.enum(["superadmin", "admin", "member"]);

export const groupParticipantSchema = z
  .object({
    id: z.string(),
    phone: z.string(),
    lid: z.string().nullable(),
    pushName: z.string(),
    role: groupRoleSchema,
  })
  .meta({ id: "GroupParticipant" });
export type GroupParticipant = z.infer<typeof groupParticipantSchema>;

export const groupSettingsSchema = z
  .object({
    messagesAdminOnly: z.boolean().meta({ description: "Only admins send messages (announcement group)" }),
    infoAdminOnly: z.boolean().meta({ description: "Only admins edit subject, description and picture" }),
    joinApproval: z.boolean().meta({ description: "Joining by invite needs an admin's approval" }),
    memberAddMode: z.enum(["admins", "all"]).meta({ description: "Who adds participants" }),
  })
  .meta({ id: "GroupSettings" });
export type GroupSettings = z.infer<typeof groupSettingsSchema>;

export const groupSchema = z
  .object({
    id: z.string().meta({ description: "`<id>@g.us`" }),
    name: z.string().meta({ description: "The subject" }),
    description: z.string(),
    owner: z.string().nullable().meta({ description: "Who created it, `<digits>@c.us` (or `@lid`)" }),
    creation: z.number().int().meta({ description: "unix seconds" }),
    participantsCount: z.number().int(),
    participants: z.array(groupParticipantSchema),
    settings: groupSettingsSchema,
    picture: z.string().nullable().meta({ description: "Signed link of the group's picture (404 while it has none)" }),
  })
  .meta({ id: "Group" });
export type Group = z.infer<typeof groupSchema>;

/** The network's answer for one participant of a bulk change. */
export const participantResultSchema = z
  .object({
    id: z.string(),
    status: z.enum(["ok", "not_on_network", "privacy", "already_participant", "not_participant", "refused"]),
    message: z.string(),
    /** Privacy refusals: an invite the API sent to the person instead, when `inviteOnPrivacy`. */
    invited: z.boolean().optional(),
  })
  .meta({ id: "ParticipantResult" });
export type ParticipantResult = z.infer<typeof participantResultSchema>;

export const inviteSchema = z
  .object({ code: z.string(), link: z.string().meta({ description: "https://chat.whatsapp.com/<code>" }) })
  .meta({ id: "GroupInvite" });

export const invitePreviewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    size: z.number().int(),
    creation: z.number().int(),
    owner: z.string().nullable(),
    joinApproval: z.boolean(),
  })
  .meta({ id: "GroupInvitePreview" });

export const joinRequestSchema = z
  .object({
    id: z.string(),
    phone: z.string(),
    lid: z.string().nullable(),
    pushName: z.string(),
    requestedAt: z.number().int(),
  })
  .meta({ id: "GroupJoinRequest" });

// --- bodies -----------------------------------------------------------------------------------

/** An invite code, or a whole link `https://chat.whatsapp.com/<code>`. */
export const inviteCodeSchema = documented(
  z.string("informe o código ou o link do convite").transform((s, ctx) => {
    const code = s
      .trim()
      .replace(/^https?:\/\/chat\.whatsapp\.com\/(invite\/)?/i, "")
      .replace(/[/?#].*$/, "");
    if (!/^[A-Za-z0-9]{6,40}$/.test(code)) {
      ctx.addIssue({ code: "custom", message: "código de convite inválido" });
      return z.NEVER;
    }
    return code;
  }),
  { pattern: DOC_PATTERNS.invite },
);

export const createGroupBody = z.object({
  subject: z
    .string("informe o nome (subject)")
    .trim()
    .min(1, "informe o nome (subject)")
    .max(100, "o nome vai até 100 caracteres"),
  participants: participantIdsSchema,
  description: z.string().max(2048, "a descrição vai até 2048 caracteres").optional(),
  picture: typedFile(PICTURE_TYPES_PATTERN, "JPG or PNG (spec 2.5 file object)").optional(),
});

export const listGroupsQuery = z.object({
  limit: z.coerce.number().int().min(1, "limit vai de 1 a 500").max(500, "limit vai de 1 a 500").default(100),
  offset: pageOffsetSchema,
  sortBy: z.enum(["subject", "creation", "id"], "sortBy: subject, creation ou id").default("subject"),
  sortOrder: z.enum(["asc", "desc"], "sortOrder: asc ou desc").default("asc"),
  refresh: z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .transform((v) => v === true || v === "true" || v === "1")
    .default(false)
    .meta({ description: "Ask the network now instead of the stored list (which is at most 5 minutes old)" }),
});

export const groupSettingsPatch = groupSettingsSchema.partial();
export const participantsBody = z.object({ participants: participantIdsSchema });
export const addParticipantsBody = participantsBody.extend({
  inviteOnPrivacy: z
    .boolean()
    .default(false)
    .meta({ description: "Send a private invite to those whose privacy refuses being added" }),
});

// --- session operations ----------------------------------------------------------------------

/** The network's view of a group (the provider's answer; the gateway adds the picture link). */
export const groupMetaSchema = groupSchema.omit({ picture: true });
export type GroupMeta = z.infer<typeof groupMetaSchema>;
const gid = z.object({ groupId: z.string() });
const ok = z.object({ success: z.literal(true) });

export const groupsOps = defineOps({
  "groups.create": {
    input: z.object({
      subject: z.string(),
      participants: z.array(z.string()),
      description: z.string().optional(),
      picture: z.object({ data: z.string(), mimetype: z.string() }).optional(),
    }),
    output: z.object({ group: groupMetaSchema, results: z.array(participantResultSchema) }),
  },
  "groups.list": { input: z.object({}), output: z.array(groupMetaSchema) },
  "groups.get": { input: gid, output: groupMetaSchema },
  "groups.leave": { input: gid, output: ok },
  "groups.setSubject": { input: gid.extend({ subject: z.string() }), output: ok },
  "groups.setDescription": { input: gid.extend({ description: z.string() }), output: ok },
  "groups.setPicture": {
    input: gid.extend({ picture: z.object({ data: z.string(), mimetype: z.string() }).nullable() }),
    output: ok,
  },
  "groups.setSettings": { input: gid.extend({ settings: groupSettingsPatch }), output: groupSettingsSchema },
  "groups.participants": {
    input: gid.extend({
      action: z.enum(["add", "remove", "promote", "demote"]),
      participants: z.array(z.string()),
      inviteOnPrivacy: z.boolean().optional(),
    }),
    output: z.array(participantResultSchema),
  },
  "groups.invite": { input: gid.extend({ revoke: z.boolean() }), output: inviteSchema },
  "groups.invitePreview": { input: z.object({ code: z.string() }), output: invitePreviewSchema },
  "groups.join": {
    input: z.object({ code: z.string() }),
    output: z.object({ groupId: z.string(), status: z.enum(["joined", "pending_approval"]) }),
  },
  "groups.requests": { input: gid, output: z.array(joinRequestSchema) },
  "groups.answerRequests": {
    input: gid.extend({ action: z.enum(["approve", "reject"]), participants: z.array(z.string()) }),
    output: z.array(participantResultSchema),
  },
});

// --- capabilities ----------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };
export const groupsCapabilities: Record<string, Capability> = {
  "POST /groups": standard,
  "GET /groups": standard,
  "GET /groups/count": standard,
  "POST /groups/join": standard,
  "GET /groups/invite/{code}": standard,
  "GET /groups/{groupId}": standard,
  "POST /groups/{groupId}/leave": standard,
  "PUT /groups/{groupId}/subject": standard,
  "PUT /groups/{groupId}/description": standard,
  "PUT /groups/{groupId}/picture": standard,
  "DELETE /groups/{groupId}/picture": standard,
  "GET /groups/{groupId}/settings": standard,
  "PATCH /groups/{groupId}/settings": standard,
  "GET /groups/{groupId}/participants": standard,
  "POST /groups/{groupId}/participants/add": standard,
  "POST /groups/{groupId}/participants/remove": standard,
  "POST /groups/{groupId}/participants/promote": standard,
  "POST /groups/{groupId}/participants/demote": standard,
  "GET /groups/{groupId}/invite": standard,
  "POST /groups/{groupId}/invite/revoke": standard,
  "GET /groups/{groupId}/requests": standard,
  "POST /groups/{groupId}/requests/approve": standard,
  "POST /groups/{groupId}/requests/reject": standard,
};
