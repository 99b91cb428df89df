import {
  ApiError,
  createWebhookInput,
  DELIVERY_ID_RE,
  type Delivery,
  deliveryPageSchema,
  deliverySchema,
  documented,
  eventEnvelopeSchema,
  eventKindSchema,
  eventKinds,
  successSchema,
  updateWebhookInput,
  WEBHOOK_ID_RE,
  webhookSchema,
  webhookWithSecretSchema,
} from "@gw/contracts";
import { attemptDelivery, checkTargetUrl, type StoredDelivery } from "@gw/platform";
import { z } from "zod";
import type { Context } from "../trpc/context.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

/** One event kind, as a pattern (the `kind` filter of GET /events is a comma-separated list). */
const KIND = `(${eventKinds.map((k) => k.replaceAll(".", "\\.")).join("|")})`;

const tags = ["Webhooks"];
const webhookId = z.string().regex(WEBHOOK_ID_RE, "id de webhook inválido");
const byId = z.object({ webhookId });

const path = (suffix = "") => `/instances/{instanceId}/webhooks${suffix}` as const;

/** The URL rules of spec 4.13, checked (with DNS) when a webhook is saved. */
async function checkUrl(ctx: Context, url: string): Promise<string> {
  return (await checkTargetUrl(url, { allowPrivate: ctx.platform.config.WEBHOOK_ALLOW_PRIVATE })).href;
}

function publicDelivery(d: StoredDelivery): Delivery {
  const { body: _, instanceId: __, persisted: ___, ...rest } = d;
  return rest;
}

/** One attempt made now (test event, manual resend): recorded as final, no retry schedule. */
async function deliverNow(ctx: Context, webhookIdValue: string, delivery: StoredDelivery): Promise<Delivery> {
  const target = await ctx.platform.webhooks.target(webhookIdValue);
  if (!target) throw new ApiError("not_found", "Webhook não encontrado.");
  const outcome = await attemptDelivery(target, delivery, { allowPrivate: ctx.platform.config.WEBHOOK_ALLOW_PRIVATE });
  return publicDelivery(
    await ctx.platform.webhooks.deliveries.recordAttempt(delivery, { ...outcome, nextAttemptAt: null, final: true }),
  );
}

