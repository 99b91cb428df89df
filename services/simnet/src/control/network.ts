// The control API's network routes: counters, connections, a pairing connection's QR, the
// faults a test injects (drop, outage, slow answers, slow opens, rate limits, unreachable
// instances) and the reset of everything.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import type { SimnetState } from "../state/state.ts";
import { dropConnection } from "../wire/connections.ts";
import { parseBody as parse } from "../wire/op-kit.ts";

/**
 * What the network routes ask of the simnet that owns them (index.ts): an outage and a reset touch
 * its timers and sockets.
 */
export interface ControlHooks {
  startOutage(seconds: number): void;
  reset(): void;
}

export function networkRoutes(app: FastifyInstance, state: SimnetState, hooks: ControlHooks): void {
  app.get("/simnet/stats", async () => ({
    conflicts: state.stats.conflicts,
    connectionsOpened: state.stats.connectionsOpened,
    connectionsAccepted: state.stats.connectionsAccepted,
    instanceOverlaps: state.stats.instanceOverlaps,
    refusedUpgrades: state.stats.refusedUpgrades,
    messagesSent: state.stats.messagesSent,
    conflictLog: state.stats.conflictLog,
    connections: state.connections.size,
    outageUntil: state.faults.outageUntil > Date.now() ? new Date(state.faults.outageUntil).toISOString() : null,
    slowMs: state.faults.slowMs,
    openDelayMs: state.faults.openDelayMs,
    rateLimitSends: state.faults.rateLimitSends,
  }));

  app.get("/simnet/connections", async () => ({
    connections: [...state.connections.values()].map((c) => ({
      connectionId: c.id,
      instanceId: c.instanceId,
      pod: c.pod,
      state: c.state,
      phone: c.phone,
      deviceId: c.deviceId,
      since: new Date(c.since).toISOString(),
    })),
  }));

  app.get("/simnet/instances/:instanceId/qr", async (req) => {
    const { instanceId } = parse(z.object({ instanceId: z.string() }), req.params);
    const conn = [...state.connections.values()]
      .filter((c) => c.instanceId === instanceId && c.state === "pairing" && c.qr)
      .at(-1);
    if (!conn?.qr) throw new SimnetError("not_pairing", `no connection of ${instanceId} is showing a QR code`);
    return { value: conn.qr, connectionId: conn.id, shown: conn.qrShown };
  });

  app.post("/simnet/faults/drop", async (req) => {
    const { instanceId } = parse(z.object({ instanceId: z.string().optional() }), req.body);
    const conns = [...state.connections.values()].filter((c) => !instanceId || c.instanceId === instanceId);
    for (const c of conns) dropConnection(state, c);
    return { dropped: conns.length };
  });

  app.post("/simnet/faults/outage", async (req) => {
    const { seconds } = parse(z.object({ seconds: z.number().min(0).max(86_400) }), req.body);
    hooks.startOutage(seconds);
    return {
      outageUntil: state.faults.outageUntil > Date.now() ? new Date(state.faults.outageUntil).toISOString() : null,
    };
  });

  app.post("/simnet/faults/slow", async (req) => {
    const { ms } = parse(z.object({ ms: z.number().int().min(0).max(600_000) }), req.body);
    state.faults.slowMs = ms;
    return { slowMs: ms };
  });

  // A device's session opens this long after its hello (a slow handshake): the window in which
  // an instance's new owner holds its lease but not yet its connection.
  app.post("/simnet/faults/slow-open", async (req) => {
    const { ms } = parse(z.object({ ms: z.number().int().min(0).max(600_000) }), req.body);
    state.faults.openDelayMs = ms;
    return { openDelayMs: ms };
  });

  app.post("/simnet/faults/rate-limit", async (req) => {
    const { sends, phone } = parse(
      z.object({ sends: z.number().int().min(0).max(1_000_000), phone: z.string().optional() }),
      req.body,
    );
    if (phone === undefined) {
      state.faults.rateLimitSends = sends;
      return { rateLimitSends: sends };
    }
    const acc = state.requireAccount(phone);
    if (sends === 0) state.faults.rateLimitedPhones.delete(acc.phone);
    else state.faults.rateLimitedPhones.set(acc.phone, sends);
    return { rateLimitSends: sends, phone: acc.phone };
  });

  /** One instance cannot reach the network for N seconds (0 ends it): its connection is cut, reconnects reset. */
  app.post("/simnet/faults/unreachable", async (req) => {
    const { instanceId, seconds } = parse(
      z.object({ instanceId: z.string().min(1).max(200), seconds: z.number().min(0).max(86_400) }),
      req.body,
    );
    if (seconds === 0) state.faults.unreachable.delete(instanceId);
    else {
      state.faults.unreachable.set(instanceId, Date.now() + seconds * 1000);
      for (const conn of [...state.connections.values()]) if (conn.instanceId === instanceId) conn.ws.terminate();
    }
    const until = state.faults.unreachable.get(instanceId);
    return { instanceId, unreachableUntil: until ? new Date(until).toISOString() : null };
  });

  app.post("/simnet/reset", async () => {
    hooks.reset();
    return { ok: true };
  });
}
