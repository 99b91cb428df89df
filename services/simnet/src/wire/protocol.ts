// The simnet wire protocol (docs/simnet.md "Wire protocol"): JSON text frames over one WebSocket
// per instance. These schemas are the contract both sides parse with.
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

export const credsSchema = z.object({ deviceId: z.string().min(1), secret: z.string().min(1) });
export type Creds = z.infer<typeof credsSchema>;

/** The connected account as its own devices see it. `lid` is `<digits>@lid`. */
export const meSchema = z.object({ phone: z.string(), lid: z.string(), pushName: z.string() });
export type SimMe = z.infer<typeof meSchema>;

/**
 * Another account as a viewer sees it: `id` is `<phone>@c.us`, or `<digits>@lid` (and `phone`
 * null) while that account hides its number from the viewer.
 */
export const peerSchema = z.object({
  id: z.string(),
  phone: z.string().nullable(),
  lid: z.string(),
  pushName: z.string(),
});
export type Peer = z.infer<typeof peerSchema>;

export const ACK_STATUSES = ["sent", "delivered", "read", "played"] as const;
export const ackStatusSchema = z.enum(ACK_STATUSES);
export type AckStatus = z.infer<typeof ackStatusSchema>;

export const PRESENCE_STATES = ["composing", "recording", "paused", "available", "unavailable"] as const;
export const presenceStateSchema = z.enum(PRESENCE_STATES);
export type PresenceState = z.infer<typeof presenceStateSchema>;

export const CLOSE_REASONS = [
  "logged_out",
  "replaced",
  "bad_credentials",
  "outage",
  "qr_timeout",
  "protocol_error",
] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

// ---------------------------------------------------------------------------------------------
// Message content (the `message` of `send` and of S→C `message` frames)
// ---------------------------------------------------------------------------------------------

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]+={0,2}$/, "base64 expected");

/** Media travels inline: base64 content and its mimetype (the pod downloads `url` files itself). */
export const mediaSchema = z.looseObject({
  data: base64,
  mimetype: z.string().min(1),
  filename: z.string().optional(),
});
export type Media = z.infer<typeof mediaSchema>;

const targetId = z.string().min(1);

export const MESSAGE_TYPES = [
  "text",
  "image",
  "video",
  "audio",
  "voice",
  "document",
  "sticker",
  "location",
  "contacts",
  "poll",
  "poll_vote",
  "reaction",
  "edit",
  "revoke",
  "event",
  "list",
  "link_preview",
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Unknown extra fields are kept (and echoed to the recipient) so content can grow. */
export const messageContentSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string().min(1) }),
  z.looseObject({ type: z.literal("image"), media: mediaSchema, caption: z.string().optional() }),
  z.looseObject({
    type: z.literal("video"),
    media: mediaSchema,
    caption: z.string().optional(),
    asNote: z.boolean().optional(),
  }),
  z.looseObject({ type: z.literal("audio"), media: mediaSchema }),
  z.looseObject({ type: z.literal("voice"), media: mediaSchema, seconds: z.number().int().min(0).optional() }),
  z.looseObject({ type: z.literal("document"), media: mediaSchema, caption: z.string().optional() }),
  z.looseObject({ type: z.literal("sticker"), media: mediaSchema }),
  z.looseObject({
    type: z.literal("location"),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    name: z.string().optional(),
    address: z.string().optional(),
    url: z.string().optional(),
    live: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal("contacts"),
    contacts: z
      .array(
        z.looseObject({
          fullName: z.string().min(1),
          phoneNumber: z.string().min(1),
          organization: z.string().optional(),
          whatsappId: z.string().optional(),
        }),
      )
      .min(1),
  }),
  z.looseObject({
    type: z.literal("poll"),
    name: z.string().min(1),
    options: z.array(z.string().min(1)).min(2),
    multipleAnswers: z.boolean(),
  }),
  z.looseObject({ type: z.literal("poll_vote"), pollId: targetId, votes: z.array(z.string()) }),
  z.looseObject({ type: z.literal("reaction"), targetId, emoji: z.string() }),
  z.looseObject({ type: z.literal("edit"), targetId, text: z.string().min(1) }),
  z.looseObject({ type: z.literal("revoke"), targetId }),
  /** A reply to a calendar event invitation. */
  z.looseObject({
    type: z.literal("event_response"),
    targetId,
    response: z.enum(["going", "not_going", "maybe"]),
  }),
  z.looseObject({
    type: z.literal("event"),
    name: z.string().min(1),
    startTime: z.number().int(),
    endTime: z.number().int().optional(),
    description: z.string().optional(),
    location: z.looseObject({ name: z.string().min(1) }).optional(),
    extraGuestsAllowed: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal("list"),
    title: z.string().min(1),
    button: z.string().min(1),
    description: z.string().optional(),
    footer: z.string().optional(),
    sections: z
      .array(
        z.looseObject({
          title: z.string().min(1),
          rows: z
            .array(
              z.looseObject({ title: z.string().min(1), rowId: z.string().min(1), description: z.string().optional() }),
            )
            .min(1),
        }),
      )
      .min(1),
  }),
  z.looseObject({
    type: z.literal("link_preview"),
    text: z.string().min(1),
    preview: z.looseObject({
      title: z.string(),
      description: z.string(),
      url: z.string().min(1),
      image: mediaSchema.optional(),
    }),
  }),
]);
export type MessageContent = z.infer<typeof messageContentSchema>;

