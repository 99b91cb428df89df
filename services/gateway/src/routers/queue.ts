import {
  ApiError,
  FINAL_QUEUE_STATUSES,
  invalid,
  QUEUE_ID_RE,
  QUEUE_PAGE_DEFAULT,
  QUEUE_PAGE_MAX,
  queueItemSchema,
  queuePageSchema,
  queueSettingsPatchSchema,
  queueSettingsSchema,
} from "@gw/contracts";
import { publicItem } from "@gw/sending";
import { z } from "zod";
import { instanceProcedure, router } from "../trpc/init.ts";

const queueIdInput = z.object({
  queueId: z.string().regex(QUEUE_ID_RE, "id de item da fila inválido (qm_…)"),
});

const notFound = () => new ApiError("not_found", "Item da fila não encontrado.");

/** Spec 4.10: the instance's send queue. Item states and timing rules: docs/sending.md. */
export const queueRouter = router({
  queueList: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/queue",
        tags: ["Queue"],
        summary: "Queue items: pending in send order (default), all, or a final status (7 days, newest first)",
        description: `\`limit\` default ${QUEUE_PAGE_DEFAULT}, at most ${QUEUE_PAGE_MAX}; \`cursor\` is the previous page's \`nextCursor\`.`,
      },
    })
    .input(
      z.object({
        status: z
          .enum(["pending", "all", ...FINAL_QUEUE_STATUSES], `status: pending, all, ${FINAL_QUEUE_STATUSES.join(", ")}`)
          .default("pending"),
        limit: z.coerce
          .number("limit deve ser um número inteiro")
          .int("limit deve ser um número inteiro")
          .min(1, `limit vai de 1 a ${QUEUE_PAGE_MAX}`)
          .max(QUEUE_PAGE_MAX, `limit vai de 1 a ${QUEUE_PAGE_MAX}`)
          .default(QUEUE_PAGE_DEFAULT),
        cursor: z
          .string()
          .regex(/^\d{1,20}$/, "cursor inválido: use o nextCursor da página anterior")
          .optional(),
      }),
    )
    .output(queuePageSchema)
    .query(async ({ ctx, input }) => {
      const store = ctx.sending.queue.store;
      const [page, settings] = await Promise.all([
        store.list(ctx.instance.id, input.status, input.limit, input.cursor),
        store.settings(ctx.instance.id),
      ]);
      return {
        data: page.items.map(publicItem),
        nextCursor: page.nextCursor,
        paused: settings.paused,
        pending: settings.pending,
      };
    }),

  queueCancelAll: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "DELETE",
        path: "/instances/{instanceId}/queue",
        tags: ["Queue"],
        summary: "Cancel every item still queued (one queue.failed with status cancelled each)",
      },
    })
    .output(z.object({ cancelled: z.number().int() }))
    .mutation(async ({ ctx }) => ({ cancelled: await ctx.sending.queue.cancelAll(ctx.instance) })),

  queueSettings: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/queue/settings",
        tags: ["Queue"],
        summary: "Queue settings",
      },
    })
    .output(queueSettingsSchema)
    .query(({ ctx }) => ctx.sending.queue.store.settings(ctx.instance.id)),

  queueSettingsUpdate: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "PATCH",
        path: "/instances/{instanceId}/queue/settings",
        tags: ["Queue"],
        summary: "Change queue settings (only sent fields change)",
      },
    })
    .input(queueSettingsPatchSchema)
    .output(queueSettingsSchema)
    .mutation(async ({ ctx, input }) => {
      const { instanceId: _i, ...patch } = input;
      const store = ctx.sending.queue.store;
      if (patch.delayMin !== undefined || patch.delayMax !== undefined) {
        const current = await store.settings(ctx.instance.id);
        const min = patch.delayMin ?? current.delayMin;
        const max = patch.delayMax ?? current.delayMax;
        if (min > max) {
          throw invalid(
            patch.delayMin !== undefined ? "delayMin" : "delayMax",
            `delayMin (${min}) maior que delayMax (${max})`,
          );
        }
      }
      return ctx.sending.queue.updateSettings(ctx.instance.id, patch);
    }),

  queuePause: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/queue/pause",
        tags: ["Queue"],
        summary: "Pause: nothing leaves the queue; new sends are still accepted",
      },
    })
    .output(queueSettingsSchema)
    .mutation(({ ctx }) => ctx.sending.queue.pause(ctx.instance.id)),

  queueResume: instanceProcedure
    .meta({
      auth: "instance",
      errors: ["network_unavailable"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/queue/resume",
        tags: ["Queue"],
        summary: "Resume sending",
      },
    })
    .output(queueSettingsSchema)
    .mutation(({ ctx }) => ctx.sending.queue.resume(ctx.instance.id)),

  queueItem: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/queue/{queueId}",
        tags: ["Queue"],
        summary: "One queue item",
      },
    })
    .input(queueIdInput)
    .output(queueItemSchema)
    .query(async ({ ctx, input }) => {
      const item = await ctx.sending.queue.store.get(ctx.instance.id, input.queueId);
      if (!item) throw notFound();
      return publicItem(item);
    }),

  queueCancel: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "DELETE",
        path: "/instances/{instanceId}/queue/{queueId}",
        tags: ["Queue"],
        summary: "Cancel an item still queued",
      },
    })
    .input(queueIdInput)
    .output(queueItemSchema)
    .mutation(({ ctx, input }) => ctx.sending.queue.cancel(ctx.instance, input.queueId)),
});
