// chatwootmock: a local mock of the parts of Chatwoot's Application API a help-desk connector uses
// (contacts, conversations, messages with attachments, an API inbox), following the shapes of
// Chatwoot's jbuilder views and models, with the API inbox's webhooks (docs/chatwootmock.md).
import Fastify, { type FastifyInstance } from "fastify";
import { registerAttachments } from "./attachments.ts";
import { registerGate } from "./auth.ts";
import { type ChatwootMockOptions, resolveOptions } from "./config.ts";
import { registerContacts } from "./contacts.ts";
import { registerControl } from "./control.ts";
import { registerConversations } from "./conversations.ts";
import { Desk } from "./desk.ts";
import { ChatwootError, ControlError } from "./errors.ts";
import { registerInboxes } from "./inboxes.ts";
import { registerMessages } from "./messages.ts";
import { ChatwootMockState } from "./state.ts";
import { WebhookSender } from "./webhooks.ts";

export * from "./config.ts";
export type * from "./model.ts";
export type { ChatwootMockState } from "./state.ts";

export interface ChatwootMock {
  app: FastifyInstance;
  state: ChatwootMockState;
  /** Starts listening; resolves to the base URL (the Application API is at `<url>/api/v1`). */
  listen(): Promise<string>;
  /** Resolves once every webhook queued so far has been answered or has failed. */
  webhooksIdle(): Promise<void>;
  close(): Promise<void>;
}

export function createChatwootMock(options: ChatwootMockOptions = {}): ChatwootMock {
  const opts = resolveOptions(options);
  const state = new ChatwootMockState(opts);
  if (opts.preset) state.setup(opts.preset);
  const app = Fastify({
    logger: { level: opts.logLevel, base: { pid: process.pid, server: "chatwootmock" } },
    bodyLimit: 128 * 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: true,
  });
  // JSON as usual; multipart/form-data (message attachments) as a buffer, read by message-input.ts.
  app.addContentTypeParser("multipart/form-data", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ChatwootError) return reply.code(err.status).send(err.body);
    const control = req.url.startsWith("/_control");
    if (err instanceof ControlError) {
      return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    }
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) req.log.error({ err }, "chatwootmock error");
    const message = (err as Error).message;
    return reply.code(status).send(control ? { error: { code: "bad_request", message } } : { error: message });
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(
        req.url.startsWith("/_control")
          ? { error: { code: "not_found", message: "no such control route" } }
          : { error: "Resource could not be found" },
      ),
  );

  const hooks = new WebhookSender(state, app.log);
  const desk = new Desk(state, hooks);
  registerGate(app, state);
  registerControl(app, desk);
  registerInboxes(app, state);
  registerContacts(app, state);
  registerConversations(app, state, desk);
  registerMessages(app, state, desk);
  registerAttachments(app, state);

  return {
    app,
    state,
    async listen() {
      const url = await app.listen({ port: opts.port, host: opts.host });
      state.baseUrl = url;
      return url;
    },
    webhooksIdle: () => hooks.idle(),
    async close() {
      hooks.close();
      await app.close();
    },
  };
}
