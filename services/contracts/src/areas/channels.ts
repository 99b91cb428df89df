import { z } from "zod";
import type { Capability } from "../capability.ts";
import { typedFile } from "../file.ts";
import { PICTURE_TYPES_PATTERN } from "../media-kinds.ts";
import { defineOps } from "../ops.ts";
import { messageReadFields, readMediaSchema } from "./chats.ts";

/**
 * Channels (newsletters, spec 4.6 and 2.10; docs/status-channels.md): the route bodies, the
 * resources as the API shows them, the area's session operations (with the provider's shapes:
 * pictures as bytes or links, invite codes, offsets) and the routes' capabilities.
 */

/** The viewer's relation to a channel (the spec leaves the values open). */
export const CHANNEL_ROLES = ["owner", "admin", "subscriber", "guest"] as const;
export const channelRoleSchema = z.enum(CHANNEL_ROLES, "role: owner, admin, subscriber ou guest");
export type ChannelRole = z.infer<typeof channelRoleSchema>;

/** The directory's views (the network's own names). */
export const CHANNEL_VIEWS = ["RECOMMENDED", "TRENDING", "POPULAR", "NEW"] as const;

export const CHANNEL_ID_RE = /^\d{5,25}@newsletter$/;
export const CHANNEL_INVITE_RE = /^[A-Za-z0-9]{10,40}$/;
export const CHANNEL_INVITE_BASE = "https://whatsapp.com/channel/";
export const CHANNEL_SEARCH_LIMIT_MAX = 100;
export const CHANNEL_PREVIEW_LIMIT_MAX = 100;

/**
 * `{channelId}` of the routes: `<digits>@newsletter` (bare digits too), an invite code, or an
 * invite link (`https://whatsapp.com/channel/<code>`, percent-encoded in the path). Null when
 * it is none of them.
 */
export function parseChannelRef(raw: string): { id: string } | { invite: string } | null {
  const v = raw.trim();
  if (CHANNEL_ID_RE.test(v)) return { id: v };
  if (/^\d{5,25}$/.test(v)) return { id: `${v}@newsletter` };
  const link = /^(?:https?:\/\/)?(?:www\.)?whatsapp\.com\/channel\/([A-Za-z0-9]{10,40})\/?(?:\?.*)?$/i.exec(v);
  if (link) return { invite: link[1]! };
  return CHANNEL_INVITE_RE.test(v) ? { invite: v } : null;
}

// --- provider shapes (what the area's operations answer) --------------------------------------

/** A picture as a provider has it: a public link (the network's CDN) or the bytes. */
const providerPicture = z
  .union([z.object({ url: z.string() }), z.object({ data: z.string(), mimetype: z.string() })])
  .nullable();
export type ProviderPicture = z.infer<typeof providerPicture>;

export const providerChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** The invite code (the link is built from it). */
  invite: z.string(),
  picture: providerPicture,
  preview: providerPicture,
  /** Absent in directory results. */
  role: channelRoleSchema.optional(),
  subscribersCount: z.number().int(),
  verified: z.boolean(),
  muted: z.boolean().optional(),
});
export type ProviderChannel = z.infer<typeof providerChannelSchema>;

export const providerPostSchema = z.object({
  /** The message id (the post's `id` in events). */
  id: z.string(),
  /** The channel's own sequence number of the post (reactions and views name it). */
  serverId: z.string(),
  fromMe: z.boolean(),
  timestamp: z.number().int(),
  /** Spec 2.11 `payload.type`. */
  type: z.string(),
  text: z.string().nullable(),
  media: z
    .object({
      mimetype: z.string(),
      filename: z.string().nullable(),
      /** base64, when asked for and the provider has the bytes. */
      data: z.string().nullable(),
      /** A public link of the network, when asked for and the provider has one. */
      url: z.string().nullable(),
    })
    .nullable(),
  location: z.record(z.string(), z.unknown()).nullable(),
  reactions: z.record(z.string(), z.number().int()),
  viewCount: z.number().int(),
  raw: z.unknown(),
});
export type ProviderPost = z.infer<typeof providerPostSchema>;

