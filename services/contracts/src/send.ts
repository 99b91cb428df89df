import { z } from "zod";
import { chatFields } from "./chat-id.ts";
import { DOC_PATTERNS, documented } from "./doc-patterns.ts";
import { FILE_ONE_OF, fileObject, fileSchema, mimetypeRule, typedFile } from "./file.ts";
import { MEDIA_KINDS } from "./media-kinds.ts";
import { buttonsSendFields, templateSendSchema } from "./official-send.ts";

/**
 * The bodies of the send routes of spec 4.4, one schema per route, and what they answer.
 * The routes validate with these; the queue stores the validated body with its route and
 * replays it through the same composition (services/sending) when the item's turn comes.
 */

// --- common fields ---------------------------------------------------------------------------

/** Our own message ids: letters, digits and `-` (no `_`: it separates the parts of a message id). */
export const MESSAGE_KEY_RE = /^[A-Za-z0-9-]{4,64}$/;

const messageRef = (what: string) =>
  documented(
    z.string(`informe ${what}`).min(1, `informe ${what}`).max(400),
    { pattern: DOC_PATTERNS.message },
    { description: "A message id as the API gives it (`{fromMe}_{chatId}_{id}`), or the bare network id" },
  );

export const sendCommonFields = {
  ...chatFields,
  delayMessage: z
    .number("delayMessage deve ser um número de segundos")
    .min(0, "delayMessage vai de 0 a 60 segundos")
    .max(60, "delayMessage vai de 0 a 60 segundos")
    .optional()
    .meta({ description: "Seconds to wait before this send (0–60); implies the queue" }),
  delayTyping: z
    .number("delayTyping deve ser um número de segundos")
    .min(0, "delayTyping vai de 0 a 15 segundos")
    .max(15, "delayTyping vai de 0 a 15 segundos")
    .optional()
    .meta({ description: "Seconds of typing indicator before this send (0–15); implies the queue" }),
  reply_to: messageRef("o id da mensagem a responder").optional().meta({ description: "Message id to quote" }),
  mentions: documented(
    z
      .array(
        documented(z.string().min(1).max(200), { pattern: `^(all|${DOC_PATTERNS.person.slice(2, -2)})$` }),
        "mentions deve ser uma lista de números ou ids",
      )
      .max(1024),
    // `all` stands alone: people, or `["all"]`
    { anyOf: [{ items: { pattern: DOC_PATTERNS.person } }, { const: ["all"] }] },
  )
    .optional()
    .meta({ description: 'Numbers or chat ids to mention; `["all"]` mentions every participant of a group' }),
  id: z
    .string()
    .regex(MESSAGE_KEY_RE, "id: de 4 a 64 letras, dígitos ou -")
    .optional()
    .meta({ description: "Your own message id (GET /messages/new-id): a retry with the same id never sends twice" }),
};

const caption = z.string().max(4096).optional();

/**
 * The document's rule for a body whose file must be of the route's kind unless `convert: true`
 * (voice and video sends and status posts): given as the route's `bodyRules` (a rule on a body's
 * schema itself is not rendered), in `allOf`, beside the `anyOf` that names the chat.
 */
export function convertRulesOf(route: SendRoute): { allOf?: unknown[] } {
  if (route !== "voice" && route !== "video") return {};
  const convert = { properties: { convert: { const: true } }, required: ["convert"] };
  return { allOf: [{ anyOf: [convert, { properties: { file: mimetypeRule(MEDIA_KINDS[route].types) } }] }] };
}

// --- per route -------------------------------------------------------------------------------