/** Spec 4.13 and the routes it leaves open (docs/webhooks.md). */
export const webhooksRouter = router({
  createWebhook: instanceProcedure
    .meta({
      auth: "instance",
      successStatus: 201,
      errors: ["url_not_allowed"],
      openapi: { method: "POST", path: path(), tags, summary: "Subscribe a URL to events; answers its secret once" },
    })
    .input(createWebhookInput)
    .output(webhookWithSecretSchema)
    .mutation(async ({ ctx, input }) => {
      const url = await checkUrl(ctx, input.url);
      const { webhook, secret } = await ctx.platform.webhooks.create(input.instanceId, { url, events: input.events });
      return { ...webhook, secret };
    }),

  listWebhooks: instanceProcedure
    .meta({
      auth: "instance",
      openapi: { method: "GET", path: path(), tags, summary: "The instance's webhooks (at most 5)" },
    })
    .output(z.object({ data: z.array(webhookSchema) }))
    .query(async ({ ctx, input }) => ({ data: await ctx.platform.webhooks.list(input.instanceId) })),

  getWebhook: instanceProcedure
    .meta({ auth: "instance", openapi: { method: "GET", path: path("/{webhookId}"), tags, summary: "One webhook" } })
    .input(byId)
    .output(webhookSchema)
    .query(({ ctx, input }) => ctx.platform.webhooks.get(input.instanceId, input.webhookId)),

  updateWebhook: instanceProcedure
    .meta({
      auth: "instance",
      errors: ["url_not_allowed"],
      openapi: {
        method: "PATCH",
        path: path("/{webhookId}"),
        tags,
        summary: "Change url or events; `active: true` reactivates a deactivated webhook",
      },
    })
    .input(byId.extend(updateWebhookInput.shape))
    .output(webhookSchema)
    .mutation(async ({ ctx, input: { instanceId, webhookId: id, ...patch } }) => {
      const url = patch.url === undefined ? undefined : await checkUrl(ctx, patch.url);
      return ctx.platform.webhooks.update(instanceId, id, { ...patch, url });
    }),

  deleteWebhook: instanceProcedure
    .meta({
      auth: "instance",
      openapi: { method: "DELETE", path: path("/{webhookId}"), tags, summary: "Delete a webhook" },
    })
    .input(byId)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await ctx.platform.webhooks.delete(input.instanceId, input.webhookId);
      return { success: true as const };
    }),

  rotateWebhookSecret: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "POST",
        path: path("/{webhookId}/rotate-secret"),
        tags,
        summary: "A new secret; deliveries from now on are signed with it",
      },
    })
    .input(byId)
    .output(webhookWithSecretSchema)
    .mutation(async ({ ctx, input }) => {
      const { webhook, secret } = await ctx.platform.webhooks.rotateSecret(input.instanceId, input.webhookId);
      return { ...webhook, secret };
    }),

  testWebhook: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "POST",
        path: path("/{webhookId}/test"),
        tags,
        summary: "Send a `webhook.test` event now; answers the delivery",
      },
    })
    .input(byId)
    .output(deliverySchema)
    .mutation(async ({ ctx, input }) => {
      const target = await ctx.platform.webhooks.target(input.webhookId);
      if (!target || target.instanceId !== input.instanceId) throw new ApiError("not_found", "Webhook não encontrado.");
      const envelope = ctx.platform.events.envelope(ctx.instance, "webhook.test", {
        webhookId: input.webhookId,
        message: "Evento de teste do gateway.",
      });
      const delivery = ctx.platform.webhooks.deliveries.newDelivery(target, JSON.stringify(envelope), envelope, true);
      return deliverNow(ctx, input.webhookId, delivery);
    }),

  listDeliveries: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: path("/{webhookId}/deliveries"),
        tags,
        summary: "Delivery history, newest first (7 days)",
      },
    })
    .input(
      byId.extend({
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: z.string().regex(/^\d+$/, "cursor inválido").optional(),
      }),
    )
    .output(deliveryPageSchema)
    .query(({ ctx, input }) =>
      ctx.platform.webhooks.deliveries.listDeliveries(input.instanceId, input.webhookId, input.limit, input.cursor),
    ),

  retryDelivery: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "POST",
        path: path("/{webhookId}/deliveries/{deliveryId}/retry"),
        tags,
        summary: "Resend one delivery now, with a new X-Service-Delivery",
      },
    })
    .input(byId.extend({ deliveryId: z.string().regex(DELIVERY_ID_RE, "id de entrega inválido") }))
    .output(deliverySchema)
    .mutation(async ({ ctx, input }) => {
      const original = await ctx.platform.webhooks.deliveries.getDelivery(input.deliveryId, input.instanceId);
      if (!original || original.webhookId !== input.webhookId || original.instanceId !== input.instanceId) {
        throw new ApiError("not_found", "Entrega não encontrada.");
      }
      const target = await ctx.platform.webhooks.target(input.webhookId);
      if (!target) throw new ApiError("not_found", "Webhook não encontrado.");
      const delivery = ctx.platform.webhooks.deliveries.newDelivery(
        target,
        original.body,
        { id: original.eventId, event: original.event },
        true,
      );
      return deliverNow(ctx, input.webhookId, delivery);
    }),
});

const ms = z.coerce.number().int().min(0);

/** Spec 4.14 recent events: the last 7 days, in the delivery format. */
export const eventsRouter = router({
  listEvents: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/events",
        tags: ["Events"],
        summary: "Recent events (7 days), newest first",
        description:
          "`kind`: one kind or several separated by commas; `since`/`until`: ms timestamps, inclusive; `cursor`: the `nextCursor` of the previous page. Live: `GET …/events/stream` (SSE) and `…/ws` (WebSocket), resumable by event id (docs/streams.md).",
      },
    })
    .input(
      z.object({
        kind: documented(
          z
            .string()
            // `kind=` names no kind: refused, not taken as every kind (the document's pattern)
            .min(1, "kind: um tipo de evento ou vários separados por vírgula")
            .optional()
            .transform((s) => (s ? s.split(",").map((k) => k.trim()) : undefined))
            .pipe(z.array(eventKindSchema).optional()),
          { pattern: `^${KIND}(,${KIND})*$` },
        ),
        since: ms.optional(),
        until: ms.optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
        cursor: z
          .string()
          .regex(/^\d{1,20}-\d{1,20}$/, "cursor inválido")
          // A stream id is two unsigned 64-bit numbers.
          .refine(
            // (zod runs every check: the pattern is asked again before BigInt sees the text)
            (c) => /^\d{1,20}-\d{1,20}$/.test(c) && c.split("-").every((n) => BigInt(n) <= 18_446_744_073_709_551_615n),
            "cursor inválido",
          )
          .optional(),
      }),
    )
    .output(z.object({ data: z.array(eventEnvelopeSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) =>
      ctx.platform.events.recent(input.instanceId, {
        kinds: input.kind,
        since: input.since,
        until: input.until,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),
});
