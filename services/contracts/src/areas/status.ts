import { z } from "zod";
import type { Capability } from "../capability.ts";
import { normalizePersonId } from "../chat-id.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { fileSchema, typedFile } from "../file.ts";
import { MEDIA_KINDS } from "../media-kinds.ts";
import { defineOps } from "../ops.ts";
import { MESSAGE_KEY_RE } from "../send.ts";

/**
 * Status posts (spec 4.8, docs/status-channels.md): the bodies of the publishing routes and what
 * they answer. A post is a message to `status@broadcast` sent through the session manager's send
 * path (recorded, announced as `message.any`), with `SendOptions.status` carrying its audience and
 * style; no area operation is needed.
 */

export const STATUS_CHAT_ID = "status@broadcast";
/** The most people one post may be shown to (the network fans the post out to each of their devices). */
export const STATUS_AUDIENCE_MAX = 5_000;
/** The network's fonts of text posts (ExtendedTextMessage.FontType). */
export const STATUS_FONTS = [0, 1, 2, 6, 7, 8, 9, 10] as const;
/** The network's limit on a text post. */
export const STATUS_TEXT_MAX = 700;

/** `#RRGGBB` or `#AARRGGBB` (the `#` optional), as the network takes it. */
const HEX_COLOR = /^#?(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

const audience = z
  .array(
    documented(z.string("cada contato: número com DDI e DDD, ou um id @c.us / @lid").min(1).max(200), {
      pattern: DOC_PATTERNS.person,
    }),
    "contacts deve ser uma lista de números ou ids",
  )
  .min(1, "contacts vazio: omita o campo para usar o público padrão")
  .max(STATUS_AUDIENCE_MAX, `contacts: no máximo ${STATUS_AUDIENCE_MAX} pessoas`)
  .transform((list, ctx) => {
    const out = new Set<string>();
    for (const raw of list) {
      const id = normalizePersonId(raw);
      if (id) out.add(id);
      else ctx.addIssue({ code: "custom", message: `contato inválido: ${raw.slice(0, 60)}` });
    }
    return [...out];
  })
  .optional()
  .meta({
    description:
      "Who sees the post: numbers or `@c.us` / `@lid` ids. Absent: the instance's one-to-one chats " +
      "(docs/status-channels.md, 'Audience')",
  });

const ownId = z
  .string()
  .regex(MESSAGE_KEY_RE, "id: de 4 a 64 letras, dígitos ou -")
  .optional()
  .meta({ description: "Your own id for the post (GET /status/new-message-id): a retry never posts twice" });

const backgroundColor = z
  .string("informe backgroundColor (#RRGGBB)")
  .regex(HEX_COLOR, "backgroundColor: cor em hexadecimal, #RRGGBB ou #AARRGGBB")
  .transform((v) => `#${v.replace(/^#/, "").toUpperCase()}`)
  .meta({ description: "`#RRGGBB` or `#AARRGGBB`" });

const caption = z.string().max(4096).optional();

/** Spec 4.8, route by route. */
export const statusBodies = {
  text: z.object({
    contacts: audience,
    id: ownId,
    text: z
      .string("informe o texto")
      .min(1, "informe o texto")
      .max(STATUS_TEXT_MAX, `o texto de um status tem até ${STATUS_TEXT_MAX} caracteres`),
    backgroundColor,
    font: z
      .number("informe font (número da fonte)")
      .int("font deve ser um número inteiro")
      .refine((f) => (STATUS_FONTS as readonly number[]).includes(f), `font: use ${STATUS_FONTS.join(", ")}`)
      .meta({ description: `The network's font: ${STATUS_FONTS.join(", ")}`, override: { enum: [...STATUS_FONTS] } }),
    linkPreview: z.boolean().optional(),
    linkPreviewHighQuality: z.boolean().optional(),
  }),
  image: z.object({
    contacts: audience,
    id: ownId,
    file: typedFile(MEDIA_KINDS.image.types, "JPEG, PNG or WEBP (spec 2.5 file object)"),
    caption,
  }),
  voice: z.object({
    contacts: audience,
    id: ownId,
    file: fileSchema,
    convert: z.boolean("informe convert (true converte para OGG/Opus)"),
    backgroundColor,
  }),
  video: z.object({
    contacts: audience,
    id: ownId,
    file: fileSchema,
    convert: z.boolean("informe convert (true converte para MP4/H.264)"),
    caption,
  }),
  delete: z.object({
    contacts: audience,
    id: documented(
      z.string("informe o id do status a apagar").trim().max(400).optional(),
      { pattern: "^(true_status@broadcast_)?[A-Za-z0-9-]{4,128}$" },
      { description: "The post to delete: the `id` its publication answered (or the bare network id)" },
    ),
  }),
} as const;
export type StatusRoute = Exclude<keyof typeof statusBodies, "delete">;

export const statusSendResponseSchema = z
  .object({
    chatId: z.literal(STATUS_CHAT_ID),
    id: z.string().meta({ description: "`true_status@broadcast_<id>`: give it to /status/delete" }),
    status: z.literal("sent"),
    audienceSize: z.number().int().meta({ description: "How many people the post was sent to" }),
  })
  .meta({ id: "StatusSendResponse" });
export type StatusSendResponse = z.infer<typeof statusSendResponseSchema>;

export const statusDeleteResponseSchema = z
  .object({
    chatId: z.literal(STATUS_CHAT_ID),
    id: z.string().meta({ description: "The deleted post" }),
    status: z.literal("deleted"),
    audienceSize: z.number().int().meta({ description: "How many people the deletion was sent to" }),
  })
  .meta({ id: "StatusDeleteResponse" });

/** Publishing goes through the send path (`SessionApi.send` to `status@broadcast`): no operations of its own. */
export const statusOps = defineOps({});

const standard: Capability = { kinds: "standard" };

export const statusCapabilities: Record<string, Capability> = {
  "POST /status/text": standard,
  "POST /status/image": standard,
  "POST /status/voice": standard,
  "POST /status/video": standard,
  "POST /status/delete": standard,
  "GET /status/new-message-id": standard,
};