export const sendBodies = {
  text: z.object({
    ...sendCommonFields,
    text: z.string("informe o texto").min(1, "informe o texto").max(65_536),
    linkPreview: z.boolean().optional(),
    linkPreviewHighQuality: z.boolean().optional(),
  }),
  image: z.object({
    ...sendCommonFields,
    file: typedFile(MEDIA_KINDS.image.types, "JPEG, PNG or WEBP (spec 2.5 file object)"),
    caption,
  }),
  file: z.object({
    ...sendCommonFields,
    file: documented(
      fileObject.refine((f) => f.filename !== undefined, {
        message: "file.filename é obrigatório em documentos",
        path: ["filename"],
      }),
      { ...FILE_ONE_OF, required: ["filename"] },
    ),
    caption,
  }),
  voice: z.object({
    ...sendCommonFields,
    file: fileSchema,
    convert: z.boolean("informe convert (true converte para OGG/Opus)"),
  }),
  video: z.object({
    ...sendCommonFields,
    file: fileSchema,
    convert: z.boolean("informe convert (true converte para MP4/H.264)"),
    asNote: z.boolean().optional().meta({ description: "round video note" }),
    caption,
  }),
  sticker: z.object({ ...sendCommonFields, file: typedFile(MEDIA_KINDS.sticker.types, "WEBP (spec 2.5 file object)") }),
  "link-preview": z.object({
    ...sendCommonFields,
    text: z.string("informe o texto").min(1, "informe o texto").max(65_536),
    preview: z.object(
      {
        title: z.string("informe preview.title").max(1024),
        description: z.string("informe preview.description").max(4096),
        url: z.string("informe preview.url").min(1).max(4096),
        image: fileSchema.optional(),
      },
      "informe preview { title, description, url }",
    ),
    linkPreviewHighQuality: z.boolean().optional(),
  }),
  list: z.object({
    ...sendCommonFields,
    message: z.object(
      {
        title: z.string("informe message.title").min(1).max(1024),
        button: z.string("informe message.button").min(1).max(20),
        description: z.string().max(4096).optional(),
        footer: z.string().max(60).optional(),
        sections: z
          .array(
            z.object({
              title: z.string("informe o título da seção").min(1).max(24),
              rows: z
                .array(
                  z.object({
                    title: z.string("informe o título da linha").min(1).max(24),
                    rowId: z.string("informe o rowId").min(1).max(200),
                    description: z.string().max(72).optional(),
                  }),
                )
                .min(1, "cada seção precisa de ao menos uma linha"),
            }),
            "informe message.sections",
          )
          .min(1, "informe ao menos uma seção"),
      },
      "informe message { title, button, sections }",
    ),
  }),
  poll: z.object({
    ...sendCommonFields,
    poll: z.object(
      {
        name: z.string("informe poll.name").min(1).max(255),
        options: z
          .array(z.string().min(1).max(100), "informe poll.options")
          .min(2, "a enquete precisa de 2 a 12 opções")
          .max(12, "a enquete precisa de 2 a 12 opções")
          .refine((o) => new Set(o).size === o.length, "as opções da enquete devem ser diferentes")
          .meta({ override: { uniqueItems: true } }),
        multipleAnswers: z.boolean("informe poll.multipleAnswers"),
      },
      "informe poll { name, options, multipleAnswers }",
    ),
  }),
  "poll/vote": z.object({
    ...sendCommonFields,
    pollMessageId: messageRef("pollMessageId"),
    votes: z
      .array(z.union([z.string().min(1), z.array(z.string().min(1))]), "informe votes")
      .meta({ description: 'The chosen option names (`[["A"]]` or `["A"]`); empty removes the vote' }),
    pollServerId: z
      .number()
      .int()
      .optional()
      .meta({ description: "Channel polls: accepted, unused (no channel polls yet)" }),
  }),
  location: z.object({
    ...sendCommonFields,
    latitude: z.number("informe latitude").min(-90, "latitude vai de -90 a 90").max(90, "latitude vai de -90 a 90"),
    longitude: z
      .number("informe longitude")
      .min(-180, "longitude vai de -180 a 180")
      .max(180, "longitude vai de -180 a 180"),
    title: z.string("informe title").min(1, "informe title").max(1024),
    address: z.string().max(1024).optional(),
  }),
  "contact-vcard": z.object({
    ...sendCommonFields,
    contacts: z
      .array(
        z.object({
          fullName: z.string("informe fullName").min(1).max(255),
          phoneNumber: z.string("informe phoneNumber").regex(/^\+?[\d\s().-]{6,24}$/, "phoneNumber inválido"),
          organization: z.string().max(255).optional(),
          whatsappId: z.string().max(64).optional(),
        }),
        "informe contacts",
      )
      .min(1, "informe ao menos um contato")
      .max(50),
  }),
  forward: z.object({ ...sendCommonFields, messageId: messageRef("messageId") }),
  event: z.object({
    ...sendCommonFields,
    event: z.object(
      {
        name: z.string("informe event.name").min(1).max(255),
        startTime: z.number("informe event.startTime (unix, segundos)").int().min(0),
        description: z.string().max(2048).optional(),
        endTime: z.number().int().min(0).optional(),
        extraGuestsAllowed: z.boolean().optional(),
        location: z.object({ name: z.string("informe event.location.name").min(1).max(255) }).optional(),
      },
      "informe event { name, startTime }",
    ),
  }),
  template: z.object({ ...sendCommonFields, template: templateSendSchema }),
  buttons: z.object({ ...sendCommonFields, ...buttonsSendFields }),
} as const;

