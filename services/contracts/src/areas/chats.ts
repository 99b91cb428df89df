import { z } from "zod";

/**
 * The read shapes of chats and their messages (spec 2.8, 2.10): what `GET /chats`, the overview
 * and `GET /chats/{chatId}/messages` answer. A channel's posts (areas/channels.ts) share the
 * message fields.
 */

/** A message's media in the read shapes: `url` as `urlDescription` says. */
export const readMediaSchema = (urlDescription: string) =>
  z.object({
    url: z.string().nullable().meta({ description: urlDescription }),
    mimetype: z.string(),
    filename: z.string().nullable(),
    error: z.string().nullable(),
  });
const mediaSchema = readMediaSchema("Signed link (24 h), with downloadMedia");

/** The fields every message read shape has (a chat's messages, a channel's posts). */
export const messageReadFields = {
  chatId: z.string(),
  from: z.string(),
  to: z.string(),
  author: z.string().nullable(),
  participant: z.string().nullable(),
  body: z.string(),
  type: z.string(),
  fromMe: z.boolean(),
  hasMedia: z.boolean(),
  timestamp: z.number().int(),
  source: z.enum(["api", "app"]).nullable(),
  vCards: z.array(z.string()),
  mediaUrl: z.string().nullable().optional(),
};

export const chatMessageSchema = z
  .object({
    id: z.string().meta({ description: "`{fromMe}_{chatId}_{id}[_{participant}]`, privacy ids rewritten when known" }),
    ...messageReadFields,
    ack: z.number().int().meta({ description: "-1 ERROR, 0 PENDING, 1 SERVER, 2 DEVICE, 3 READ, 4 PLAYED" }),
    ackName: z.enum(["ERROR", "PENDING", "SERVER", "DEVICE", "READ", "PLAYED"]),
    lid: z.string().nullable().meta({ description: "The original privacy id (spec 1 rule 4)" }),
    media: mediaSchema.nullable(),
    location: z
      .object({
        latitude: z.string(),
        longitude: z.string(),
        live: z.boolean(),
        name: z.string().optional(),
        description: z.string().optional(),
        address: z.string().optional(),
        url: z.string().optional(),
        thumbnail: z.string().optional().meta({ description: "base64" }),
      })
      .nullable()
      .meta({ description: "Spec 2.8: latitude and longitude as strings" }),
    quotedId: z.string().nullable(),
    replyTo: z
      .object({
        id: z.string(),
        body: z.string().nullable(),
        hasMedia: z.boolean(),
        media: mediaSchema.nullable(),
        participant: z.string().nullable(),
        _data: z.unknown(),
      })
      .nullable(),
    mentions: z.array(z.string()).optional(),
    forwarded: z.boolean().optional(),
    edited: z.boolean(),
    revoked: z.boolean().meta({ description: "Deleted for everyone: kept in place, without its content" }),
    _data: z.unknown(),
  })
  .meta({ id: "ChatMessage" });

const lastMessageSummarySchema = z.object({
  id: z.string(),
  body: z.string(),
  type: z.string(),
  fromMe: z.boolean(),
  hasMedia: z.boolean(),
  timestamp: z.number().int(),
});

export const chatSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    lid: z.string().nullable(),
    isGroup: z.boolean(),
    picture: z.string().nullable(),
    timestamp: z.number().int().meta({ description: "Of the last message" }),
    unreadCount: z.number().int(),
    markedUnread: z.boolean(),
    lastMessage: z.union([chatMessageSchema, lastMessageSummarySchema]).nullable(),
  })
  .meta({ id: "Chat" });

export const chatOverviewSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    picture: z.string().nullable(),
    lastMessage: z.union([chatMessageSchema, lastMessageSummarySchema]).nullable(),
    unreadCount: z.number().int(),
    isGroup: z.boolean(),
    lid: z.string().nullable(),
    _chat: chatSchema,
  })
  .meta({ id: "ChatOverview" });
