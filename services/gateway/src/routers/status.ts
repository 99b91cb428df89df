import { randomBytes } from "node:crypto";
import {
  ApiError,
  convertRulesOf,
  type ErrorCode,
  formatMessageId,
  type Instance,
  invalid,
  mediaKindProblem,
  type OutboundContent,
  type OutboundMedia,
  parseMessageId,
  type SendOptions,
  STATUS_AUDIENCE_MAX,
  STATUS_CHAT_ID,
  type StatusRoute,
  type StatusSendResponse,
  statusBodies,
  statusDeleteResponseSchema,
  statusSendResponseSchema,
} from "@gw/contracts";
import { MESSAGE_KEEP_MS } from "@gw/platform";
import { convertVideo, convertVoice, type LoadedFile, loadFile } from "@gw/sending";
import { z } from "zod";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

const tags = ["Status"];
const ERRORS: ErrorCode[] = [...NETWORK_ERRORS, "trial_limit_reached"];
const FILE_ERRORS: ErrorCode[] = [...ERRORS, "url_not_allowed", "payload_too_large"];

type Ctx = Context & { instance: Instance };

const AUDIENCE_DOC =
  "`contacts`: who sees it (numbers or `@c.us`/`@lid` ids); absent, the instance's one-to-one chats as " +
  "stored (`settings.storage.chats`), else 422. The post is announced as `message.any` with `chatId` " +
  "`status@broadcast` (silenced by `settings.ignore.status`).";

// --- the audience --------------------------------------------------------------------------------

/**
 * Without `contacts`: the people the instance has one-to-one conversations with, as its read model
 * keeps them (numbers, or privacy ids while the number is unknown), newest first, up to the cap.
 */
async function defaultAudience(ctx: Ctx): Promise<string[]> {
  const self = ctx.instance.phone ? `${ctx.instance.phone}@c.us` : "";
  const out: string[] = [];
  const size = 500;
  for (let offset = 0; out.length < STATUS_AUDIENCE_MAX; offset += size) {
    const rows = await ctx.platform.readModel.listChats(ctx.instance, {
      limit: size,
      offset,
      sortBy: "lastMessageAt",
      sortOrder: "desc",
      merge: true,
    });
    for (const { view } of rows) {
      if ((view.id.endsWith("@c.us") || view.id.endsWith("@lid")) && view.id !== self) out.push(view.id);
    }
    if (rows.length < size) break;
  }
  if (out.length === 0) {
    throw invalid(
      "contacts",
      "informe contacts: a instância não tem conversas individuais guardadas para formar o público padrão",
    );
  }
  return out.slice(0, STATUS_AUDIENCE_MAX);
}

/** A status post stays on the network 24 hours. */
const STATUS_LIFETIME_MS = 24 * 3_600_000;

/**
 * What a post leaves behind: who got it, kept as long as the post can be named (its deletion goes
 * to the same people), and its place among the instance's live posts (deletion without `id`).
 */
async function rememberPost(ctx: Ctx, networkId: string, audience: string[]): Promise<void> {
  const k = ctx.platform.keys;
  const now = Date.now();
  await ctx.platform.redis
    .multi()
    .set(k.statusAudience(ctx.instance.id, networkId), JSON.stringify(audience), "PX", MESSAGE_KEEP_MS)
    .zadd(k.statusPosts(ctx.instance.id), now, networkId)
    .zremrangebyscore(k.statusPosts(ctx.instance.id), "-inf", now - STATUS_LIFETIME_MS)
    .pexpire(k.statusPosts(ctx.instance.id), STATUS_LIFETIME_MS)
    .exec()
    .catch((err: unknown) => ctx.log.warn({ err }, "keeping a status post failed"));
}

async function recalledAudience(ctx: Ctx, networkId: string): Promise<string[] | null> {
  const raw = await ctx.platform.redis.get(ctx.platform.keys.statusAudience(ctx.instance.id, networkId));
  return raw ? (JSON.parse(raw) as string[]) : null;
}

/** The newest post of the instance still on the network, if any. */
async function newestLivePost(ctx: Ctx): Promise<string | null> {
  const key = ctx.platform.keys.statusPosts(ctx.instance.id);
  const [id] = await ctx.platform.redis.zrevrangebyscore(key, "+inf", Date.now() - STATUS_LIFETIME_MS, "LIMIT", 0, 1);
  return id ?? null;
}

// --- media ---------------------------------------------------------------------------------------

function mediaOf(file: LoadedFile): OutboundMedia {
  return {
    data: file.data.toString("base64"),
    mimetype: file.mimetype,
    ...(file.filename ? { filename: file.filename } : {}),
  };
}

function requireKind(kind: "image" | "voice" | "video", file: LoadedFile): void {
  const problem = mediaKindProblem(kind, file.mimetype);
  if (problem) throw invalid("file", problem);
}

type Body<R extends StatusRoute> = z.infer<(typeof statusBodies)[R]>;

