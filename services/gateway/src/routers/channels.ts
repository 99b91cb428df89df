import {
  CHANNEL_INVITE_BASE,
  type Channel,
  channelCategoryLookupSchema,
  channelCountryLookupSchema,
  channelCreateBody,
  channelPreviewItemSchema,
  channelPreviewQuery,
  channelRoleSchema,
  channelSchema,
  channelSearchByTextBody,
  channelSearchByViewBody,
  channelSearchPageSchema,
  channelViewLookupSchema,
  documented,
  type ErrorCode,
  formatMessageId,
  type Instance,
  invalid,
  isPictureType,
  type OutboundContent,
  type ProviderChannel,
  type ProviderPicture,
  type ProviderPost,
  parseChannelRef,
  successSchema,
} from "@gw/contracts";
import { extensionOf } from "@gw/platform";
import { loadFile } from "@gw/sending";
import type { SessionApi } from "@gw/session";
import { z } from "zod";
import { cachePicture } from "../http/files.ts";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

const tags = ["Channels"];
const NETWORK = NETWORK_ERRORS;
const WITH_404: ErrorCode[] = [...NETWORK, "not_found"];

type Ctx = Context & { instance: Instance };

const route = areaRoute({ path: "/channels", tags, errors: NETWORK });

const CHANNEL_ID_DOC =
  "`{channelId}`: `<id>@newsletter`, or the channel's invite code, or its invite link " +
  "(`https://whatsapp.com/channel/<code>`, percent-encoded).";

const channelPath = z.object({
  channelId: documented(
    z.string("informe o channelId").min(1, "informe o channelId").max(300),
    {
      pattern:
        "^([0-9]{5,25}(@newsletter)?|[A-Za-z0-9]{10,40}|https://(www\\.)?whatsapp\\.com/channel/[A-Za-z0-9]{10,40})$",
    },
    { description: "`<id>@newsletter`, an invite code, or an invite link (percent-encoded)" },
  ),
});

// --- presenting what providers answer ------------------------------------------------------------

/**
 * A picture as a link: the network's own (public CDN), or, for bytes, this gateway's signed
 * avatar link (the bytes cached with it for its 24 h as pictures of chats are: a large one in the
 * media store, its reference in Redis).
 */
async function pictureLink(ctx: Ctx, channelId: string, pic: ProviderPicture): Promise<string | null> {
  if (!pic) return null;
  if ("url" in pic) return pic.url;
  const { platform, instance } = ctx;
  await cachePicture(platform, instance.id, channelId, pic);
  return platform.mediaLinks.avatar(instance.id, channelId);
}

async function present(ctx: Ctx, ch: ProviderChannel, withRole = true): Promise<Channel> {
  const picture = await pictureLink(ctx, ch.id, ch.picture);
  // One rendition's bytes serve both links (simnet keeps one picture per channel).
  const preview = ch.preview && "data" in ch.preview ? picture : await pictureLink(ctx, ch.id, ch.preview);
  return {
    id: ch.id,
    name: ch.name,
    description: ch.description,
    invite: ch.invite ? `${CHANNEL_INVITE_BASE}${ch.invite}` : "",
    picture,
    preview,
    ...(withRole && ch.role ? { role: ch.role } : {}),
    subscribersCount: ch.subscribersCount,
    verified: ch.verified,
    ...(withRole && ch.muted !== undefined ? { muted: ch.muted } : {}),
  };
}

/** The channel a path names; an invite is looked up first (one more network call). */
async function channelOf(ctx: Ctx, owner: SessionApi, raw: string): Promise<ProviderChannel | string> {
  const ref = parseChannelRef(raw);
  if (!ref) {
    throw invalid("channelId", "use <id>@newsletter, o código de convite ou o link do convite");
  }
  if ("id" in ref) return ref.id;
  return owner.op(ctx.instance.id, "channels.get", { invite: ref.invite });
}

async function channelIdOf(ctx: Ctx, owner: SessionApi, raw: string): Promise<string> {
  const found = await channelOf(ctx, owner, raw);
  return typeof found === "string" ? found : found.id;
}

// --- search pages --------------------------------------------------------------------------------

/** Opaque cursors over the directory's order: "" is the first page. */
const cursorOf = (offset: number) => Buffer.from(`o${offset}`).toString("base64url");

function offsetOf(cursor: string): number {
  if (cursor === "") return 0;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!m) {
    throw invalid("startCursor", 'cursor inválido: use "" ou o endCursor da página anterior');
  }
  return Number(m[1]);
}