// ---------------------------------------------------------------------------------------------
// C→S frames
// ---------------------------------------------------------------------------------------------

export const helloFrameSchema = z.object({
  type: z.literal("hello"),
  instanceId: z.string().min(1).max(200),
  pod: z.string().max(200).default(""),
  creds: credsSchema.nullable().default(null),
  deviceName: z.string().max(200).default("Simnet device"),
  browserName: z.string().max(200).default("Chrome"),
});
export type HelloFrame = z.input<typeof helloFrameSchema>;

export const requestFrameSchema = z.object({
  type: z.literal("request"),
  id: z.union([z.string().min(1).max(200), z.number()]),
  op: z.string().min(1),
  args: z.unknown().optional(),
});
export type RequestFrame = z.input<typeof requestFrameSchema>;

export const logoutFrameSchema = z.object({ type: z.literal("logout") });

export const clientFrameSchema = z.discriminatedUnion("type", [
  helloFrameSchema,
  requestFrameSchema,
  logoutFrameSchema,
]);
export type ClientFrame = z.input<typeof clientFrameSchema>;

// ---------------------------------------------------------------------------------------------
// Operation arguments (`request.args`)
// ---------------------------------------------------------------------------------------------

export const phoneInputSchema = z
  .string()
  .transform((s) => s.replace(/@(c\.us|s\.whatsapp\.net)$/, "").replace(/[\s()+.-]/g, ""))
  .pipe(z.string().regex(/^\d{8,15}$/, "phone: digits with country and area code (8 to 15 digits)"));

export const pairingCodeArgsSchema = z.object({
  phone: phoneInputSchema,
  method: z.enum(["sms", "voice", ""]).optional(),
});

export const passkeyAssertionSchema = z.object({
  id: z.string().min(1),
  rawId: z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/),
  type: z.literal("public-key"),
  response: z.object({
    authenticatorData: z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/),
    clientDataJSON: z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/),
    signature: z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/),
    userHandle: z
      .string()
      .regex(/^[A-Za-z0-9_-]*={0,2}$/)
      .optional(),
  }),
});
export type PasskeyAssertion = z.infer<typeof passkeyAssertionSchema>;

/** `to`: digits, `<digits>@c.us`, `<digits>@lid`, `<digits>@g.us`, `<digits>@newsletter` or `status@broadcast`. */
export const chatTargetSchema = z.string().min(1).max(100);

export const sendArgsSchema = z.object({
  to: chatTargetSchema,
  message: messageContentSchema,
  quotedId: z.string().min(1).optional(),
  mentions: z.array(z.string().min(1)).optional(),
  forwarded: z.boolean().optional(),
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{4,64}$/, "id: 4 to 64 characters of A-Z a-z 0-9 _ -")
    .optional(),
  /**
   * To `status@broadcast` (a status post, areas/status-posts.ts): who sees it (numbers, `@c.us` or `@lid`;
   * required from a device, the phone's one-to-one conversations when the phone itself posts)
   * and the style of text and voice posts.
   */
  status: z
    .object({
      audience: z.array(z.string().min(1).max(100)).max(10_000),
      backgroundColor: z.string().max(20).optional(),
      font: z.number().int().optional(),
    })
    .optional(),
});
export type SendArgs = z.input<typeof sendArgsSchema>;

export const presenceArgsSchema = z.object({ to: chatTargetSchema.optional(), state: presenceStateSchema });
export const readArgsSchema = z.object({ ids: z.array(z.string().min(1)).min(1), played: z.boolean().optional() });
export const checkExistsArgsSchema = z.object({ phone: z.string().min(1) });
/** The profile picture of a contact (number, `@c.us`, `@lid`) or a group: `{picture: {data, mimetype} | null}`. */
export const pictureArgsSchema = z.object({ chatId: z.string().min(1) });
export const groupMetadataArgsSchema = z.object({ groupId: z.string().regex(/^\d+(-\d+)?@g\.us$/) });

// ---------------------------------------------------------------------------------------------
// S→C frames
// ---------------------------------------------------------------------------------------------

