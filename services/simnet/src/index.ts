// simnet: the simulated messaging network (docs/simnet.md).
import Fastify, { type FastifyInstance } from "fastify";
import { resolveOptions, type SimnetOptions } from "./config.ts";
import { registerControl } from "./control/control.ts";
import { SimnetState } from "./state/state.ts";
import { cleanupConnection, closeAll } from "./wire/connections.ts";
import { attachWire } from "./wire/wire.ts";

export * from "./config.ts";
export { ERROR_STATUS, type ErrorCode, SimnetError } from "./errors.ts";
export type { SimnetState } from "./state/state.ts";
export * from "./wire/protocol.ts";

export interface Simnet {
  app: FastifyInstance;
  /** Starts listening; resolves to the HTTP base url (the WebSocket is at `ws://…/ws`). */
  listen(): Promise<string>;
  close(): Promise<void>;
  /** Its whole memory, for tests. */
  state: SimnetState;
}

/** JSON bodies; an empty body with a JSON content type is taken as no body. */
function acceptEmptyJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    parseJson(req, text, done);
  });
}

export function createSimnet(options: SimnetOptions): Simnet {
  const opts = resolveOptions(options);
  const state = new SimnetState(opts);
  const app = Fastify({
    logger: { level: opts.logLevel, base: { pid: process.pid, server: "simnet" } },
    // Sends from the control API carry media as base64.
    bodyLimit: 128 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: true,
  });
  acceptEmptyJson(app);
  const wire = attachWire(app, state);

  const endOutage = () => {
    state.cancel(state.faults.outageTimer);
    state.faults.outageTimer = null;
    state.faults.outageUntil = 0;
  };

  registerControl(app, state, {
    startOutage(seconds) {
      endOutage();
      if (seconds <= 0) return;
      state.faults.outageUntil = Date.now() + seconds * 1000;
      state.faults.outageTimer = state.later(seconds * 1000, endOutage);
      closeAll(state, "outage", `the network is down for ${seconds} s`);
    },
    reset() {
      for (const conn of [...state.connections.values()]) {
        cleanupConnection(state, conn);
        conn.ws.terminate();
      }
      state.clear();
    },
  });

  return {
    app,
    state,
    async listen() {
      return app.listen({ port: opts.port, host: opts.host });
    },
    async close() {
      state.clearTimers();
      await wire.close();
      await app.close();
    },
  };
}
