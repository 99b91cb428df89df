import {
  addParticipantsBody,
  createGroupBody,
  type fileSchema,
  type GroupMeta,
  groupIdSchema,
  groupSchema,
  groupSettingsPatch,
  groupSettingsSchema,
  type Instance,
  invalid,
  inviteCodeSchema,
  invitePreviewSchema,
  inviteSchema,
  isPictureType,
  joinRequestSchema,
  listGroupsQuery,
  PICTURE_TYPES_PATTERN,
  participantResultSchema,
  participantsBody,
  successSchema,
  typedFile,
} from "@gw/contracts";
import { loadFile } from "@gw/sending";
import { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

/** Spec 4.14 groups (our design, docs/groups.md); standard instances only (the capability table). */

const tags = ["Groups"];
const ERRORS = NETWORK_ERRORS;
type Ctx = Context & { instance: Instance };

const route = areaRoute({ path: "/groups", tags, errors: ERRORS, extendErrors: true });

const byGroup = z.object({ groupId: groupIdSchema });

/** The group as answered: the network's metadata, its picture as a signed link. */
function shown(ctx: Ctx, g: GroupMeta) {
  return { ...g, picture: ctx.platform.mediaLinks.avatar(ctx.instance.id, g.id) };
}

/** A picture file (JPG or PNG), loaded like a send's file (the URL guard, the size cap). */
async function pictureOf(ctx: Ctx, file: z.infer<typeof fileSchema>, field: string) {
  const config = ctx.platform.config;
  const loaded = await loadFile(file, {
    field,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    maxBytes: Math.min(config.MEDIA_MAX_BYTES, 5 * 1_048_576),
    timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
  });
  if (!isPictureType(loaded.mimetype)) {
    throw invalid(field, `a imagem deve ser JPG ou PNG (recebido ${loaded.mimetype})`);
  }
  return { data: loaded.data.toString("base64"), mimetype: loaded.mimetype };
}

async function fresh(ctx: Ctx, groupId: string) {
  const g = await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.get", { groupId });
  if (ctx.instance.settings.storage.groups) await ctx.platform.groups.put(ctx.instance.id, [g]);
  return g;
}

const participantsRoute = (action: "add" | "remove" | "promote" | "demote", summary: string) =>
  route("POST", `/{groupId}/participants/${action}`, summary, {
    description:
      "Answers one result per participant: the network refuses some (`privacy`, `not_on_network`, `already_participant`, `not_participant`, `refused`) without failing the others.",
  })
    .input(byGroup.extend(action === "add" ? addParticipantsBody.shape : participantsBody.shape))
    .output(z.object({ results: z.array(participantResultSchema) }))
    .mutation(async ({ ctx, input }) => ({
      results: await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.participants", {
        groupId: input.groupId,
        action,
        participants: input.participants,
        ...("inviteOnPrivacy" in input ? { inviteOnPrivacy: input.inviteOnPrivacy === true } : {}),
      }),
    }));

