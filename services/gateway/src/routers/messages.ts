import {
  CHAT_REQUIRED,
  chatOf,
  convertRulesOf,
  type ErrorCode,
  formatMessageId,
  type Instance,
  invalid,
  normalizePersonId,
  parseMessageId,
  queueItemSchema,
  reactionBody,
  reactionResponseSchema,
  requireChat,
  type SendRequest,
  type SendRoute,
  seenBody,
  sendBodies,
  type sendCommonFields,
  sendResponseSchema,
} from "@gw/contracts";
import { IdempotencyStore, newQueueId, resolveRef } from "@gw/sending";
import { z } from "zod";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

const SEND_ERRORS: ErrorCode[] = [
  "instance_not_connected",
  "network_rejected",
  "network_error",
  "network_unavailable",
  "network_timeout",
  "trial_limit_reached",
  "queue_full",
  "url_not_allowed",
  "payload_too_large",
];

const FILE_ROUTES = new Set<SendRoute>([
  "image",
  "file",
  "voice",
  "video",
  "sticker",
  "link-preview",
  "buttons",
  "template",
]);

const SUMMARIES: Record<SendRoute, string> = {
  text: "Send a text (links get a preview)",
  image: "Send an image",
  file: "Send a document",
  voice: "Send a voice message (recorded audio); convert: true converts to OGG/Opus",
  video: "Send a video (asNote: round video); convert: true converts to MP4/H.264",
  sticker: "Send a sticker (WEBP)",
  "link-preview": "Send a text with a custom link preview",
  list: "Send a list (official gateway; standard instances answer 501 not_supported)",
  poll: "Send a poll",
  "poll/vote": "Vote in a poll",
  location: "Send a location",
  "contact-vcard": "Send contact cards",
  forward: "Forward a message",
  event: "Send a calendar event",
  template: "Send an operator-approved template (official gateway only)",
  buttons: "Send a text with up to 3 reply buttons (official gateway only)",
};

const QUEUE_DOC =
  "Header `X-Queue: true` queues the send, `false` sends now; absent follows the queue mode, and " +
  "`delayMessage`/`delayTyping` imply the queue. Immediate: 201 with the send response. Queued: " +
  "202 with the queue item (its `id` is the queue id). Header `Idempotency-Key`: the same key " +
  "within 24 h answers the first answer and never sends twice.";

type Connected = Context & { instance: Instance };

