import {
  chatLabelsBody,
  colorOfBody,
  type Instance,
  labelBody,
  labelChatIdSchema,
  labelChatSchema,
  labelIdSchema,
  labelSchema,
  presentLabel,
  successSchema,
} from "@gw/contracts";
import { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

/**
 * Spec 4.7 labels (docs/labels.md), standard instances only (the capability table answers the
 * 501s). Every route asks the instance's session (the network's labels: simnet answers them, the
 * Baileys session keeps what the network synced), so every route needs the instance WORKING. With
 * `settings.storage.labels` off the read routes answer empty lists (spec 2.1).
 */

const tags = ["Labels"];
const ERRORS = NETWORK_ERRORS;
const BUSINESS =
  "Labels are a business-account feature: on a personal account every label route answers " +
  "`422 network_rejected` with `details.account`.";

type Ctx = Context & { instance: Instance };

const route = areaRoute({ path: "/labels", tags, errors: ERRORS, extendErrors: true, note: BUSINESS });

const byLabel = z.object({ labelId: labelIdSchema });
const byChat = z.object({ chatId: labelChatIdSchema });

/** Spec 2.1: with `storage.labels` off the read routes answer empty results. */
const stored = (ctx: Ctx) => ctx.instance.settings.storage.labels;

export const labelsRouter = router({
  labelsList: route("GET", "", "The account's labels", {
    description: "Each with `color` (the network's palette index) and `colorHex` (docs/labels.md).",
  })
    .output(z.array(labelSchema))
    .query(async ({ ctx }) => {
      const owner = await connectedOwner(ctx);
      if (!stored(ctx)) return [];
      return (await owner.op(ctx.instance.id, "labels.list", {})).map(presentLabel);
    }),

  labelsCreate: route("POST", "", "Create a label", {
    created: true,
    description:
      "`color` (0–19) or `colorHex` (one of the palette's 20 colors) — both kept consistent; without either " +
      "the first palette color no label uses. Announced as `label.upsert`.",
  })
    .input(labelBody)
    .output(labelSchema)
    .mutation(async ({ ctx, input }) => {
      const color = colorOfBody(input);
      const created = await (await connectedOwner(ctx)).op(ctx.instance.id, "labels.create", {
        name: input.name,
        ...(color !== undefined ? { color } : {}),
      });
      return presentLabel(created);
    }),

  labelsOfChat: route("GET", "/chats/{chatId}", "The labels of a chat", {
    errors: ["not_found"],
    description: "A person (number, `@c.us`, `@lid`) or a group (`@g.us`); a chat the network does not know is 404.",
  })
    .input(byChat)
    .output(z.array(labelSchema))
    .query(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      if (!stored(ctx)) return [];
      return (await owner.op(ctx.instance.id, "labels.chatLabels", { chatId: input.chatId })).map(presentLabel);
    }),

  labelsSetChat: route("PUT", "/chats/{chatId}", "Set a chat's labels (its whole set)", {
    errors: ["not_found"],
    description:
      "The labels listed are added when missing, the chat's other labels removed (an empty list removes all). " +
      "Answers the chat's labels now. Each change is announced as `label.chat.added` / `label.chat.deleted`.",
  })
    .input(byChat)
    .input(chatLabelsBody)
    .output(successSchema.extend({ labels: z.array(labelSchema) }))
    .mutation(async ({ ctx, input }) => {
      const labels = await (await connectedOwner(ctx)).op(ctx.instance.id, "labels.setChatLabels", {
        chatId: input.chatId,
        labelIds: [...new Set(input.labels.map((l) => l.id))],
      });
      return { success: true as const, labels: labels.map(presentLabel) };
    }),

  labelsUpdate: route("PUT", "/{labelId}", "Rename or recolor a label", {
    errors: ["not_found"],
    description: "`name` required; without `color`/`colorHex` the label keeps its color. Announced as `label.upsert`.",
  })
    .input(byLabel)
    .input(labelBody)
    .output(labelSchema)
    .mutation(async ({ ctx, input }) => {
      const color = colorOfBody(input);
      const updated = await (await connectedOwner(ctx)).op(ctx.instance.id, "labels.update", {
        id: input.labelId,
        name: input.name,
        ...(color !== undefined ? { color } : {}),
      });
      return presentLabel(updated);
    }),

  labelsDelete: route("DELETE", "/{labelId}", "Delete a label", {
    errors: ["not_found"],
    description:
      "Its chats lose it first (`label.chat.deleted` for each), then `label.deleted`. Label ids are never reused.",
  })
    .input(byLabel)
    .output(z.object({}))
    .mutation(async ({ ctx, input }) => {
      await (await connectedOwner(ctx)).op(ctx.instance.id, "labels.delete", { id: input.labelId });
      return {};
    }),

  labelsChats: route("GET", "/{labelId}/chats", "The chats a label tags", {
    errors: ["not_found"],
    description:
      "`[{id}]`, people by number when known (`<digits>@c.us`), else by `@lid`; groups `@g.us`. " +
      "`GET /chats/overview?ids=…` gives their names and last messages.",
  })
    .input(byLabel)
    .output(z.array(labelChatSchema))
    .query(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      if (!stored(ctx)) return [];
      const chats = await owner.op(ctx.instance.id, "labels.labelChats", { id: input.labelId });
      return [...new Set(chats)].map((id) => ({ id }));
    }),
});