/** The content a route posts and its style (the send path's media handling: fetch, check, convert). */
async function compose(
  ctx: Ctx,
  route: StatusRoute,
  body: Body<StatusRoute>,
): Promise<{ content: OutboundContent; style: { backgroundColor?: string; font?: number } }> {
  const load = (file: Body<"image">["file"]) =>
    loadFile(file, { ...ctx.sending.sender.composeDeps.media, field: "file" });
  switch (route) {
    case "text": {
      const b = body as Body<"text">;
      return {
        content: { type: "text", text: b.text, ...(b.linkPreview !== undefined ? { linkPreview: b.linkPreview } : {}) },
        style: { backgroundColor: b.backgroundColor, font: b.font },
      };
    }
    case "image": {
      const b = body as Body<"image">;
      const file = await load(b.file);
      requireKind("image", file);
      return {
        content: { type: "image", media: mediaOf(file), ...(b.caption ? { caption: b.caption } : {}) },
        style: {},
      };
    }
    case "voice": {
      const b = body as Body<"voice">;
      let file = await load(b.file);
      let seconds: number | undefined;
      if (b.convert) {
        const converted = await convertVoice(file);
        seconds = converted.seconds;
        file = converted;
      }
      requireKind("voice", file);
      return {
        content: { type: "voice", media: mediaOf(file), ...(seconds !== undefined ? { seconds } : {}) },
        style: { backgroundColor: b.backgroundColor },
      };
    }
    case "video": {
      const b = body as Body<"video">;
      let file = await load(b.file);
      if (b.convert) file = await convertVideo(file);
      requireKind("video", file);
      return {
        content: { type: "video", media: mediaOf(file), ...(b.caption ? { caption: b.caption } : {}) },
        style: {},
      };
    }
  }
}

// --- routes --------------------------------------------------------------------------------------

async function publish(
  ctx: Ctx,
  route: StatusRoute,
  input: Body<StatusRoute> & { instanceId: string },
): Promise<StatusSendResponse> {
  const owner = await connectedOwner(ctx);
  const audience = input.contacts ?? (await defaultAudience(ctx));
  const { content, style } = await compose(ctx, route, input);
  const options: SendOptions = { status: { audience, ...style }, ...(input.id ? { id: input.id } : {}) };
  // A post is a message for the free trial's daily count, as every send.
  const refund = await ctx.sending.trial.take(ctx.instance);
  try {
    const result = await owner.send(ctx.instance.id, STATUS_CHAT_ID, content, options);
    await rememberPost(ctx, result.id, audience);
    return {
      chatId: STATUS_CHAT_ID,
      id: formatMessageId({ fromMe: true, chatId: STATUS_CHAT_ID, id: result.id }),
      status: "sent",
      audienceSize: audience.length,
    };
  } catch (err) {
    await refund?.();
    throw err;
  }
}

const SUMMARIES: Record<StatusRoute, string> = {
  text: "Post a text status (background color and font)",
  image: "Post an image status",
  voice: "Post a voice status (convert: true converts to OGG/Opus)",
  video: "Post a video status (convert: true converts to MP4/H.264)",
};

function publishRoute<R extends StatusRoute>(route: R) {
  return instanceProcedure
    .meta({
      auth: "instance",
      successStatus: 201,
      bodyLimit: route === "text" ? "json" : "file",
      errors: route === "text" ? ERRORS : FILE_ERRORS,
      bodyRules: convertRulesOf(route),
      openapi: {
        method: "POST",
        path: `/instances/{instanceId}/status/${route}`,
        tags,
        summary: SUMMARIES[route],
        description: AUDIENCE_DOC,
      },
    })
    .input(statusBodies[route] as unknown as (typeof statusBodies)["image"])
    .output(statusSendResponseSchema)
    .mutation(({ ctx, input }) => publish(ctx, route, input as unknown as Parameters<typeof publish>[2]));
}

/** Spec 4.8: status posts, standard instances (docs/status-channels.md). */
export const statusRouter = router({
  statusText: publishRoute("text"),
  statusImage: publishRoute("image"),
  statusVoice: publishRoute("voice"),
  statusVideo: publishRoute("video"),

  statusDelete: instanceProcedure
    .meta({
      auth: "instance",
      errors: [...ERRORS, "not_found"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/status/delete",
        tags,
        summary: "Delete a status post for everyone who got it",
        description:
          "`id`: the post's id as its publication answered; without it, the instance's newest post still on " +
          "the network (posts last 24 h; `404` when there is none). Without `contacts`, the deletion goes to " +
          "the post's own audience. Announced as `message.revoked` with `chatId` `status@broadcast`.",
      },
    })
    .input(statusBodies.delete)
    .output(statusDeleteResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const ref = input.id ? parseMessageId(input.id) : null;
      if (ref && ref.chatId !== STATUS_CHAT_ID) throw invalid("id", "este id não é de um status");
      const owner = await connectedOwner(ctx);
      const networkId = ref?.id ?? input.id ?? (await newestLivePost(ctx));
      if (!networkId) throw new ApiError("not_found", "Nenhum status desta instância está no ar (duram 24 h).");
      if (!/^[A-Za-z0-9-]{4,128}$/.test(networkId)) throw invalid("id", "id de status inválido");
      const stored = await ctx.platform.messages.get(ctx.instance.id, networkId);
      if (!stored || stored.chatId !== STATUS_CHAT_ID || !stored.fromMe) {
        throw new ApiError("not_found", "Status não encontrado: só se apagam status publicados por esta instância.");
      }
      const audience = input.contacts ?? (await recalledAudience(ctx, networkId)) ?? (await defaultAudience(ctx));
      await owner.send(
        ctx.instance.id,
        STATUS_CHAT_ID,
        { type: "revoke", targetId: networkId },
        { status: { audience } },
      );
      await ctx.platform.redis.zrem(ctx.platform.keys.statusPosts(ctx.instance.id), networkId);
      return {
        chatId: STATUS_CHAT_ID,
        id: formatMessageId({ fromMe: true, chatId: STATUS_CHAT_ID, id: networkId }),
        status: "deleted" as const,
        audienceSize: audience.length,
      };
    }),

  statusNewMessageId: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/status/new-message-id",
        tags,
        summary: "A fresh id for a status post, to give as `id` (a retry then never posts twice)",
      },
    })
    .output(z.object({ id: z.string() }))
    // The network's own shape of ids made by linked devices: 3EB0 + 18 hex digits.
    .query(() => ({ id: `3EB0${randomBytes(9).toString("hex").toUpperCase()}` })),
});
