import { z } from "zod";
import { documented } from "./doc-patterns.ts";
import { fileSchema } from "./file.ts";

/**
 * Send bodies and limits that exist only on official-gateway instances (spec 4.4 and 8):
 * templates, reply buttons, and the operator's media rules. docs/official.md describes them.
 */

const MiB = 1_048_576;

/** Spec 8 "official-gateway file sizes" and the operator's types (reference cloud-api.md §1.5). */
export const OFFICIAL_MEDIA_RULES = {
  image: { maxBytes: 5 * MiB, types: ["image/jpeg", "image/png"], text: "JPG ou PNG até 5 MB" },
  document: { maxBytes: 100 * MiB, types: null, text: "até 100 MB" },
  voice: { maxBytes: 16 * MiB, types: ["audio/ogg"], text: "OGG/Opus até 16 MB" },
  audio: {
    maxBytes: 16 * MiB,
    types: ["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"],
    text: "até 16 MB",
  },
  video: { maxBytes: 16 * MiB, types: ["video/mp4", "video/3gpp"], text: "MP4 ou 3GP até 16 MB" },
  /** 100 KB static, 500 KB animated (the operator's sticker rule). */
  sticker: { maxBytes: 500 * 1024, types: ["image/webp"], text: "WEBP até 100 KB (500 KB animada)" },
} as const;
export const OFFICIAL_STATIC_STICKER_MAX = 100 * 1024;
export const OFFICIAL_TEXT_MAX = 4096;
export const OFFICIAL_CAPTION_MAX = 1024;
/** Spec 8: 10 sections and 10 rows in total, row title 24 characters. */
export const OFFICIAL_LIST_MAX_ROWS = 10;
export const OFFICIAL_LIST_MAX_SECTIONS = 10;

/** A header of a template or of reply buttons: text, a media file, or (templates) a location. */
const mediaHeader = (type: "image" | "video" | "document") =>
  z.object({ [type]: fileSchema } as Record<typeof type, typeof fileSchema>);

export const locationHeaderSchema = z.object({
  location: z.object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    name: z.string().max(1024).optional(),
    address: z.string().max(1024).optional(),
  }),
});

const textHeader = z.object({ text: z.string().min(1, "header.text vazio").max(60, "header.text: até 60 caracteres") });

export const buttonsHeaderSchema = z.union(
  [textHeader, mediaHeader("image"), mediaHeader("video"), mediaHeader("document")],
  "header: { text } ou { image | video | document: arquivo }",
);

/** `/messages/template` (spec 4.4: "parameters given simply (header, body, buttons) or as components"). */
export const templateSendSchema = documented(
  z
    .object(
      {
        name: z.string("informe template.name").min(1).max(512),
        language: z.string("informe template.language").min(2).max(16).meta({ example: "pt_BR" }),
        header: z
          .union(
            [textHeader, mediaHeader("image"), mediaHeader("video"), mediaHeader("document"), locationHeaderSchema],
            "template.header: { text } ou { image | video | document: arquivo } ou { location }",
          )
          .optional()
          .meta({ description: "The header's parameter: its text, a media file, or a location" }),
        body: z
          .union(
            [z.array(z.string().max(32_768)).max(100), z.record(z.string(), z.string().max(32_768))],
            "template.body: lista (posicional) ou objeto { nome: valor } (parâmetros nomeados)",
          )
          .optional()
          .meta({
            description: 'Body parameters: `["Ana", "8601"]` ({{1}}, {{2}}) or `{"first_name": "Ana"}` (named)',
          }),
        buttons: z
          .array(
            z.discriminatedUnion(
              "type",
              [
                z.object({
                  type: z.literal("quick_reply"),
                  payload: z.string().min(1).max(1000),
                  index: z.number().int().min(0).max(9).optional(),
                }),
                z.object({
                  type: z.literal("url"),
                  text: z.string().min(1).max(2000),
                  index: z.number().int().min(0).max(9).optional(),
                }),
                z.object({
                  type: z.literal("copy_code"),
                  code: z.string().min(1).max(15),
                  index: z.number().int().min(0).max(9).optional(),
                }),
              ],
              'cada botão: { type: "quick_reply", payload } | { type: "url", text } | { type: "copy_code", code }',
            ),
          )
          .max(10)
          .optional()
          .meta({ description: "Button parameters; `index` defaults to the position in this list" }),
        components: z
          .array(z.looseObject({ type: z.string("cada componente precisa de type").min(1) }))
          .max(20)
          .optional()
          .meta({ description: "The operator's own `components` (cloud format), passed as given" }),
      },
      "informe template { name, language }",
    )
    .superRefine((t, ctx) => {
      if (t.components && (t.header || t.body || t.buttons)) {
        ctx.addIssue({
          code: "custom",
          message: "use header/body/buttons ou components, não ambos",
          path: ["components"],
        });
      }
    }),
  // The same rule as the document states it: `components` excludes the simple parameters.
  {
    not: {
      required: ["components"],
      anyOf: [{ required: ["header"] }, { required: ["body"] }, { required: ["buttons"] }],
    },
  },
);
export type TemplateSend = z.infer<typeof templateSendSchema>;

/** `/messages/buttons` (official gateway: "Buttons: yes"): 1 to 3 reply buttons. */
export const buttonsSendFields = {
  text: z.string("informe o texto").min(1, "informe o texto").max(1024, "text: até 1024 caracteres"),
  buttons: z
    .array(
      z.object({
        id: z.string("informe o id do botão").min(1).max(256),
        title: z.string("informe o título do botão").min(1).max(20, "título do botão: até 20 caracteres"),
      }),
      "informe buttons [{ id, title }]",
    )
    .min(1, "de 1 a 3 botões")
    .max(3, "de 1 a 3 botões")
    .refine((b) => new Set(b.map((x) => x.title)).size === b.length, "os títulos dos botões devem ser diferentes")
    .refine((b) => new Set(b.map((x) => x.id)).size === b.length, "os ids dos botões devem ser diferentes"),
  header: buttonsHeaderSchema.optional(),
  footer: z.string().min(1).max(60, "footer: até 60 caracteres").optional(),
};
