import { z } from "zod";

/**
 * What the event payloads share (spec 2.11: "All events use the same field names"): a person as
 * every event shows one, the sender of a message, a message's media, and the fields every message
 * event starts with. Objects are strict: a field a builder adds without its schema fails the test
 * that drives every event (test/e2e/event-schemas-*.test.ts); only the network's or the operator's
 * own data (`raw`) is open.
 */

/** `timestamp` inside a payload: unix seconds (the envelope's is milliseconds). */
export const eventSeconds = z.number().int();

/** The network's or the operator's own event, as received: its format may change (spec 2.11). */
export const eventRaw = z.unknown();

/** A person (spec 2.11: "A contact is always `{id, phone, lid, pushName}`"). */
export const eventContactSchema = z
  .strictObject({
    id: z.string().meta({ description: "`<digits>@c.us`, or `<id>@lid` while the number is unknown" }),
    phone: z.string().meta({ description: "Digits; empty while only the privacy id is known" }),
    lid: z.string().nullable(),
    pushName: z.string(),
  })
  .meta({ id: "EventContact" });
export type EventContact = z.infer<typeof eventContactSchema>;

/** `from` of a message event: the contact and its picture (a signed link; null on official instances). */
export const messageSenderSchema = z
  .strictObject({ ...eventContactSchema.shape, picture: z.string().nullable() })
  .meta({ id: "MessageSender" });

/** A message's media: `url` the signed link (spec 2.11 "Received media"), null while there is none. */
export const messageMediaSchema = z
  .strictObject({ url: z.string().nullable(), mimetype: z.string(), filename: z.string().nullable() })
  .meta({ id: "MessageMedia" });

/** The group an event is about (spec 2.11: "a group is always `{id, name, ...}`"). */
export const eventGroupSchema = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: "EventGroup" });

/**
 * The fields every message event starts with (`message`, `message.any`, reactions, edits,
 * revocations, votes, event replies), received or sent. `source` only on the account's own
 * messages (`fromMe`): `api` sent through the API, `app` from the phone or another device.
 */
export const messageBaseShape = {
  id: z.string().meta({ description: "`{fromMe}_{chatId}_{id}[_{participant}]` (spec 2.6)" }),
  chatId: z.string(),
  chatLid: z.string().nullable(),
  isGroup: z.boolean(),
  chatName: z.string().nullable(),
  chatPicture: z.string().nullable(),
  fromMe: z.boolean(),
  from: messageSenderSchema,
  timestamp: eventSeconds,
  source: z.enum(["api", "app"]).optional(),
};

/** The fields of {@link messageBaseShape} as a schema of their own (the OpenAPI document's `MessageBase`). */
export const messageBaseSchema = z.strictObject(messageBaseShape).meta({ id: "MessageBase" });