function header(ctx: Context, name: string): string | undefined {
  const v = ctx.http.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function queueWanted(ctx: Connected, body: { delayMessage?: number; delayTyping?: number }): boolean | null {
  const raw = header(ctx, "x-queue");
  const delays = body.delayMessage !== undefined || body.delayTyping !== undefined;
  if (raw === undefined || raw === "") return delays ? true : null;
  const v = raw.trim().toLowerCase();
  if (v !== "true" && v !== "false") {
    throw invalid("X-Queue", "use true ou false");
  }
  if (v === "false" && delays) {
    const field = body.delayMessage !== undefined ? "delayMessage" : "delayTyping";
    throw invalid(field, "não combina com X-Queue: false (envio imediato)");
  }
  return v === "true";
}

/** The chat a queued item shows: the body's, or the one of the message a vote/forward names. */
async function queuedChat(ctx: Connected, req: SendRequest): Promise<string> {
  if (req.route === "poll/vote") {
    const given = chatOf(req.body);
    if (given) return given;
    const poll = await resolveRef(ctx.instance.id, req.body.pollMessageId, "pollMessageId", ctx.platform.messages);
    if (!poll.chatId) {
      throw invalid("chatId", "informe o chatId");
    }
    return poll.chatId;
  }
  // Shown as it will be sent: the instance's phone-number apps applied.
  return (await ctx.sending.sender.withNumberRules(ctx.instance.id, requireChat(req.body))).chatId;
}

async function send(ctx: Connected, route: SendRoute, input: Record<string, unknown>) {
  const { instanceId: _i, ...body } = input;
  const req = { route, body } as SendRequest;
  const { sending } = ctx;
  const explicit = queueWanted(ctx, req.body);
  // `origin`: the Idempotency-Key's run (kept by a takeover), so that a retry after a gateway died
  // past the enqueue finds its item instead of queuing a second one.
  const run = async (attempt?: { origin: string }) => {
    const queued = explicit ?? (await sending.queue.mode(ctx.instance.id)) === "queue";
    if (queued) {
      // What the send would certainly fail on is refused now, not after a 202 as a failed item.
      await sending.sender.precheck(ctx.instance, req);
      const chatId = await queuedChat(ctx, req);
      // The trial unit is the item's, charged by its queue id (under a key, the run's: a takeover
      // finds the item and the unit its first attempt made); the worker never charges again.
      const queueId = attempt ? IdempotencyStore.queueId(ctx.instance.id, attempt.origin) : newQueueId();
      const giveBack = await sending.trial.take(ctx.instance, { charge: queueId });
      try {
        return { status: 202, body: await sending.queue.enqueue(ctx.instance, req, chatId, queueId) };
      } catch (err) {
        await giveBack?.(); // queue_full: nothing was accepted
        throw err;
      }
    }
    const refund = await sending.trial.take(ctx.instance, { charge: attempt?.origin });
    try {
      const networkId = key ? IdempotencyStore.networkId(ctx.instance.id, key) : undefined;
      const result = await sending.sender.send(ctx.instance, req, networkId ? { networkId } : {});
      // Spec 4.4: a vote answers "success"; it also gets the send response's fields.
      return { status: 201, body: route === "poll/vote" ? { success: true as const, ...result } : result };
    } catch (err) {
      await refund?.();
      throw err;
    }
  };
  const key = header(ctx, "idempotency-key");
  const answer = key
    ? await sending.idempotency.run(ctx.instance.id, key, IdempotencyStore.fingerprint(route, body), run)
    : await run();
  ctx.http.status = answer.status;
  return answer.body as z.infer<typeof sendOutput>;
}

// The vote's answer first: zod takes the first match, and the plain one would strip `success`.
const sendOutput = z.union([
  sendResponseSchema.extend({ success: z.literal(true) }),
  sendResponseSchema,
  queueItemSchema,
]);

function sendProcedure<R extends SendRoute>(route: R) {
  return (
    instanceProcedure
      .meta({
        auth: "instance",
        successStatus: 201,
        queueable: true,
        bodyLimit: FILE_ROUTES.has(route) ? "file" : "json",
        // Every send but the vote names its chat (`chatId`, or its alias `phone`).
        // Voice and video: the file's type unless `convert: true`.
        bodyRules: { ...(route === "poll/vote" ? {} : CHAT_REQUIRED), ...convertRulesOf(route) },
        errors: SEND_ERRORS,
        openapi: {
          method: "POST",
          path: `/instances/{instanceId}/messages/${route}`,
          tags: ["Messages"],
          summary: SUMMARIES[route],
          description: QUEUE_DOC,
        },
      })
      // Each route its own schema; typed as the common shape here (the body is re-typed by route in `send`).
      .input(sendBodies[route] as unknown as z.ZodObject<typeof sendCommonFields>)
      .output(sendOutput)
      .mutation(({ ctx, input }) => send(ctx, route, input as Record<string, unknown>))
  );
}

/** Spec 4.4: every send route, plus seen and reaction. */
export const messagesRouter = router({
  sendText: sendProcedure("text"),
  sendImage: sendProcedure("image"),
  sendFile: sendProcedure("file"),
  sendVoice: sendProcedure("voice"),
  sendVideo: sendProcedure("video"),
  sendSticker: sendProcedure("sticker"),
  sendLinkPreview: sendProcedure("link-preview"),
  sendList: sendProcedure("list"),
  sendPoll: sendProcedure("poll"),
  sendPollVote: sendProcedure("poll/vote"),
  sendLocation: sendProcedure("location"),
  sendContactVcard: sendProcedure("contact-vcard"),
  sendForward: sendProcedure("forward"),
  sendEvent: sendProcedure("event"),
  sendTemplate: sendProcedure("template"),
  sendButtons: sendProcedure("buttons"),

  seen: instanceProcedure
    .meta({
      auth: "instance",
      errors: ["instance_not_connected", "network_unavailable", "network_timeout"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/messages/seen",
        tags: ["Messages"],
        summary: "Mark received messages as read",
        description: "`messageId` or `messageIds` (API ids carry their chat; bare ids need `chatId`).",
      },
    })
    .input(seenBody)
    .output(z.object({}))
    .mutation(async ({ ctx, input }) => {
      const given = chatOf(input);
      const ids: [string, string][] = [
        ...(input.messageId ? [[input.messageId, "messageId"] as [string, string]] : []),
        ...(input.messageIds ?? []).map((v): [string, string] => [v, "messageIds"]),
      ];
      if (ids.length === 0) {
        // Official gateway: without an id, the chat's last received message is marked (spec 4.4).
        if (ctx.instance.kind === "official" && given) {
          await (await connectedOwner(ctx)).markRead(ctx.instance.id, given, []);
        }
        return {};
      }
      // A group's read receipt names the message's sender: `participant` completes the bare ids
      // this instance has not stored (spec 4.4), as the full id's `_participant` part would.
      const participant = input.participant === undefined ? undefined : normalizePersonId(input.participant);
      if (participant === null) {
        throw invalid("participant", "participante inválido");
      }
      const byChat = new Map<string, string[]>();
      for (const [value, field] of ids) {
        const ref = await resolveRef(ctx.instance.id, value, field, ctx.platform.messages);
        const chatId = ref.chatId ?? given;
        if (!chatId) throw invalid("chatId", "informe o chatId");
        const id =
          ref.apiId ?? (participant ? formatMessageId({ fromMe: false, chatId, id: ref.id, participant }) : ref.id);
        byChat.set(chatId, [...(byChat.get(chatId) ?? []), id]);
      }
      const owner = await connectedOwner(ctx);
      // An account set offline (POST /presence) marks nothing read (docs/profile-presence.md).
      if (await ctx.platform.presence.withholdsReceipts(ctx.instance.id)) return {};
      for (const [chatId, list] of byChat) {
        await owner.markRead(ctx.instance.id, chatId, list);
        // The read model follows (unread counts, acks of received messages).
        await ctx.platform.readModel
          .markRead(
            ctx.instance,
            list.map((v) => parseMessageId(v)?.id ?? v),
            chatId,
          )
          .catch((err) => ctx.log.warn({ err }, "read model: marking read failed"));
      }
      return {};
    }),

  reaction: instanceProcedure
    .meta({
      auth: "instance",
      errors: [
        "instance_not_connected",
        "network_rejected",
        "network_unavailable",
        "network_timeout",
        "trial_limit_reached",
      ],
      openapi: {
        method: "PUT",
        path: "/instances/{instanceId}/messages/reaction",
        tags: ["Messages"],
        summary: "React to a message (an empty reaction removes it)",
        description:
          "Header `Idempotency-Key`: the same key within 24 h answers the first answer and never reacts twice.",
      },
    })
    .input(reactionBody)
    .output(reactionResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const { sending } = ctx;
      const key = header(ctx, "idempotency-key");
      // Like every send: Idempotency-Key answers a retry with the first answer (the network id
      // derives from the key, so even a retry after a timeout reacts once), and a reaction is a
      // message for the free trial's daily count.
      const run = async (attempt?: { origin: string }) => {
        const ref = await resolveRef(ctx.instance.id, input.messageId, "messageId", ctx.platform.messages);
        const chatId = ref.chatId ?? chatOf(input);
        if (!chatId) throw invalid("chatId", "informe o chatId");
        const owner = await connectedOwner(ctx);
        const refund = await sending.trial.take(ctx.instance, { charge: attempt?.origin });
        try {
          const networkId = key ? IdempotencyStore.networkId(ctx.instance.id, key) : undefined;
          const result = await owner.send(
            ctx.instance.id,
            chatId,
            { type: "reaction", targetId: ref.id, emoji: input.reaction },
            networkId ? { id: networkId, derivedId: true } : {},
          );
          const resultChat = result.chatId || chatId;
          const body = {
            chatId: resultChat,
            id: formatMessageId({ fromMe: true, chatId: resultChat, id: result.id }),
            status: "ok" as const,
          };
          return { status: 200, body };
        } catch (err) {
          await refund?.();
          throw err;
        }
      };
      const { instanceId: _i, ...body } = input;
      const answer = key
        ? await sending.idempotency.run(ctx.instance.id, key, IdempotencyStore.fingerprint("reaction", body), run)
        : await run();
      return answer.body as z.infer<typeof reactionResponseSchema>;
    }),
});