async function page(ctx: Ctx, found: { channels: ProviderChannel[]; hasMore: boolean }, offset: number) {
  return {
    channels: await Promise.all(found.channels.map((ch) => present(ctx, ch, false))),
    page: {
      startCursor: cursorOf(offset),
      endCursor: cursorOf(offset + found.channels.length),
      hasNextPage: found.hasMore,
      hasPreviousPage: offset > 0,
    },
  };
}

// --- preview items -------------------------------------------------------------------------------

const MEDIA_TYPES = new Set(["image", "video", "audio", "voice", "document", "sticker"]);

/**
 * A post's bytes, kept in the message store (7 days) so that a signed file link serves them like
 * any message's media; a post already kept (our own, sent through the API) is not written again.
 */
async function mediaLink(ctx: Ctx, channelId: string, p: ProviderPost, apiId: string): Promise<string | null> {
  const m = p.media;
  if (!m) return null;
  if (m.data && MEDIA_TYPES.has(p.type)) {
    const { messages, mediaLinks } = ctx.platform;
    const kept = await messages.get(ctx.instance.id, p.id);
    // Kept: its bytes are a media store object (the record's `media`; its content's `data` is empty).
    if (!kept?.mediaKept || !kept.media) {
      const media = { data: m.data, mimetype: m.mimetype, ...(m.filename ? { filename: m.filename } : {}) };
      const content = { type: p.type, media } as OutboundContent;
      await messages.save(ctx.instance.id, {
        id: p.id,
        chatId: channelId,
        fromMe: p.fromMe,
        timestamp: p.timestamp,
        content,
      });
    }
    return mediaLinks.sign(`/v1/files/${ctx.instance.id}/${apiId}.${extensionOf(m.mimetype, m.filename)}`);
  }
  return m.url;
}

async function previewItem(ctx: Ctx, channelId: string, p: ProviderPost, download: boolean) {
  const me = ctx.instance.phone ? `${ctx.instance.phone}@c.us` : "";
  const apiId = formatMessageId({ fromMe: p.fromMe, chatId: channelId, id: p.id });
  let media: { url: string | null; mimetype: string; filename: string | null; error: string | null } | null = null;
  if (p.media) {
    const url = download ? await mediaLink(ctx, channelId, p, apiId) : null;
    media = {
      url,
      mimetype: p.media.mimetype,
      filename: p.media.filename,
      error: download && !url ? "mídia indisponível" : null,
    };
  }
  return {
    message: {
      id: apiId,
      chatId: channelId,
      from: p.fromMe ? me : channelId,
      to: p.fromMe ? channelId : me,
      author: null,
      participant: null,
      body: p.text ?? "",
      type: p.type,
      fromMe: p.fromMe,
      hasMedia: p.media !== null,
      ack: 1,
      ackName: "SERVER",
      timestamp: p.timestamp,
      source: null,
      vCards: [],
      ...(download ? { mediaUrl: media?.url ?? null } : {}),
      media,
      location: p.location,
      replyTo: null,
      serverId: p.serverId,
      _data: p.raw ?? null,
    },
    reactions: p.reactions,
    viewCount: p.viewCount,
  };
}

// --- routes --------------------------------------------------------------------------------------

const action = (verb: "follow" | "unfollow" | "mute" | "unmute", summary: string) =>
  route("POST", `/{channelId}/${verb}`, summary, { errors: WITH_404, description: CHANNEL_ID_DOC })
    .input(channelPath)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      const id = await channelIdOf(ctx, owner, input.channelId);
      await owner.op(ctx.instance.id, `channels.${verb}`, { id });
      return { success: true as const };
    });

