// cloudmock: a local mock of the operator's Cloud API (Graph API for WhatsApp), following its
// documented shapes (docs/cloudmock.md, /work/shared/reference/cloud-api.md), with signed webhooks.
import Fastify, { type FastifyInstance } from "fastify";
import { type CloudMockOptions, resolveOptions } from "./config.ts";
import { registerControl } from "./control.ts";
import { registerGraph } from "./graph.ts";
import { ControlError, GraphFault } from "./graph-errors.ts";
import { createAuth } from "./graph-kit.ts";
import { registerMedia } from "./media.ts";
import { registerProfile, registerUploadBytes } from "./profile.ts";
import { CloudMockState } from "./state.ts";
import { registerTemplates } from "./templates.ts";
import { WebhookSender } from "./webhooks.ts";

export * from "./config.ts";
export { GRAPH_CODES } from "./graph-errors.ts";
export type { CloudMockState } from "./state.ts";
export { operatorJson, signature } from "./webhooks.ts";

export interface CloudMock {
  app: FastifyInstance;
  state: CloudMockState;
  /** Starts listening; resolves to the base URL (the Graph API is at `<url>/v25.0`). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export function createCloudMock(options: CloudMockOptions): CloudMock {
  const opts = resolveOptions(options);
  const state = new CloudMockState(opts);
  const app = Fastify({
    logger: { level: opts.logLevel, base: { pid: process.pid, server: "cloudmock" } },
    bodyLimit: 128 * 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: true,
  });
  // JSON as usual; anything else (multipart uploads, the resumable upload's bytes) as a buffer.
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof GraphFault) return reply.code(err.status).send(err.body());
    if (err instanceof ControlError)
      return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) req.log.error({ err }, "cloudmock error");
    return reply
      .code(status)
      .send(new GraphFault(status >= 500 ? 131000 : 100, (err as Error).message, { status }).body());
  });
  const hooks = new WebhookSender(state, app.log);
  const auth = createAuth(state);
  registerControl(app, state, hooks);
  registerGraph(app, state, auth, hooks);
  registerMedia(app, state, auth);
  registerProfile(app, state, auth);
  registerUploadBytes(app, state, auth);
  registerTemplates(app, state, auth, hooks);

  return {
    app,
    state,
    async listen() {
      const url = await app.listen({ port: opts.port, host: opts.host });
      state.baseUrl = url;
      return url;
    },
    async close() {
      state.clearTimers();
      await app.close();
    },
  };
}