export type SendRoute = keyof typeof sendBodies;
export const sendRoutes = Object.keys(sendBodies) as SendRoute[];
export type SendBody<R extends SendRoute = SendRoute> = z.infer<(typeof sendBodies)[R]>;

/** A send request as the queue keeps it: the route and its validated body. */
export type SendRequest = { [R in SendRoute]: { route: R; body: SendBody<R> } }[SendRoute];

/** The route fields that drive queueing, not the message. */
export const QUEUE_ONLY_FIELDS = ["delayMessage", "delayTyping"] as const;

// --- other message routes ----------------------------------------------------------------------

export const seenBody = z.object({
  ...chatFields,
  messageId: messageRef("messageId").optional(),
  messageIds: z.array(messageRef("messageIds")).max(1000).optional(),
  participant: documented(z.string().max(200).optional(), { pattern: DOC_PATTERNS.person }),
});
export type SeenBody = z.infer<typeof seenBody>;

export const reactionBody = z.object({
  ...chatFields,
  messageId: messageRef("messageId"),
  reaction: z.string("informe reaction (emoji; vazio remove)").max(32),
});
export type ReactionBody = z.infer<typeof reactionBody>;

// --- answers ---------------------------------------------------------------------------------

export const sendResponseSchema = z
  .object({
    chatId: z.string(),
    id: z.string().meta({ description: "Message id `{fromMe}_{chatId}_{id}`" }),
    status: z.literal("sent"),
  })
  .meta({ id: "SendResponse" });
export type SendResponse = z.infer<typeof sendResponseSchema>;

export const reactionResponseSchema = z
  .object({ chatId: z.string(), id: z.string(), status: z.literal("ok") })
  .meta({ id: "ReactionResponse" });

// --- message ids -----------------------------------------------------------------------------

export interface MessageRef {
  fromMe: boolean;
  chatId: string;
  /** The network's id. */
  id: string;
  participant?: string;
}

/**
 * The network's id: letters, digits and `-` on the standard networks; the operator's `wamid.…`
 * (base64, `+` and `/` written `-` and `~`: see providers/cloud/ids.ts) on official instances.
 */
export const NETWORK_ID_RE = /^[A-Za-z0-9.=~-]{4,200}$/;
const SERIALIZED_RE = /^(true|false)_([^_\s]+@[a-z.]+)_([A-Za-z0-9.=~-]+)(?:_([^_\s]+@[a-z.]+))?$/;

/** `{fromMe}_{chatId}_{id}[_{participant}]` (spec 2.6). */
export function formatMessageId(ref: MessageRef): string {
  return `${ref.fromMe}_${ref.chatId}_${ref.id}${ref.participant ? `_${ref.participant}` : ""}`;
}

/** A full message id, or null for a bare network id (or anything else). */
export function parseMessageId(value: string): MessageRef | null {
  const m = SERIALIZED_RE.exec(value.trim());
  if (!m) return null;
  return { fromMe: m[1] === "true", chatId: m[2]!, id: m[3]!, ...(m[4] ? { participant: m[4] } : {}) };
}
