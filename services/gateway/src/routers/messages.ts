import {
  CHAT_REQUIRED,
  chatOf,
  convertRulesOf,
  type ErrorCode,
  formatMessageId,
  invalid,
  normalizePersonId,
  parseMessageId,
  queueItemSchema,
  reactionBody,
  reactionResponseSchema,
  type SendRequest,
  type SendRoute,
  seenBody,
  sendBodies,
  type sendCommonFields,
  sendResponseSchema,
} from "@gw/contracts";
import { resolveRef, type SubmitOptions } from "@gw/sending";
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

function header(ctx: Context, name: string): string | undefined {
  const v = ctx.http.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `X-Queue`: `true` or `false`; absent or empty, the send service decides (delays, the queue mode). */
function queueHeader(ctx: Context): boolean | undefined {
  const raw = header(ctx, "x-queue");
  if (raw === undefined || raw === "") return undefined;
  const v = raw.trim().toLowerCase();
  if (v !== "true" && v !== "false") {
    throw invalid("X-Queue", "use true ou false");
  }
  return v === "true";
}

/** What the client's headers ask of a send (SendService.submit). */
function sendOptions(ctx: Context): SubmitOptions {
  return { queue: queueHeader(ctx), idempotencyKey: header(ctx, "idempotency-key") };
}

/** The request body: the procedure's input without the path's instance id. */
function bodyOf<T extends { instanceId: string }>({ instanceId: _i, ...body }: T): Omit<T, "instanceId"> {
  return body;
}

/** The send request of a route: its body re-typed by route (the procedure's input is typed as the common shape). */
function requestOf(route: SendRoute, input: { instanceId: string }): SendRequest {
  return { route, body: bodyOf(input) } as SendRequest;
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
      // Each route its own schema; typed as the common shape here (the body is re-typed by route in `requestOf`).
      .input(sendBodies[route] as unknown as z.ZodObject<typeof sendCommonFields>)
      .output(sendOutput)
      .mutation(async ({ ctx, input }) => {
        const answer = await ctx.sending.service.submit(ctx.instance, requestOf(route, input), sendOptions(ctx));
        ctx.http.status = answer.status;
        return answer.body;
      })
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
      const answer = await ctx.sending.service.react(ctx.instance, bodyOf(input), {
        idempotencyKey: header(ctx, "idempotency-key"),
      });
      return answer.body;
    }),
});
