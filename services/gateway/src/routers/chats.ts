import {
  ApiError,
  chatIdSchema,
  chatMessageSchema,
  chatOverviewSchema,
  chatSchema,
  DOC_PATTERNS,
  documented,
  type ErrorCode,
  type Instance,
  invalid,
  NETWORK_ID_RE,
  normalizeChatId,
  pageOffsetBodySchema,
  pageOffsetSchema,
  parseMessageId,
  successSchema,
} from "@gw/contracts";
import { type ChatQuery, type ChatSort, type ChatView, type MessageQuery, parseAck } from "@gw/platform";
import { z } from "zod";
import { pictureLink } from "../http/files.ts";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

/** Page sizes (spec 8 leaves them open): chats 50 by default, at most 500; messages `limit` required, at most 1000. */
export const CHATS_PAGE_DEFAULT = 50;
export const CHATS_PAGE_MAX = 500;
export const MESSAGES_PAGE_MAX = 1000;
/** `POST …/messages/read` without `messages`/`days`: the latest 30 unread of the last 7 days. */
export const READ_DEFAULT_MESSAGES = 30;
export const READ_DEFAULT_DAYS = 7;

const tags = ["Chats"];

type WithInstance = Context & { instance: Instance };

// --- query parameters --------------------------------------------------------------------------

/** A boolean query parameter: `true`/`false` (also `1`/`0`); JSON booleans over internal tRPC. */
const queryBool = (name: string) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"], `${name}: use true ou false`)])
    .transform((v) => v === true || v === "true" || v === "1");

const int = (name: string, min: number, max: number) =>
  z.coerce
    .number(`${name} deve ser um número inteiro`)
    .int(`${name} deve ser um número inteiro`)
    .min(min, `${name} vai de ${min} a ${max}`)
    .max(max, `${name} vai de ${min} a ${max}`);

const offset = pageOffsetSchema;

/** An integer of a JSON body: a JSON number only (no coercion of `null`, text or booleans). */
const bodyInt = (name: string, min: number, max: number) =>
  z
    .number(`${name} deve ser um número inteiro`)
    .int(`${name} deve ser um número inteiro`)
    .min(min, `${name} vai de ${min} a ${max}`)
    .max(max, `${name} vai de ${min} a ${max}`);

const sortOrder = z
  .enum(["desc", "asc", "descending", "ascending", "DESC", "ASC"], "sortOrder: desc ou asc")
  .transform((v): "asc" | "desc" => (v.toLowerCase().startsWith("asc") ? "asc" : "desc"));

const chatSort = z
  .enum(["lastMessageAt", "conversationTimestamp", "timestamp", "name", "id"], "sortBy: lastMessageAt, name ou id")
  .transform((v): ChatSort => (v === "name" || v === "id" ? v : "lastMessageAt"));

const chatIdPath = z.object({
  chatId: chatIdSchema,
});

const messageIdPath = documented(
  z.string("informe o messageId").trim().min(1, "informe o messageId").max(300, "messageId longo demais"),
  { pattern: DOC_PATTERNS.message },
  { description: "`{fromMe}_{chat}_{id}[_{participant}]`, or the network's bare id" },
);

/** Chat ids of a filter, normalized; a wrong one is a 422 on `field`. */
function chatIds(raw: string[] | undefined, field: string): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw.map((value) => {
    const id = normalizeChatId(value);
    if (!id) throw invalid(field, `chatId inválido: ${value}`);
    return id;
  });
}

const overview = (v: ChatView) => ({
  id: v.id,
  name: v.name,
  picture: v.picture,
  lastMessage: v.lastMessage,
  unreadCount: v.unreadCount,
  isGroup: v.isGroup,
  lid: v.lid,
  _chat: v,
});

const READ_ERRORS: ErrorCode[] = [];
const route = areaRoute({ path: "/chats", tags, errors: READ_ERRORS });

const listChats = (ctx: WithInstance, q: ChatQuery) => ctx.platform.readModel.listChats(ctx.instance, q);

