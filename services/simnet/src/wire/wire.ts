// The WebSocket side: `/ws` upgrades on the Fastify server, `hello`, requests and their operations.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { z } from "zod";
import { blocks } from "../areas/contacts-model.ts";
import { SIMNET_AREAS } from "../areas/index.ts";
import { SimnetError } from "../errors.ts";
import { sameSecret } from "../ids.ts";
import { markRead } from "../messaging/acks.ts";
import { sendMessage } from "../messaging/send.ts";
import { checkExists, groupMetadata, resolveTarget } from "../messaging/targets.ts";
import type { Connection } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { cleanupConnection, closeConnection, logoutDevices, openDevice, startPairing } from "./connections.ts";
import { type OpDef, openOp, pairingOp } from "./op-kit.ts";
import {
  passkeyAssertion,
  passkeyChallenge,
  passkeyConfirm,
  passkeyConfirmation,
  requestPairingCode,
} from "./pairing.ts";
import {
  checkExistsArgsSchema,
  clientFrameSchema,
  groupMetadataArgsSchema,
  type helloFrameSchema,
  pairingCodeArgsSchema,
  passkeyAssertionSchema,
  pictureArgsSchema,
  readArgsSchema,
  sendArgsSchema,
} from "./protocol.ts";

const MAX_FRAME_BYTES = 128 * 1024 * 1024;

const empty = z.object({}).loose();

/** The rate-limit fault: the real network's `rate-overlimit`, refused before anything is delivered. */
function rateLimit(state: SimnetState, phone: string): void {
  const { faults } = state;
  const own = faults.rateLimitedPhones.get(phone) ?? 0;
  if (own > 0) {
    if (own === 1) faults.rateLimitedPhones.delete(phone);
    else faults.rateLimitedPhones.set(phone, own - 1);
  } else if (faults.rateLimitSends > 0) {
    faults.rateLimitSends--;
  } else {
    return;
  }
  throw new SimnetError("rate_overlimit", "too many messages: try again later");
}

/** Every `request.op` (docs/simnet.md "Operations"); the feature areas add theirs (areas/index.ts). */
const OPS: Record<string, OpDef> = {
  "pairing-code": pairingOp(pairingCodeArgsSchema, ({ state, conn }, a) => requestPairingCode(state, conn, a.phone)),
  "passkey-challenge": pairingOp(empty, ({ conn }) => passkeyChallenge(conn)),
  passkey: pairingOp(passkeyAssertionSchema, ({ conn }, a) => passkeyAssertion(conn, a)),
  "passkey-confirmation": pairingOp(empty, ({ conn }) => passkeyConfirmation(conn)),
  "passkey-confirm": pairingOp(empty, ({ state, conn }) => passkeyConfirm(state, conn)),
  me: openOp(empty, ({ state, acc }) => state.me(acc)),
  capping: openOp(empty, ({ state, acc }) => state.capping(acc)),
  timelock: openOp(empty, ({ state, acc }) => state.timelock(acc)),
  send: openOp(sendArgsSchema, ({ state, acc, origin }, a) => {
    rateLimit(state, acc.phone);
    return sendMessage(state, acc, origin, a);
  }),
  read: openOp(readArgsSchema, ({ state, acc }, a) => ({ read: markRead(state, acc, a.ids, a.played ?? true) })),
  "check-exists": openOp(checkExistsArgsSchema, ({ state, acc }, a) => checkExists(state, acc.phone, a.phone)),
  "group-metadata": openOp(groupMetadataArgsSchema, ({ state, acc }, a) => {
    const group = state.groups.get(a.groupId);
    if (!group) throw new SimnetError("not_found", `no group ${a.groupId}`);
    if (!group.participants.has(acc.phone))
      throw new SimnetError("network_rejected", `${acc.phone} is not a participant of ${a.groupId}`);
    return groupMetadata(state, group, acc.phone);
  }),
  picture: openOp(pictureArgsSchema, ({ state, acc }, a) => {
    const target = resolveTarget(state, a.chatId);
    // Someone who blocked this account hides their picture from it.
    const hidden = target.kind === "user" && blocks(state, target.acc.phone, acc.phone);
    const picture = target.kind === "group" ? target.group.picture : hidden ? null : target.acc.picture;
    return { picture: picture ?? null };
  }),
  groups: openOp(empty, ({ state, acc }) => ({
    groups: [...state.groups.values()]
      .filter((g) => g.participants.has(acc.phone))
      .map((g) => groupMetadata(state, g, acc.phone)),
  })),
};

for (const area of SIMNET_AREAS) Object.assign(OPS, area.ops ?? {});

export const OP_NAMES = Object.keys(OPS);

function rejectUpgrade(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
  socket.destroy();
}