export const groupsRouter = router({
  createGroup: route("POST", "", "Create a group with its first participants", {
    created: true,
    file: true,
    description: "Answers the group and one result per participant (the network refuses some: privacy, no account).",
  })
    .input(createGroupBody)
    .output(z.object({ group: groupSchema, results: z.array(participantResultSchema) }))
    .mutation(async ({ ctx, input: { instanceId, picture, ...body } }) => {
      const owner = await connectedOwner(ctx);
      const pic = picture ? await pictureOf(ctx, picture, "picture") : undefined;
      const r = await owner.op(instanceId, "groups.create", { ...body, ...(pic ? { picture: pic } : {}) });
      return { group: shown(ctx, r.group), results: r.results };
    }),

  listGroups: route("GET", "", "The groups this number is in (paged)", {
    description:
      "Served from the stored list when it is complete and at most 5 minutes old (listing every group is the network's slowest call); `refresh=true` asks the network.",
  })
    .input(listGroupsQuery)
    .output(z.array(groupSchema))
    .query(async ({ ctx, input }) => {
      const store = ctx.instance.settings.storage.groups;
      let all = store && !input.refresh ? await ctx.platform.groups.list(ctx.instance.id) : null;
      if (!all) {
        all = await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.list", {});
        if (store) await ctx.platform.groups.put(ctx.instance.id, all, true);
      }
      const key = (g: GroupMeta) =>
        input.sortBy === "subject" ? g.name.toLowerCase() : input.sortBy === "creation" ? g.creation : g.id;
      const sorted = [...all].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      if (input.sortOrder === "desc") sorted.reverse();
      return sorted.slice(input.offset, input.offset + input.limit).map((g) => shown(ctx, g));
    }),

  countGroups: route("GET", "/count", "How many groups this number is in")
    .output(z.object({ count: z.number().int() }))
    .query(async ({ ctx }) => {
      const stored = ctx.instance.settings.storage.groups ? await ctx.platform.groups.list(ctx.instance.id) : null;
      const all = stored ?? (await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.list", {}));
      return { count: all.length };
    }),

  joinGroup: route("POST", "/join", "Join a group by its invite code or link", {
    errors: ["not_found"],
    description: "`status` is `pending_approval` when the group approves who joins.",
  })
    .input(z.object({ code: inviteCodeSchema.meta({ description: "The code, or https://chat.whatsapp.com/<code>" }) }))
    .output(z.object({ groupId: z.string(), status: z.enum(["joined", "pending_approval"]) }))
    .mutation(async ({ ctx, input }) =>
      (await connectedOwner(ctx)).op(ctx.instance.id, "groups.join", { code: input.code }),
    ),

  previewInvite: route("GET", "/invite/{code}", "Look at a group's invite before joining", { errors: ["not_found"] })
    .input(z.object({ code: inviteCodeSchema }))
    .output(invitePreviewSchema)
    .query(async ({ ctx, input }) =>
      (await connectedOwner(ctx)).op(ctx.instance.id, "groups.invitePreview", { code: input.code }),
    ),

  getGroup: route("GET", "/{groupId}", "A group: metadata, participants with their roles, settings", {
    errors: ["not_found"],
  })
    .input(byGroup)
    .output(groupSchema)
    .query(async ({ ctx, input }) => shown(ctx, await fresh(ctx, input.groupId))),

  leaveGroup: route("POST", "/{groupId}/leave", "Leave the group", { errors: ["not_found"] })
    .input(byGroup)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => (await connectedOwner(ctx)).op(ctx.instance.id, "groups.leave", input)),

  setGroupSubject: route("PUT", "/{groupId}/subject", "Rename the group", { errors: ["not_found"] })
    .input(
      byGroup.extend({
        subject: z.string("informe o subject").trim().min(1, "informe o subject").max(100, "até 100 caracteres"),
      }),
    )
    .output(successSchema)
    .mutation(async ({ ctx, input }) => (await connectedOwner(ctx)).op(ctx.instance.id, "groups.setSubject", input)),

  setGroupDescription: route("PUT", "/{groupId}/description", "Change the description (empty removes it)", {
    errors: ["not_found"],
  })
    .input(byGroup.extend({ description: z.string("informe a descrição").max(2048, "até 2048 caracteres") }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) =>
      (await connectedOwner(ctx)).op(ctx.instance.id, "groups.setDescription", input),
    ),

  setGroupPicture: route("PUT", "/{groupId}/picture", "Set the group's picture (JPG or PNG)", {
    errors: ["not_found"],
    file: true,
  })
    .input(byGroup.extend({ file: typedFile(PICTURE_TYPES_PATTERN, "JPG or PNG (spec 2.5 file object)") }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const picture = await pictureOf(ctx, input.file, "file");
      const r = await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.setPicture", {
        groupId: input.groupId,
        picture,
      });
      await ctx.platform.redis.del(ctx.platform.keys.avatar(ctx.instance.id, input.groupId));
      return r;
    }),

  removeGroupPicture: route("DELETE", "/{groupId}/picture", "Remove the group's picture", { errors: ["not_found"] })
    .input(byGroup)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const r = await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.setPicture", {
        groupId: input.groupId,
        picture: null,
      });
      await ctx.platform.redis.del(ctx.platform.keys.avatar(ctx.instance.id, input.groupId));
      return r;
    }),

  getGroupSettings: route("GET", "/{groupId}/settings", "The group's settings", { errors: ["not_found"] })
    .input(byGroup)
    .output(groupSettingsSchema)
    .query(async ({ ctx, input }) => (await fresh(ctx, input.groupId)).settings),

  setGroupSettings: route("PATCH", "/{groupId}/settings", "Change settings; only sent fields change (admins only)", {
    errors: ["not_found"],
  })
    .input(byGroup.extend(groupSettingsPatch.shape))
    .output(groupSettingsSchema)
    .mutation(async ({ ctx, input: { instanceId, groupId, ...settings } }) =>
      (await connectedOwner(ctx)).op(instanceId, "groups.setSettings", { groupId, settings }),
    ),

  listParticipants: route("GET", "/{groupId}/participants", "The participants with their roles", {
    errors: ["not_found"],
  })
    .input(byGroup)
    .output(z.array(groupSchema.shape.participants.element))
    .query(async ({ ctx, input }) => (await fresh(ctx, input.groupId)).participants),

  addParticipants: participantsRoute("add", "Add participants (a result each)"),
  removeParticipants: participantsRoute("remove", "Remove participants (a result each)"),
  promoteParticipants: participantsRoute("promote", "Make participants admins (a result each)"),
  demoteParticipants: participantsRoute("demote", "Make admins plain participants (a result each)"),

  getInvite: route("GET", "/{groupId}/invite", "The group's invite code and link (admins only)", {
    errors: ["not_found"],
  })
    .input(byGroup)
    .output(inviteSchema)
    .query(async ({ ctx, input }) =>
      (await connectedOwner(ctx)).op(ctx.instance.id, "groups.invite", { ...input, revoke: false }),
    ),

  revokeInvite: route("POST", "/{groupId}/invite/revoke", "Revoke the invite; answers the new one", {
    errors: ["not_found"],
  })
    .input(byGroup)
    .output(inviteSchema)
    .mutation(async ({ ctx, input }) =>
      (await connectedOwner(ctx)).op(ctx.instance.id, "groups.invite", { ...input, revoke: true }),
    ),

  listJoinRequests: route("GET", "/{groupId}/requests", "Pending requests to join (groups with approval)", {
    errors: ["not_found"],
  })
    .input(byGroup)
    .output(z.array(joinRequestSchema))
    .query(async ({ ctx, input }) => (await connectedOwner(ctx)).op(ctx.instance.id, "groups.requests", input)),

  approveJoinRequests: route("POST", "/{groupId}/requests/approve", "Approve requests to join (a result each)", {
    errors: ["not_found"],
  })
    .input(byGroup.extend(participantsBody.shape))
    .output(z.object({ results: z.array(participantResultSchema) }))
    .mutation(async ({ ctx, input }) => ({
      results: await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.answerRequests", {
        ...input,
        action: "approve",
      }),
    })),

  rejectJoinRequests: route("POST", "/{groupId}/requests/reject", "Reject requests to join (a result each)", {
    errors: ["not_found"],
  })
    .input(byGroup.extend(participantsBody.shape))
    .output(z.object({ results: z.array(participantResultSchema) }))
    .mutation(async ({ ctx, input }) => ({
      results: await (await connectedOwner(ctx)).op(ctx.instance.id, "groups.answerRequests", {
        ...input,
        action: "reject",
      }),
    })),
});