const lookup = z.object({ name: z.string(), value: z.string() });
const countryLookup = z.object({ name: z.string(), code: z.string() });
const searchResult = z.object({ channels: z.array(providerChannelSchema), hasMore: z.boolean() });
const channelKey = z.object({ id: z.string().regex(CHANNEL_ID_RE) });
const done = z.object({});

export const channelsOps = defineOps({
  "channels.list": { input: z.object({ role: channelRoleSchema.optional() }), output: z.array(providerChannelSchema) },
  "channels.create": {
    input: z.object({
      name: z.string().min(1),
      description: z.string().optional(),
      picture: z.object({ data: z.string(), mimetype: z.string() }).optional(),
    }),
    output: providerChannelSchema,
  },
  "channels.get": {
    input: z.union([channelKey, z.object({ invite: z.string().regex(CHANNEL_INVITE_RE) })]),
    output: providerChannelSchema,
  },
  "channels.follow": { input: channelKey, output: done },
  "channels.unfollow": { input: channelKey, output: done },
  "channels.mute": { input: channelKey, output: done },
  "channels.unmute": { input: channelKey, output: done },
  "channels.preview": {
    input: channelKey.extend({ limit: z.number().int().min(1), media: z.boolean() }),
    output: z.array(providerPostSchema),
  },
  "channels.searchByView": {
    input: z.object({
      view: z.string(),
      categories: z.array(z.string()),
      countries: z.array(z.string()),
      offset: z.number().int().min(0),
      limit: z.number().int().min(1),
    }),
    output: searchResult,
  },
  "channels.searchByText": {
    input: z.object({
      text: z.string(),
      categories: z.array(z.string()),
      offset: z.number().int().min(0),
      limit: z.number().int().min(1),
    }),
    output: searchResult,
  },
  "channels.views": { input: z.object({}), output: z.array(lookup) },
  "channels.countries": { input: z.object({}), output: z.array(countryLookup) },
  "channels.categories": { input: z.object({}), output: z.array(lookup) },
});

// --- the API's resources (spec 2.10) ------------------------------------------------------------

export const channelSchema = z
  .object({
    id: z.string().meta({ description: "`<id>@newsletter`" }),
    name: z.string(),
    description: z.string(),
    invite: z.string().meta({ description: "Invite link `https://whatsapp.com/channel/<code>`" }),
    picture: z.string().nullable().meta({ description: "Link to the picture (24 h), null without one" }),
    preview: z.string().nullable().meta({ description: "Link to the small picture (24 h), null without one" }),
    role: channelRoleSchema
      .optional()
      .meta({ description: "owner, admin, subscriber (follows) or guest; absent in search results" }),
    subscribersCount: z.number().int(),
    verified: z.boolean(),
    muted: z.boolean().optional().meta({ description: "Whether this account muted it (channels it follows)" }),
  })
  .meta({ id: "Channel" });
export type Channel = z.infer<typeof channelSchema>;

export const channelSearchPageSchema = z
  .object({
    channels: z.array(channelSchema),
    page: z.object({
      startCursor: z.string().meta({ description: "Where this page starts" }),
      endCursor: z.string().meta({ description: "Give it as `startCursor` for the next page" }),
      hasNextPage: z.boolean(),
      hasPreviousPage: z.boolean(),
    }),
  })
  .meta({ id: "ChannelSearchPage" });

export const channelViewLookupSchema = lookup.meta({ id: "ChannelView" });
export const channelCategoryLookupSchema = lookup.meta({ id: "ChannelCategory" });
export const channelCountryLookupSchema = countryLookup.meta({ id: "ChannelCountry" });

const messageMedia = readMediaSchema("Link to the bytes, with downloadMedia");

/** A channel post in the message read shape of spec 2.8. */
export const channelMessageSchema = z
  .object({
    id: z.string().meta({ description: "`{fromMe}_<id>@newsletter_{id}`" }),
    ...messageReadFields,
    ack: z.number().int(),
    ackName: z.string(),
    media: messageMedia.nullable(),
    location: z.record(z.string(), z.unknown()).nullable(),
    replyTo: z.null(),
    serverId: z.string().meta({ description: "The channel's sequence number of the post" }),
    _data: z.unknown(),
  })
  .meta({ id: "ChannelMessage" });