export const capping = z.object({
  cappingStatus: z.string(),
  cycleStart: z.number().int(),
  cycleEnd: z.number().int(),
  mvStatus: z.string(),
  oteStatus: z.string(),
  totalQuota: z.number().int(),
  usedQuota: z.number().int(),
});
export type SimCapping = z.infer<typeof capping>;

export const timelock = z.object({
  enforcementType: z.string(),
  isActive: z.boolean(),
  timeEnforcementEnds: z.number().int(),
});
export type SimTimelock = z.infer<typeof timelock>;

export const passkeyChallengeSchema = z.object({
  challenge: z.string(),
  rpId: z.string(),
  timeout: z.number().int(),
  userVerification: z.string(),
  allowCredentials: z.array(
    z.object({ id: z.string(), type: z.literal("public-key"), transports: z.array(z.string()) }),
  ),
  extensions: z.record(z.string(), z.unknown()),
});
export type SimPasskeyChallenge = z.infer<typeof passkeyChallengeSchema>;

export const groupMetadataSchema = z.object({
  id: z.string(),
  subject: z.string(),
  onlyAdminsCanSend: z.boolean(),
  creation: z.number().int(),
  participants: z.array(peerSchema.extend({ admin: z.boolean() })),
});
export type GroupMetadata = z.infer<typeof groupMetadataSchema>;

export const messageFrameSchema = z.object({
  type: z.literal("message"),
  id: z.string(),
  /** The conversation as the receiving device sees it: the peer (`@c.us`/`@lid`) or the group. */
  chatId: z.string(),
  /** The peer's lid in one-to-one chats; null in groups. */
  chatLid: z.string().nullable(),
  /**
   * One-to-one chats with a peer whose conversations are on one address (../addressing-rules.ts):
   * `lid` or `pn`, as Baileys' `key.addressingMode`. Absent when either address works.
   */
  addressingMode: z.enum(["lid", "pn"]).optional(),
  chatName: z.string(),
  isGroup: z.boolean(),
  fromMe: z.boolean(),
  /**
   * The sender: the peer, the group participant, or (fromMe) the account itself; a channel's posts
   * come from the channel (`id` `<id>@newsletter`, `phone` and `lid` null).
   */
  from: peerSchema.extend({ lid: z.string().nullable() }),
  /** `fromMe` copies only: sent by a device (`device`) or on the phone (`phone`). */
  origin: z.enum(["device", "phone"]).optional(),
  timestamp: z.number().int(),
  message: messageContentSchema,
  quotedId: z.string().optional(),
  mentions: z.array(z.string()).optional(),
  forwarded: z.boolean().optional(),
});
export type MessageFrame = z.infer<typeof messageFrameSchema>;

export const serverFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("qr"), value: z.string() }),
  z.object({ type: z.literal("paired"), creds: credsSchema, me: meSchema }),
  z.object({ type: z.literal("open"), me: meSchema }),
  z.object({
    type: z.literal("response"),
    id: z.union([z.string(), z.number()]),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  z.object({ type: z.literal("close"), reason: z.string(), message: z.string() }),
  messageFrameSchema,
  z.object({
    type: z.literal("ack"),
    id: z.string(),
    chatId: z.string(),
    status: z.union([ackStatusSchema, z.literal("failed")]),
    timestamp: z.number().int(),
    /** With `failed`: the network's error code (463, 479: addressing-rules.ts) and a note. */
    error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  }),
  z.object({
    type: z.literal("presence"),
    chatId: z.string(),
    from: peerSchema,
    state: presenceStateSchema,
    timestamp: z.number().int(),
    /** With `unavailable`: when the account was last seen (unix s), null when it does not show it. */
    lastSeen: z.number().int().nullable().optional(),
  }),
  /** The account's own profile changed (a name set by any of its devices or the phone). */
  z.object({ type: z.literal("profile"), me: meSchema }),
  /** A feature area's notification, already shaped as a spec 6.2 event for the receiving account. */
  z.object({ type: z.literal("event"), kind: z.string(), payload: z.record(z.string(), z.unknown()) }),
  /** The phone's address book synced to its devices (docs/simnet.md "Contacts"): whole (`set`) or a change. */
  z.object({
    type: z.literal("contacts"),
    action: z.enum(["set", "upsert", "remove"]),
    contacts: z
      .array(z.object({ id: z.string(), phone: z.string(), lid: z.string(), pushName: z.string(), name: z.string() }))
      .optional(),
    ids: z.array(z.string()).optional(),
  }),
  /** Who the phone blocked, synced to its devices: whole (`set`) or a change. */
  z.object({ type: z.literal("blocklist"), action: z.enum(["set", "add", "remove"]), ids: z.array(z.string()) }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
