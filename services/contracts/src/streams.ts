import { z } from "zod";
import { eventKindSchema } from "./events.ts";
import { instanceIdSchema } from "./instance.ts";

/** An event id (`evt_` + a lower-case ULID): what a stream resumes after (docs/streams.md). */
export const EVENT_ID_RE = /^evt_[0-9a-z]{26}$/;
export const eventIdSchema = z.string().regex(EVENT_ID_RE, "id de evento inválido (evt_…)");

/**
 * WebSocket close codes of the event streams (4000–4999: the application's own range).
 * `overflow`: the client read too slowly and its buffer filled; the close reason is the id to
 * resume after. `revoked`: its token was rotated or its instance deleted. `going_away` (1001): the
 * gateway is shutting down; reconnect, to any replica, with the last id received.
 */
export const STREAM_CLOSE_CODES = { overflow: 4008, revoked: 4001, going_away: 1001 } as const;

/** `events=a,b`: kinds as a webhook's `events` lists them (`*`: every kind). */
const eventsParam = z
  .string()
  .min(1, "events: um tipo de evento ou vários separados por vírgula")
  .transform((s) => s.split(",").map((k) => k.trim()))
  .pipe(z.array(z.union([z.literal("*"), eventKindSchema])).max(64))
  .transform((kinds) => (kinds.includes("*") ? null : new Set<string>(kinds)));

const ticketParam = z.string().min(1).max(256);

/**
 * The query of `GET /v1/instances/{instanceId}/events/stream` and `…/ws`. Strict: an instance
 * token has no place in a URL, and a parameter we do not know (`token=`) is refused rather than
 * silently ignored. `events` becomes the set of kinds (null: every kind).
 */
export const streamQuerySchema = z.strictObject({
  events: eventsParam.optional(),
  cursor: eventIdSchema.optional(),
  ticket: ticketParam.optional(),
});
export type StreamQuery = z.infer<typeof streamQuerySchema>;

/** `GET /v1/admin/events/stream`: the same, and optionally one instance's events only. */
export const adminStreamQuerySchema = streamQuerySchema.extend({ instanceId: instanceIdSchema.optional() });
export type AdminStreamQuery = z.infer<typeof adminStreamQuerySchema>;

/**
 * The answer of `POST …/stream-ticket`: a token for the stream routes' `?ticket=` (browsers cannot
 * set headers on EventSource or WebSocket), valid until `expiresAt`, for one instance or the admin stream.
 */
export const streamTicketSchema = z.object({
  ticket: z.string(),
  expiresAt: z.iso.datetime(),
});
export type StreamTicket = z.infer<typeof streamTicketSchema>;

/** SSE `event: overflow` data, and what a client reconnects with (`Last-Event-ID` or `?cursor=`). */
export const streamOverflowSchema = z.object({ cursor: eventIdSchema.nullable() });
