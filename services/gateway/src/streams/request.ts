import {
  ApiError,
  adminStreamQuerySchema,
  EVENT_ID_RE,
  INSTANCE_ID_RE,
  invalid,
  invalidFields,
  streamQuerySchema,
} from "@gw/contracts";
import { type Config, type Platform, usabilityError, validationDetails } from "@gw/platform";
import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import { authenticateAdminStream, authenticateInstanceStream } from "./auth.ts";
import type { StreamTickets } from "./tickets.ts";

/** What a stream route serves, established before anything is written (errors are plain JSON answers until then). */
export interface StreamRequest {
  /** The instance whose 7-day stream is read; null: every instance's (the admin stream). */
  instanceId: string | null;
  /** Kinds to send (a webhook's `events`); null: all. */
  kinds: Set<string> | null;
  /** Resume after this event id (Last-Event-ID, else `?cursor=`); null: from now on. */
  cursor: string | null;
  /** An instance credential's stream: closed when the token's fingerprint changes (revocation.ts). */
  owner: { instanceId: string; fingerprint: string } | null;
}

function parseQuery<S extends z.ZodType>(schema: S, req: FastifyRequest): z.infer<S> {
  const parsed = schema.safeParse(req.query ?? {});
  if (parsed.success) return parsed.data;
  // An unknown parameter (`token=`, above all) is named in the details, not reported as the whole query.
  const unknown = parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : []));
  const details = Object.fromEntries(unknown.map((k) => [k, "parâmetro desconhecido (o token vai num cabeçalho)"]));
  throw invalidFields({ ...validationDetails(parsed.error), ...details }, "Parâmetros inválidos.");
}

/** `Last-Event-ID` (EventSource sends it when it reconnects) wins over `?cursor=`, the URL's original one. */
function cursorOf(req: FastifyRequest, query: string | undefined): string | null {
  const header = req.headers["last-event-id"];
  if (typeof header === "string" && header.length > 0) {
    if (!EVENT_ID_RE.test(header)) throw invalid("Last-Event-ID", "id de evento inválido (evt_…)");
    return header;
  }
  return query ?? null;
}

/** The instance must exist and be usable, as for `GET /events` (trpc/init.ts instanceProcedure). */
async function requireUsable(platform: Platform, instanceId: string): Promise<void> {
  const instance = await platform.instanceCache.get(instanceId);
  if (!instance) throw new ApiError("not_found", "Instância não encontrada.");
  const blocked = usabilityError(instance);
  if (blocked) throw blocked;
}

/** `…/instances/{instanceId}/events/stream` and `…/ws`: path, credentials, query, instance, in the REST routes' order. */
export async function instanceStreamRequest(
  platform: Platform,
  tickets: StreamTickets,
  req: FastifyRequest,
): Promise<StreamRequest> {
  const { instanceId } = req.params as { instanceId: string };
  if (!INSTANCE_ID_RE.test(instanceId)) throw new ApiError("not_found", "Recurso não encontrado.");
  const rawTicket = (req.query as Record<string, unknown>).ticket;
  const ticket = typeof rawTicket === "string" ? rawTicket : undefined;
  const fingerprint = await authenticateInstanceStream(platform, tickets, req, instanceId, ticket);
  const query = parseQuery(streamQuerySchema, req);
  const cursor = cursorOf(req, query.cursor);
  await requireUsable(platform, instanceId);
  return { instanceId, kinds: query.events ?? null, cursor, owner: { instanceId, fingerprint } };
}

/** `GET /v1/admin/events/stream`: every instance's events, or one's (`?instanceId=`, its whole 7-day history). */
export async function adminStreamRequest(
  platform: Platform,
  config: Config,
  tickets: StreamTickets,
  req: FastifyRequest,
): Promise<StreamRequest> {
  const rawTicket = (req.query as Record<string, unknown>).ticket;
  authenticateAdminStream(config, tickets, req, typeof rawTicket === "string" ? rawTicket : undefined);
  const query = parseQuery(adminStreamQuerySchema, req);
  const cursor = cursorOf(req, query.cursor);
  if (query.instanceId !== undefined && !(await platform.instanceCache.get(query.instanceId))) {
    throw new ApiError("not_found", "Instância não encontrada.");
  }
  return { instanceId: query.instanceId ?? null, kinds: query.events ?? null, cursor, owner: null };
}