export function attachWire(app: FastifyInstance, state: SimnetState) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const log = app.log;

  const respond = (conn: Connection, id: string | number, out: { ok: true; result: unknown } | SimnetError) => {
    const frame =
      out instanceof SimnetError
        ? { type: "response" as const, id, ok: false, error: { code: out.code, message: out.message } }
        : { type: "response" as const, id, ok: true, result: out.result };
    if (state.faults.slowMs > 0) state.later(state.faults.slowMs, () => state.sendFrame(conn, frame));
    else state.sendFrame(conn, frame);
  };

  const protocolError = (conn: Connection, message: string) => closeConnection(state, conn, "protocol_error", message);

  // Connections whose hello was accepted and whose session opens after `openDelayMs`: their
  // requests are answered `not_open`, as on a connection that is still authenticating.
  const opening = new WeakSet<Connection>();

  const onHello = (conn: Connection, hello: z.output<typeof helloFrameSchema>) => {
    state.cancel(conn.helloTimer);
    conn.helloTimer = null;
    conn.instanceId = hello.instanceId;
    conn.pod = hello.pod;
    conn.deviceName = hello.deviceName;
    conn.browserName = hello.browserName;
    for (const other of state.connections.values()) {
      if (other !== conn && other.instanceId === conn.instanceId && other.state !== "closed") {
        state.stats.instanceOverlaps++;
        break;
      }
    }
    if (!hello.creds) {
      startPairing(state, conn);
      return;
    }
    const device = state.devices.get(hello.creds.deviceId);
    if (!device) {
      if (state.removedDevices.has(hello.creds.deviceId))
        closeConnection(state, conn, "logged_out", "this device was removed on the phone");
      else closeConnection(state, conn, "bad_credentials", "unknown device");
      return;
    }
    const acc = state.accounts.get(device.phone);
    if (!acc || !sameSecret(hello.creds.secret, device.secret)) {
      closeConnection(state, conn, "bad_credentials", "wrong device secret");
      return;
    }
    if (state.faults.openDelayMs > 0) {
      opening.add(conn);
      state.later(state.faults.openDelayMs, () => {
        opening.delete(conn);
        if (conn.state === "hello" && state.devices.get(device.deviceId) === device)
          openDevice(state, conn, device, acc);
      });
      return;
    }
    openDevice(state, conn, device, acc);
  };

  const onFrame = (conn: Connection, data: RawData, isBinary: boolean) => {
    if (conn.state === "closed") return;
    if (isBinary) return protocolError(conn, "binary frames are not part of the protocol");
    let json: unknown;
    try {
      json = JSON.parse(data.toString());
    } catch {
      return protocolError(conn, "frames are JSON text");
    }
    const parsed = clientFrameSchema.safeParse(json);
    if (!parsed.success) {
      const reqId = (json as { type?: unknown; id?: unknown } | null)?.id;
      if (
        (json as { type?: unknown } | null)?.type === "request" &&
        (typeof reqId === "string" || typeof reqId === "number")
      )
        return respond(conn, reqId, new SimnetError("bad_request", z.prettifyError(parsed.error)));
      return protocolError(conn, `bad frame: ${z.prettifyError(parsed.error)}`);
    }
    const frame = parsed.data;
    if (frame.type === "hello") {
      if (conn.state !== "hello" || opening.has(conn)) return protocolError(conn, "hello was already sent");
      return onHello(conn, frame);
    }
    if (conn.state === "hello" && !opening.has(conn)) return protocolError(conn, "the first frame must be hello");
    if (frame.type === "logout") {
      const device = conn.deviceId ? state.devices.get(conn.deviceId) : undefined;
      if (conn.state === "open" && device) logoutDevices(state, [device], "this device logged out");
      else closeConnection(state, conn, "logged_out", "logged out before pairing");
      return;
    }
    const def = OPS[frame.op];
    if (!def) return respond(conn, frame.id, new SimnetError("unknown_op", `unknown op ${frame.op}`));
    if (def.phase === "pairing" && conn.state !== "pairing")
      return respond(conn, frame.id, new SimnetError("not_pairing", "this connection is not waiting to be paired"));
    if (def.phase === "open" && conn.state !== "open")
      return respond(conn, frame.id, new SimnetError("not_open", "this connection is not authenticated"));
    try {
      const result = def.run({ state, conn }, frame.args);
      respond(conn, frame.id, { ok: true, result });
    } catch (err) {
      if (err instanceof SimnetError) return respond(conn, frame.id, err);
      log.error({ err, op: frame.op }, "simnet op failed");
      respond(conn, frame.id, new SimnetError("internal_error", "unexpected error"));
    }
  };

  const onConnection = (ws: WebSocket, req: IncomingMessage) => {
    const conn: Connection = {
      id: state.nextConnectionId(),
      ws,
      state: "hello",
      instanceId: null,
      pod: "",
      deviceName: "",
      browserName: "",
      phone: null,
      deviceId: null,
      since: Date.now(),
      qr: null,
      qrShown: 0,
      qrTimer: null,
      helloTimer: null,
      passkey: null,
    };
    state.connections.set(conn.id, conn);
    state.stats.connectionsAccepted++;
    log.debug({ connectionId: conn.id, remote: req.socket.remoteAddress }, "simnet connection");
    conn.helloTimer = state.later(state.opts.helloTimeoutMs, () => {
      conn.helloTimer = null;
      if (conn.state === "hello") protocolError(conn, "no hello in time");
    });
    ws.on("message", (data, isBinary) => onFrame(conn, data, isBinary));
    ws.on("close", () => cleanupConnection(state, conn));
    ws.on("error", (err) => log.debug({ err, connectionId: conn.id }, "simnet socket error"));
  };

  app.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/ws") return rejectUpgrade(socket, 404, "Not Found");
    // This instance cannot reach the network: the connection is reset, nothing answered.
    const instance = new URLSearchParams((req.url ?? "").split("?")[1] ?? "").get("instance");
    const cutUntil = instance ? state.faults.unreachable.get(instance) : undefined;
    if (cutUntil !== undefined && cutUntil > Date.now()) {
      state.stats.refusedUpgrades++;
      socket.destroy();
      return;
    }
    const outageLeft = state.faults.outageUntil - Date.now();
    if (outageLeft > 0) {
      state.stats.refusedUpgrades++;
      return rejectUpgrade(socket, 503, "Service Unavailable", { "Retry-After": String(Math.ceil(outageLeft / 1000)) });
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req));
  });

  return {
    wss,
    close(): Promise<void> {
      for (const conn of [...state.connections.values()]) {
        cleanupConnection(state, conn);
        conn.ws.terminate();
      }
      for (const ws of wss.clients) ws.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}
