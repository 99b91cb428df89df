import { z } from "zod";

/**
 * What a provider sends: one normalized content per message kind, independent of the route
 * that asked for it (spec 4.4 bodies are mapped to these by the send routes). Media arrive
 * already fetched and converted: base64 bytes with their mimetype.
 */
export const outboundMediaSchema = z.object({
  data: z.string().meta({ description: "base64 bytes" }),
  mimetype: z.string().min(1),
  filename: z.string().optional(),
});
export type OutboundMedia = z.infer<typeof outboundMediaSchema>;

/** The header of a template or of reply buttons, media already fetched (official gateway). */
export const outboundHeaderSchema = z.union([
  z.object({ text: z.string().min(1) }),
  z.object({ mediaType: z.enum(["image", "video", "document"]), media: outboundMediaSchema }),
  z.object({
    location: z.object({
      latitude: z.number(),
      longitude: z.number(),
      name: z.string().optional(),
      address: z.string().optional(),
    }),
  }),
]);
export type OutboundHeader = z.infer<typeof outboundHeaderSchema>;

/** A message id in the spec's format `{fromMe}_{chatId}_{id}[_{participant}]`, or a bare network id. */
const targetId = z.string().min(1);

export const outboundContentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string().min(1), linkPreview: z.boolean().optional() }),
  z.object({ type: z.literal("image"), media: outboundMediaSchema, caption: z.string().optional() }),
  z.object({
    type: z.literal("video"),
    media: outboundMediaSchema,
    caption: z.string().optional(),
    asNote: z.boolean().optional(),
  }),
  z.object({ type: z.literal("audio"), media: outboundMediaSchema }),
  z.object({ type: z.literal("voice"), media: outboundMediaSchema, seconds: z.number().int().min(0).optional() }),
  z.object({ type: z.literal("document"), media: outboundMediaSchema, caption: z.string().optional() }),
  z.object({ type: z.literal("sticker"), media: outboundMediaSchema }),
  z.object({
    type: z.literal("location"),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    name: z.string().optional(),
    address: z.string().optional(),
    url: z.string().optional(),
  }),
  z.object({
    type: z.literal("contacts"),
    contacts: z
      .array(
        z.object({
          fullName: z.string().min(1),
          phoneNumber: z.string().min(1),
          organization: z.string().optional(),
          whatsappId: z.string().optional(),
        }),
      )
      .min(1),
  }),
  z.object({
    type: z.literal("poll"),
    name: z.string().min(1),
    options: z.array(z.string().min(1)).min(2),
    multipleAnswers: z.boolean(),
  }),
  z.object({ type: z.literal("poll_vote"), pollId: targetId, votes: z.array(z.string()) }),
  z.object({ type: z.literal("reaction"), targetId, emoji: z.string() }),
  z.object({ type: z.literal("edit"), targetId, text: z.string().min(1) }),
  z.object({ type: z.literal("revoke"), targetId }),
  z.object({
    type: z.literal("event"),
    name: z.string().min(1),
    startTime: z.number().int(),
    endTime: z.number().int().optional(),
    description: z.string().optional(),
    location: z.object({ name: z.string().min(1) }).optional(),
    extraGuestsAllowed: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("list"),
    title: z.string().min(1),
    button: z.string().min(1),
    description: z.string().optional(),
    footer: z.string().optional(),
    sections: z
      .array(
        z.object({
          title: z.string().min(1),
          rows: z
            .array(z.object({ title: z.string().min(1), rowId: z.string().min(1), description: z.string().optional() }))
            .min(1),
        }),
      )
      .min(1),
  }),
  z.object({
    type: z.literal("buttons"),
    text: z.string().min(1),
    buttons: z.array(z.object({ id: z.string().min(1), title: z.string().min(1) })).min(1),
    header: outboundHeaderSchema.optional(),
    footer: z.string().optional(),
  }),
  /** Simple parameters (the provider builds the operator's components) or the operator's own components. */
  z.object({
    type: z.literal("template"),
    name: z.string().min(1),
    language: z.string().min(1),
    header: outboundHeaderSchema.optional(),
    body: z.union([z.array(z.string()), z.record(z.string(), z.string())]).optional(),
    buttons: z
      .array(
        z.object({
          type: z.enum(["quick_reply", "url", "copy_code"]),
          value: z.string(),
          index: z.number().int().optional(),
        }),
      )
      .optional(),
    components: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
  z.object({
    type: z.literal("link_preview"),
    text: z.string().min(1),
    preview: z.object({
      title: z.string(),
      description: z.string(),
      url: z.string().min(1),
      image: outboundMediaSchema.optional(),
    }),
  }),
]);
export type OutboundContent = z.infer<typeof outboundContentSchema>;

export const sendOptionsSchema = z.object({
  /** Network id of the message to quote. */
  quotedId: z.string().optional(),
  /** The quoted message's API id (`{fromMe}_{chatId}_{id}`), for the `message.any` event. */
  quotedApiId: z.string().optional(),
  /** `<digits>@c.us` ids, or `all` for every group participant. */
  mentions: z.array(z.string()).optional(),
  /** Our own message id: retries with the same id never send twice. */
  id: z.string().optional(),
  /**
   * The id derives from a queue item or an Idempotency-Key: a message already sent under it is
   * this very send (its media may have been fetched again). Without it, a stored message with
   * the same id and other content is a conflict.
   */
  derivedId: z.boolean().optional(),
  forwarded: z.boolean().optional(),
  /**
   * A status post (spec 4.8), sent to `status@broadcast`: shown to `audience` only (`<digits>@c.us`
   * / `@lid` ids), with the style of text and voice posts (`#RRGGBB`, the network's font number).
   */
  status: z
    .object({
      audience: z.array(z.string()),
      backgroundColor: z.string().optional(),
      font: z.number().int().optional(),
    })
    .optional(),
});
export type SendOptions = z.infer<typeof sendOptionsSchema>;

export const sendResultSchema = z.object({
  id: z.string().meta({ description: "the network's message id" }),
  chatId: z.string(),
  timestamp: z.number().int().meta({ description: "unix seconds" }),
});
export type SendResult = z.infer<typeof sendResultSchema>;

export const existsResultSchema = z.object({
  exists: z.boolean(),
  chatId: z.string().nullable().meta({ description: "`<digits>@c.us` as the network registered the number" }),
  lid: z.string().nullable(),
});
export type ExistsResult = z.infer<typeof existsResultSchema>;

export const presenceStateSchema = z.enum(["available", "unavailable", "composing", "recording", "paused"]);
export type PresenceState = z.infer<typeof presenceStateSchema>;
