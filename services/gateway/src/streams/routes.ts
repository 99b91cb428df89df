import websocket from "@fastify/websocket";
import { ApiError, INSTANCE_ID_RE, type StreamTicket } from "@gw/contracts";
import type { Config, Platform } from "@gw/platform";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { authenticateAdmin, authenticateInstance } from "../http/auth.ts";
import { ADMIN_SCOPE, adminFingerprint, tokenFingerprint } from "./auth.ts";
import { StreamHub } from "./hub.ts";
import { adminStreamRequest, instanceStreamRequest, type StreamRequest } from "./request.ts";
import { StreamRevocation } from "./revocation.ts";
import type { StreamSink } from "./sink.ts";
import { startSse } from "./sse.ts";
import { StreamTickets } from "./tickets.ts";
import { WsSink } from "./ws.ts";

/** What a client may send on the WebSocket: a ping now and then. */
const WS_MAX_PAYLOAD = 4096;

const ticketAnswer = ({ ticket, expiresAt }: { ticket: string; expiresAt: number }): StreamTicket => ({
  ticket,
  expiresAt: new Date(expiresAt).toISOString(),
});

/**
 * The live event streams (docs/streams.md): SSE and WebSocket of an instance's events, the admin
 * stream of every instance's, and the tickets browsers open them with. Native routes, not tRPC
 * procedures: a response that never ends is no procedure's answer. Every check (path, credentials,
 * query, instance) runs in `onRequest`, so a refused stream is a plain JSON error and a WebSocket
 * is refused before the upgrade.
 *
 * `@fastify/websocket` is registered here, on the root: its upgrade handler routes every upgrade
 * request, and on the root its hooks close the socket of one that reached a route that is not a
 * WebSocket (encapsulated, those sockets would stay open).
 */
export async function registerStreams(app: FastifyInstance, platform: Platform, config: Config): Promise<void> {
  const hub = new StreamHub(platform, app.log);
  const revocation = new StreamRevocation(platform, hub, app.log);
  const tickets = new StreamTickets(config.INTERNAL_SECRET);
  await app.register(websocket, {
    options: { maxPayload: WS_MAX_PAYLOAD },
    // Streams end first, telling each client where to resume (WebSocket 1001 with its cursor).
    preClose: async () => {
      revocation.close();
      await hub.close();
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });

  const prepared = new WeakMap<FastifyRequest, StreamRequest>();
  const serve = (req: FastifyRequest, sink: StreamSink) => {
    const request = prepared.get(req);
    if (!request) return sink.end("shutdown", null);
    hub.open(request, sink).catch((err: unknown) => {
      req.log.warn({ err }, "event stream ended: its history could not be read");
      sink.end("shutdown", request.cursor);
    });
  };
  const sse = (req: FastifyRequest, reply: FastifyReply) => {
    // HEAD (Fastify's, of the GET): the headers a stream would have, and no stream that never ends.
    if (req.method === "HEAD") return reply.type("text/event-stream; charset=utf-8").send();
    serve(req, startSse(reply));
  };

  app.route({
    method: "GET",
    url: "/v1/instances/:instanceId/events/stream",
    onRequest: async (req) => {
      prepared.set(req, await instanceStreamRequest(platform, tickets, req));
    },
    handler: async (req, reply) => sse(req, reply),
  });
  app.route({
    method: "GET",
    url: "/v1/admin/events/stream",
    onRequest: async (req) => {
      prepared.set(req, await adminStreamRequest(platform, config, tickets, req));
    },
    handler: async (req, reply) => sse(req, reply),
  });
  app.route({
    method: "GET",
    url: "/v1/instances/:instanceId/ws",
    onRequest: async (req) => {
      if (!req.ws) throw new ApiError("bad_request", "Rota WebSocket: conecte com Upgrade: websocket.");
      prepared.set(req, await instanceStreamRequest(platform, tickets, req));
    },
    handler: async () => {
      throw new ApiError("bad_request", "Rota WebSocket: conecte com Upgrade: websocket.");
    },
    wsHandler: (socket, req) => serve(req, new WsSink(socket)),
  });

  // Credentials before the body is read, as on the REST routes: an anonymous caller gets 401, not 400/413.
  const minted = new WeakMap<FastifyRequest, StreamTicket>();
  app.route({
    method: "POST",
    url: "/v1/instances/:instanceId/stream-ticket",
    onRequest: async (req) => {
      const { instanceId } = req.params as { instanceId: string };
      if (!INSTANCE_ID_RE.test(instanceId)) throw new ApiError("not_found", "Recurso não encontrado.");
      await authenticateInstance(platform, req, instanceId);
      const fingerprint = await tokenFingerprint(platform, instanceId);
      if (fingerprint === null) throw new ApiError("invalid_token");
      minted.set(req, ticketAnswer(tickets.mint(instanceId, fingerprint)));
    },
    handler: async (req) => minted.get(req),
  });
  app.route({
    method: "POST",
    url: "/v1/admin/stream-ticket",
    onRequest: async (req) => {
      authenticateAdmin(req, config);
      minted.set(req, ticketAnswer(tickets.mint(ADMIN_SCOPE, adminFingerprint(config))));
    },
    handler: async (req) => minted.get(req),
  });
}