const overviewInput = {
  merge: queryBool("merge").optional(),
  limit: int("limit", 1, CHATS_PAGE_MAX).default(CHATS_PAGE_DEFAULT),
  offset,
};

/** The message a route names: its network id and whether this account sent it (from the id, else the store). */
async function ownMessage(ctx: WithInstance, chatId: string, messageId: string, what: string) {
  const ref = parseMessageId(messageId);
  const networkId = ref?.id ?? messageId;
  if (!NETWORK_ID_RE.test(networkId)) {
    throw invalid("messageId", "id de mensagem inválido");
  }
  const stored = await ctx.platform.readModel.getDoc(ctx.instance, chatId, messageId);
  const fromMe = ref?.fromMe ?? stored?.fromMe;
  if (fromMe === undefined) throw new ApiError("not_found", "Mensagem não encontrada.");
  if (!fromMe) {
    throw invalid("messageId", `só mensagens enviadas por esta instância podem ser ${what}`);
  }
  return networkId;
}

/** Spec 4.5: chats and their history, read from the read model (docs/read-model.md). */
export const chatsRouter = router({
  chatsList: route("GET", "", "Chats, newest activity first by default", {
    description:
      `\`limit\` default ${CHATS_PAGE_DEFAULT}, at most ${CHATS_PAGE_MAX}. \`merge\` (default true): a person is one chat, ` +
      "also when the conversation began under a privacy id (`@lid`). Empty while `settings.storage.chats` is off.",
  })
    .input(
      z.object({
        sortBy: chatSort.default("lastMessageAt"),
        sortOrder: sortOrder.default("desc"),
        ...overviewInput,
      }),
    )
    .output(z.array(chatSchema))
    .query(async ({ ctx, input }) => {
      const rows = await listChats(ctx, {
        sortBy: input.sortBy,
        sortOrder: input.sortOrder,
        merge: input.merge ?? true,
        limit: input.limit,
        offset: input.offset,
      });
      return rows.map((r) => r.view);
    }),

  chatsOverview: route("GET", "/overview", "Chat overview: id, name, picture, last message, unread count", {
    description: `\`limit\` default ${CHATS_PAGE_DEFAULT}, at most ${CHATS_PAGE_MAX}; \`ids\` repeated or comma-separated.`,
  })
    .input(
      z.object({
        ...overviewInput,
        ids: z
          .union([z.string(), z.array(z.string())])
          .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean))
          .optional(),
      }),
    )
    .output(z.array(chatOverviewSchema))
    .query(async ({ ctx, input }) => {
      const ids = chatIds(input.ids, "ids");
      const rows = await listChats(ctx, {
        sortBy: "lastMessageAt",
        sortOrder: "desc",
        merge: input.merge ?? true,
        limit: input.limit,
        offset: input.offset,
        ...(ids ? { ids } : {}),
      });
      return rows.map((r) => overview(r.view));
    }),

  chatsOverviewPost: route("POST", "/overview", "Chat overview (filters in the body)", {
    description: `\`pagination.limit\` default ${CHATS_PAGE_DEFAULT}, at most ${CHATS_PAGE_MAX}.`,
  })
    .input(
      z.object({
        pagination: z.object({
          limit: bodyInt("limit", 1, CHATS_PAGE_MAX).default(CHATS_PAGE_DEFAULT),
          offset: pageOffsetBodySchema,
          merge: z.boolean("merge: use true ou false").optional(),
        }),
        filter: z
          .object({
            ids: z
              .array(documented(z.string(), { pattern: DOC_PATTERNS.chat }))
              .max(CHATS_PAGE_MAX)
              .optional(),
          })
          .optional(),
      }),
    )
    .output(z.array(chatOverviewSchema))
    .mutation(async ({ ctx, input }) => {
      const ids = chatIds(input.filter?.ids, "ids");
      const rows = await listChats(ctx, {
        sortBy: "lastMessageAt",
        sortOrder: "desc",
        merge: input.pagination.merge ?? true,
        limit: input.pagination.limit,
        offset: input.pagination.offset,
        ...(ids ? { ids } : {}),
      });
      return rows.map((r) => overview(r.view));
    }),

  chatPicture: route(
    "GET",
    "/{chatId}/picture",
    "The chat's picture as a signed link; 404 when it has no visible picture",
  )
    .input(chatIdPath.extend({ refresh: queryBool("refresh").optional() }))
    .output(z.object({ url: z.string() }))
    .query(({ ctx, input }) =>
      // The picture itself (cached a day; `refresh` asks the network again) decides 404.
      pictureLink(ctx.platform, ctx.sessions, ctx.instance.id, input.chatId, {
        refresh: input.refresh === true,
        notFound: "Conversa sem foto visível.",
      }),
    ),

  chatMessages: route("GET", "/{chatId}/messages", "A chat's messages, newest first", {
    description:
      `\`limit\` is required (1 to ${MESSAGES_PAGE_MAX}). \`merge\` (default true) includes messages that arrived ` +
      "by the person's privacy id. `filter.timestamp.gte`/`lte` are inclusive unix seconds; `filter.ack` takes " +
      "ERROR, PENDING, SERVER, DEVICE, READ, PLAYED (or the ack status words, or -1 to 4). `downloadMedia` adds " +
      "signed links (`mediaUrl`, `media.url`). Empty while `settings.storage.messages` is off.",
  })
    .input(
      chatIdPath.extend({
        limit: int("limit", 1, MESSAGES_PAGE_MAX),
        offset,
        sortBy: z.enum(["timestamp", "messageTimestamp"], "sortBy: timestamp").default("timestamp"),
        sortOrder: sortOrder.default("desc"),
        downloadMedia: queryBool("downloadMedia").default(false),
        merge: queryBool("merge").default(true),
        "filter.timestamp.lte": z.coerce.number("filter.timestamp.lte deve ser um número").int().optional(),
        "filter.timestamp.gte": z.coerce.number("filter.timestamp.gte deve ser um número").int().optional(),
        "filter.fromMe": queryBool("filter.fromMe").optional(),
        "filter.ack": documented(z.string(), { pattern: DOC_PATTERNS.ack }).optional(),
      }),
    )
    .output(z.array(chatMessageSchema))
    .query(({ ctx, input }) => {
      const instance = ctx.instance;
      const q: MessageQuery = {
        limit: input.limit,
        offset: input.offset,
        sortOrder: input.sortOrder,
        merge: input.merge,
        downloadMedia: input.downloadMedia,
      };
      if (input["filter.timestamp.gte"] !== undefined) q.timestampGte = input["filter.timestamp.gte"];
      if (input["filter.timestamp.lte"] !== undefined) q.timestampLte = input["filter.timestamp.lte"];
      if (input["filter.fromMe"] !== undefined) q.fromMe = input["filter.fromMe"];
      if (input["filter.ack"] !== undefined) {
        const ack = parseAck(input["filter.ack"]);
        if (ack === null) {
          throw invalid("filter.ack", "use ERROR, PENDING, SERVER, DEVICE, READ ou PLAYED");
        }
        q.ack = ack;
      }
      return ctx.platform.readModel.listMessages(instance, input.chatId, q);
    }),

  chatMessagesRead: route("POST", "/{chatId}/messages/read", "Mark the chat's unread received messages as read", {
    errors: NETWORK_ERRORS,
    description:
      `\`messages\`: how many, latest first (default ${READ_DEFAULT_MESSAGES}, at most ${MESSAGES_PAGE_MAX}); \`days\`: ` +
      `only those of the last N days (default ${READ_DEFAULT_DAYS}). Answers the ids marked read.`,
  })
    .input(
      chatIdPath.extend({
        messages: int("messages", 1, MESSAGES_PAGE_MAX).optional(),
        days: int("days", 1, 3650).optional(),
      }),
    )
    .output(z.object({ ids: z.array(z.string()) }))
    .mutation(async ({ ctx, input }) => {
      const instance = ctx.instance;
      // An account set offline (POST /presence) marks nothing read (docs/profile-presence.md).
      if (await ctx.platform.presence.withholdsReceipts(instance.id)) return { ids: [] };
      const days = input.days ?? READ_DEFAULT_DAYS;
      const unread = await ctx.platform.readModel.unreadMessages(instance, input.chatId, {
        limit: input.messages ?? READ_DEFAULT_MESSAGES,
        sinceSeconds: Math.floor(Date.now() / 1000) - days * 86_400,
      });
      if (unread.length > 0) {
        const owner = await connectedOwner(ctx);
        // Each by the chat the network delivered it in (a lid-era message is read in its lid chat).
        const byChat = new Map<string, string[]>();
        for (const u of unread) byChat.set(u.chatId, [...(byChat.get(u.chatId) ?? []), u.storedId]);
        for (const [chatId, ids] of byChat) await owner.markRead(instance.id, chatId, ids);
      }
      await ctx.platform.readModel.markRead(
        instance,
        unread.map((u) => u.networkId),
        input.chatId,
      );
      return { ids: unread.map((u) => u.id) };
    }),

  chatMessage: route("GET", "/{chatId}/messages/{messageId}", "One message of the chat")
    .input(
      chatIdPath.extend({
        messageId: messageIdPath,
        downloadMedia: queryBool("downloadMedia").default(false),
        merge: queryBool("merge").default(true),
      }),
    )
    .output(chatMessageSchema)
    .query(async ({ ctx, input }) => {
      const message = await ctx.platform.readModel.getMessage(ctx.instance, input.chatId, input.messageId, {
        merge: input.merge,
        downloadMedia: input.downloadMedia,
      });
      if (!message) throw new ApiError("not_found", "Mensagem não encontrada.");
      return message;
    }),

  chatMessageEdit: route("PUT", "/{chatId}/messages/{messageId}", "Edit the text of a message this instance sent", {
    errors: NETWORK_ERRORS,
  })
    .input(
      chatIdPath.extend({
        messageId: messageIdPath,
        text: z.string("informe o text").min(1, "informe o text"),
        linkPreview: z.boolean("linkPreview: use true ou false").optional(),
        linkPreviewHighQuality: z.boolean("linkPreviewHighQuality: use true ou false").optional(),
        mentions: z
          .array(documented(z.string(), { pattern: DOC_PATTERNS.person }))
          .max(1024)
          .optional(),
      }),
    )
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const instance = ctx.instance;
      const networkId = await ownMessage(ctx, input.chatId, input.messageId, "editadas");
      const mentions = input.mentions?.length ? (chatIds(input.mentions, "mentions") ?? []) : undefined;
      const owner = await connectedOwner(ctx);
      await owner.send(
        instance.id,
        input.chatId,
        { type: "edit", targetId: networkId, text: input.text },
        mentions ? { mentions } : undefined,
      );
      return { success: true as const };
    }),

  chatMessageDelete: route(
    "DELETE",
    "/{chatId}/messages/{messageId}",
    "Delete a message this instance sent, for everyone",
    { errors: NETWORK_ERRORS },
  )
    .input(chatIdPath.extend({ messageId: messageIdPath }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const instance = ctx.instance;
      const networkId = await ownMessage(ctx, input.chatId, input.messageId, "apagadas");
      const owner = await connectedOwner(ctx);
      await owner.send(instance.id, input.chatId, { type: "revoke", targetId: networkId });
      return { success: true as const };
    }),

  chatUnread: route("POST", "/{chatId}/unread", "Mark the chat as unread")
    .input(chatIdPath)
    .output(z.object({}))
    .mutation(async ({ ctx, input }) => {
      await ctx.platform.readModel.markUnread(ctx.instance, input.chatId);
      return {};
    }),
});