export const channelPreviewItemSchema = z
  .object({
    message: channelMessageSchema,
    reactions: z.record(z.string(), z.number().int()).meta({ description: "emoji → count" }),
    viewCount: z.number().int(),
  })
  .meta({ id: "ChannelPreviewItem" });

// --- route bodies (spec 4.6) -------------------------------------------------------------------

export const channelCreateBody = z.object({
  name: z
    .string("informe o nome do canal")
    .trim()
    .min(1, "informe o nome do canal")
    .max(100, "nome: até 100 caracteres"),
  description: z.string().max(2048, "descrição: até 2048 caracteres").optional(),
  picture: typedFile(PICTURE_TYPES_PATTERN, "JPEG or PNG (spec 2.5 file object)").optional(),
});

const limit = (max: number) =>
  z.coerce
    .number("informe limit (número)")
    .int("limit deve ser um número inteiro")
    .min(1, `limit vai de 1 a ${max}`)
    .max(max, `limit vai de 1 a ${max}`);

const searchCommon = {
  categories: z
    .array(z.string().regex(/^[A-Z0-9_]{2,40}$/, "categoria inválida: use os valores de /channels/search/categories"), {
      error: "informe categories (lista; vazia = todas)",
    })
    .max(50),
  limit: z
    .number("informe limit (número)")
    .int("limit deve ser um número inteiro")
    .min(1, `limit vai de 1 a ${CHANNEL_SEARCH_LIMIT_MAX}`)
    .max(CHANNEL_SEARCH_LIMIT_MAX, `limit vai de 1 a ${CHANNEL_SEARCH_LIMIT_MAX}`),
  startCursor: z
    .string("informe startCursor (vazio na primeira página)")
    .max(200)
    .meta({ description: '"" for the first page, else the previous page\'s `endCursor`' }),
};

export const channelSearchByViewBody = z.object({
  ...searchCommon,
  countries: z
    .array(z.string().regex(/^[A-Z]{2}$/, "país inválido: use os códigos de /channels/search/countries"), {
      error: "informe countries (lista; vazia = todos)",
    })
    .max(50),
  view: z.enum(CHANNEL_VIEWS, `view: use ${CHANNEL_VIEWS.join(", ")}`),
});

export const channelSearchByTextBody = z.object({
  ...searchCommon,
  text: z.string("informe o texto da busca").trim().min(1, "informe o texto da busca").max(100),
});

/** A boolean query parameter: `true`/`false` (also `1`/`0`); JSON booleans over internal tRPC. */
const queryBool = (name: string) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"], `${name}: use true ou false`)], {
      error: `informe ${name} (true ou false)`,
    })
    .transform((v) => v === true || v === "true" || v === "1");

export const channelPreviewQuery = z.object({
  downloadMedia: queryBool("downloadMedia"),
  limit: limit(CHANNEL_PREVIEW_LIMIT_MAX),
});

// --- capabilities ------------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };
const NO_DIRECTORY =
  "O Baileys não tem a busca no diretório de canais: nenhuma chamada de pesquisa por visão ou texto, nem as listas de visões, países e categorias.";
const NO_FOLLOWED_LIST =
  "O Baileys não tem chamada que liste os canais que a conta segue ou administra; consulte um canal por id ou convite (GET /channels/{channelId}).";
const directory: Capability = { kinds: "standard", gaps: { baileys: NO_DIRECTORY } };

export const channelsCapabilities: Record<string, Capability> = {
  "GET /channels": { kinds: "standard", gaps: { baileys: NO_FOLLOWED_LIST } },
  "POST /channels": standard,
  "POST /channels/search/by-view": directory,
  "POST /channels/search/by-text": directory,
  "GET /channels/search/views": directory,
  "GET /channels/search/countries": directory,
  "GET /channels/search/categories": directory,
  "GET /channels/{channelId}": standard,
  "GET /channels/{channelId}/messages/preview": standard,
  "POST /channels/{channelId}/follow": standard,
  "POST /channels/{channelId}/unfollow": standard,
  "POST /channels/{channelId}/mute": standard,
  "POST /channels/{channelId}/unmute": standard,
};
