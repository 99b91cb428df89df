/**
 * The constraints the OpenAPI document states for fields whose validation is code (a transform
 * that normalizes ids, a rule across fields): what clients and generators can trust. Each pattern
 * describes the canonical forms, a subset of what the validation accepts (it also tolerates
 * spaces and punctuation in numbers, a device suffix on ids, a whole invite link…), so a value
 * that matches is never refused for its form. They are documentation only: `documented()` adds
 * them to the rendered schema without changing what the schema validates.
 */
import type { z } from "zod";

const alt = (...parts: string[]) => `^(${parts.join("|")})$`;

const NUMBER = "\\+?[0-9]{8,15}";
const C_US = "[0-9]{8,15}@c\\.us";
const LID = "[0-9]{1,30}@lid";
const GROUP = "[0-9]{1,30}(-[0-9]{1,20})?@g\\.us";
const NEWSLETTER = "[0-9]{1,30}@newsletter";
const BSUID = "[A-Za-z0-9._-]{1,64}@bsuid";
const MIME_TOKEN = "[a-z0-9!#$&^_.+-]{1,64}";
const B64 = "([A-Za-z0-9+/]{4})";

export const DOC_PATTERNS = {
  /** A number with country and area code (digits, an optional `+`). */
  phone: `^${NUMBER}$`,
  /** A person: a number, `<digits>@c.us` or `<id>@lid`. */
  person: alt(NUMBER, C_US, LID),
  /** Any conversation of spec 1. */
  chat: alt(NUMBER, C_US, LID, GROUP, NEWSLETTER, BSUID, "status@broadcast"),
  /**
   * The `chatId`/`phone` fields of a body: a chat, or empty (an empty field names nothing: the
   * other one is taken, and a route that needs a chat answers 422 "informe o chatId" without one).
   */
  chatField: alt("", NUMBER, C_US, LID, GROUP, NEWSLETTER, BSUID, "status@broadcast"),
  /** A conversation with a person or a group. */
  personOrGroup: alt(NUMBER, C_US, LID, GROUP),
  /**
   * The `chatId`/`phone` of `/typing/*`: a person (an official gateway's business-scoped user
   * too) or a group, or empty (as `chatField`: an empty field names nothing).
   */
  typingChat: alt("", NUMBER, C_US, LID, GROUP, BSUID),
  /** A group: `<id>@g.us` or the bare id (a legacy group's `<creator's number>-<timestamp>` too). */
  group: alt("[0-9]{10,40}", "[0-9]{1,30}-[0-9]{1,20}", GROUP),
  /** A message id as the API gives it (spec 2.6), or the network's bare id. */
  message: alt(
    `(true|false)_(${C_US}|${LID}|${GROUP}|${NEWSLETTER}|status@broadcast)_[A-Za-z0-9.=~-]{4,200}(_(${C_US}|${LID}))?`,
    "[A-Za-z0-9.=~-]{4,200}",
  ),
  /** A group invite: its code or the whole link. */
  invite: alt("[A-Za-z0-9]{6,40}", "https://chat\\.whatsapp\\.com/[A-Za-z0-9]{6,40}"),
  /** An absolute http(s) URL on the default ports, without credentials (the URL guard refuses both). */
  httpUrl: "^https?://[^\\s/?#@:]+(:(80|443))?([/?#][^\\s]*)?$",
  /** A privacy id: `<digits>@lid` or the bare digits. */
  lid: "^[0-9]{1,30}(@lid)?$",
  /** A media type, `type/subtype` (lowercase), with an optional `codecs` parameter. */
  mimetype: `^${MIME_TOKEN}/${MIME_TOKEN}(; ?codecs=[a-z0-9.]+)?$`,
  /** Base64 content (padded to whole quanta), or a `data:<type>;base64,` URL of it. */
  base64: `^(data:${MIME_TOKEN}/${MIME_TOKEN};base64,)?${B64}*(${B64}|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$`,
  /** A message's delivery state (`filter.ack`): its name or its number (-1 to 4). */
  ack: "^(ERROR|PENDING|SERVER|DEVICE|READ|PLAYED|-1|[0-4])$",
} as const;

type JsonSchemaPatch = Record<string, unknown>;

/**
 * The schema as it validates, with `patch` merged into its rendered JSON Schema (and `meta`, e.g.
 * an `id`, given here: a schema's meta is set once, and an id may be registered only once).
 */
export function documented<S extends z.ZodType>(
  schema: S,
  patch: JsonSchemaPatch,
  meta: Record<string, unknown> = {},
): S {
  const current = (schema.meta() ?? {}) as { override?: JsonSchemaPatch };
  return schema.meta({ ...current, ...meta, override: { ...(current.override ?? {}), ...patch } }) as S;
}

/** A body that names its chat by `chatId` or its alias `phone` (one of them is required). */
export const CHAT_REQUIRED = { anyOf: [{ required: ["chatId"] }, { required: ["phone"] }] };

/** A body whose chat is required for some values of `field` only (`values`): the others need none. */
export const chatRequiredUnless = (field: string, values: readonly string[]) => ({
  anyOf: [{ properties: { [field]: { enum: [...values] } } }, ...CHAT_REQUIRED.anyOf],
});