/** Spec 4.6: channels (newsletters), standard instances; the capability table answers the 501s. */
export const channelsRouter = router({
  channelsList: route("GET", "", "The channels this account owns, administers or follows", {
    description:
      "`role` filters: `owner`, `admin` or `subscriber` (`guest` lists nothing: a guest follows nothing). " +
      "Each channel carries the account's `role` and `muted`.",
  })
    .input(z.object({ role: channelRoleSchema.optional() }))
    .output(z.array(channelSchema))
    .query(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      const list = await owner.op(ctx.instance.id, "channels.list", input.role ? { role: input.role } : {});
      return Promise.all(list.map((ch) => present(ctx, ch)));
    }),

  channelsCreate: route("POST", "", "Create a channel owned by this account", {
    created: true,
    file: true,
    errors: [...NETWORK, "url_not_allowed", "payload_too_large"],
    description: "`picture`: a file object (spec 2.5), JPEG or PNG.",
  })
    .input(channelCreateBody)
    .output(channelSchema)
    .mutation(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      let picture: { data: string; mimetype: string } | undefined;
      if (input.picture) {
        const file = await loadFile(input.picture, { ...ctx.sending.sender.composeDeps.media, field: "picture" });
        if (!isPictureType(file.mimetype)) {
          throw invalid("picture", `a imagem do canal deve ser JPEG ou PNG (recebido ${file.mimetype})`);
        }
        picture = { data: file.data.toString("base64"), mimetype: file.mimetype.toLowerCase() };
      }
      const created = await owner.op(ctx.instance.id, "channels.create", {
        name: input.name,
        ...(input.description ? { description: input.description } : {}),
        ...(picture ? { picture } : {}),
      });
      return present(ctx, created);
    }),

  channelsSearchByView: route("POST", "/search/by-view", "Search the channel directory by view", {
    description:
      "`view`: RECOMMENDED, TRENDING, POPULAR or NEW; `categories` and `countries` filter (empty = all); " +
      '`startCursor` "" for the first page, then the previous page\'s `endCursor`.',
  })
    .input(channelSearchByViewBody)
    .output(channelSearchPageSchema)
    .mutation(async ({ ctx, input }) => {
      const offset = offsetOf(input.startCursor);
      const owner = await connectedOwner(ctx);
      const found = await owner.op(ctx.instance.id, "channels.searchByView", {
        view: input.view,
        categories: input.categories,
        countries: input.countries,
        offset,
        limit: input.limit,
      });
      return page(ctx, found, offset);
    }),

  channelsSearchByText: route("POST", "/search/by-text", "Search the channel directory by name and description", {
    description: '`categories` filters (empty = all); `startCursor` "" for the first page.',
  })
    .input(channelSearchByTextBody)
    .output(channelSearchPageSchema)
    .mutation(async ({ ctx, input }) => {
      const offset = offsetOf(input.startCursor);
      const owner = await connectedOwner(ctx);
      const found = await owner.op(ctx.instance.id, "channels.searchByText", {
        text: input.text,
        categories: input.categories,
        offset,
        limit: input.limit,
      });
      return page(ctx, found, offset);
    }),

  channelsSearchViews: route("GET", "/search/views", "The directory's views (values of `view`)")
    .output(z.array(channelViewLookupSchema))
    .query(async ({ ctx }) => (await connectedOwner(ctx)).op(ctx.instance.id, "channels.views", {})),

  channelsSearchCountries: route("GET", "/search/countries", "The directory's countries (values of `countries`)")
    .output(z.array(channelCountryLookupSchema))
    .query(async ({ ctx }) => (await connectedOwner(ctx)).op(ctx.instance.id, "channels.countries", {})),

  channelsSearchCategories: route("GET", "/search/categories", "The directory's categories (values of `categories`)")
    .output(z.array(channelCategoryLookupSchema))
    .query(async ({ ctx }) => (await connectedOwner(ctx)).op(ctx.instance.id, "channels.categories", {})),

  channelsGet: route("GET", "/{channelId}", "A channel, by id or invite", {
    errors: WITH_404,
    description: `${CHANNEL_ID_DOC} \`role\` is this account's (guest when it does not follow it).`,
  })
    .input(channelPath)
    .output(channelSchema)
    .query(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      const found = await channelOf(ctx, owner, input.channelId);
      const ch = typeof found === "string" ? await owner.op(ctx.instance.id, "channels.get", { id: found }) : found;
      return present(ctx, ch);
    }),

  channelsPreview: route(
    "GET",
    "/{channelId}/messages/preview",
    "The channel's latest posts, with reactions and views",
    {
      errors: WITH_404,
      description:
        `${CHANNEL_ID_DOC} Newest first. \`downloadMedia=true\`: media get links (24 h). Any channel can be ` +
        "previewed, followed or not.",
    },
  )
    .input(channelPath.extend(channelPreviewQuery.shape))
    .output(z.array(channelPreviewItemSchema))
    .query(async ({ ctx, input }) => {
      const owner = await connectedOwner(ctx);
      const id = await channelIdOf(ctx, owner, input.channelId);
      const posts = await owner.op(ctx.instance.id, "channels.preview", {
        id,
        limit: input.limit,
        media: input.downloadMedia,
      });
      return Promise.all(posts.map((p) => previewItem(ctx, id, p, input.downloadMedia)));
    }),

  channelsFollow: action("follow", "Follow a channel"),
  channelsUnfollow: action("unfollow", "Stop following a channel"),
  channelsMute: action("mute", "Mute a followed channel (its posts still arrive, as events too)"),
  channelsUnmute: action("unmute", "Unmute a followed channel"),
});
