// The control API (`/_control/...`): what tests, demos and benchmarks use to set the help desk up
// and to act as its agents (docs/chatwootmock.md). Not Chatwoot's: no `api_access_token`; with an
// admin token configured it needs `Authorization: Bearer <adminToken>`; errors are `{error: {code, message}}`.
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseStatus } from "./conversations.ts";
import type { Desk } from "./desk.ts";
import { ControlError } from "./errors.ts";
import { messageView } from "./message-views.ts";
import { type Conversation, type Obj, STATUSES } from "./model.ts";
import { snapshot } from "./snapshot.ts";
import { inboxView } from "./views.ts";

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) throw new ControlError(400, "validation_error", z.prettifyError(r.error));
  return r.data;
}

const setupInput = z.object({
  accountName: z.string().min(1).optional(),
  inboxName: z.string().min(1).optional(),
  userName: z.string().min(1).optional(),
  token: z.string().min(1).optional(),
  webhookUrl: z.url().nullable().optional(),
  lockToSingleConversation: z.boolean().optional(),
});
const conversationRef = {
  conversationId: z.number().int().positive(),
  accountId: z.number().int().positive().optional(),
};
const agentMessageInput = z
  .object({
    ...conversationRef,
    content: z.string().optional(),
    private: z.boolean().default(false),
    agentName: z.string().min(1).default("Agent"),
    sourceId: z.string().optional(),
    contentAttributes: z.record(z.string(), z.unknown()).default({}),
    attachment: z
      .object({ filename: z.string().min(1), mimetype: z.string().min(3), base64: z.string().min(1) })
      .optional(),
  })
  .refine((b) => b.content !== undefined || b.attachment !== undefined, { message: "content or attachment" });
const statusInput = z.object({
  ...conversationRef,
  status: z.enum(STATUSES as [string, ...string[]]).default("resolved"),
  agentName: z.string().min(1).default("Agent"),
});

export function registerControl(app: FastifyInstance, desk: Desk): void {
  const { state } = desk;
  app.addHook("onRequest", async (req) => {
    if (!req.url.startsWith("/_control") || state.opts.adminToken === null) return;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const want = Buffer.from(state.opts.adminToken);
    const got = Buffer.from(m?.[1] ?? "");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw new ControlError(401, "unauthorized", "Authorization: Bearer <ADMIN_TOKEN> required");
    }
  });

  /** A conversation by its display id, in `accountId` or in the only account there is. */
  const conversation = (b: { conversationId: number; accountId?: number | undefined }): Conversation => {
    const accountId = b.accountId ?? (state.accounts.size === 1 ? [...state.accounts.keys()][0]! : undefined);
    if (accountId === undefined)
      throw new ControlError(400, "validation_error", "accountId: required with several accounts");
    const c = state.conversation(accountId, b.conversationId);
    if (!c) throw new ControlError(404, "not_found", "no such conversation");
    return c;
  };
  const setup = (b: z.infer<typeof setupInput>) => {
    if (b.token && state.userByToken(b.token)) throw new ControlError(409, "conflict", "token already in use");
    const { account, inbox, user } = state.setup(b);
    return { accountId: account.id, inboxId: inbox.id, userId: user.id, token: user.token! };
  };

  app.get("/healthz", async () => ({ status: "ok" }));

  app.post("/_control/reset", async () => {
    state.reset();
    return { ok: true, preset: state.opts.preset ? setup(state.opts.preset) : null };
  });
  app.post("/_control/setup", async (req) => setup(parse(setupInput, req.body)));

  app.patch("/_control/inboxes/:id", async (req) => {
    const inbox = state.inboxes.get(Number((req.params as { id: string }).id));
    if (!inbox) throw new ControlError(404, "not_found", "no such inbox");
    const b = parse(
      z.object({
        webhookUrl: z.url().nullable().optional(),
        name: z.string().min(1).optional(),
        lockToSingleConversation: z.boolean().optional(),
      }),
      req.body,
    );
    if (b.webhookUrl !== undefined) inbox.webhookUrl = b.webhookUrl;
    if (b.name !== undefined) inbox.name = b.name;
    if (b.lockToSingleConversation !== undefined) inbox.lockToSingleConversation = b.lockToSingleConversation;
    inbox.updatedAt = new Date();
    return inboxView(inbox);
  });

  // An agent replies in the dashboard: an outgoing message of that agent (message_created follows).
  app.post("/_control/agent-message", async (req) => {
    const b = parse(agentMessageInput, req.body);
    const conv = conversation(b);
    const agent = state.agent(conv.accountId, b.agentName);
    const files = b.attachment
      ? [
          {
            filename: b.attachment.filename,
            mimetype: b.attachment.mimetype,
            data: Buffer.from(b.attachment.base64, "base64"),
          },
        ]
      : [];
    const m = desk.createMessage(
      conv,
      {
        content: b.content ?? null,
        messageType: 1,
        contentType: "text",
        private: b.private,
        sourceId: b.sourceId ?? null,
        contentAttributes: b.contentAttributes as Obj,
        files,
      },
      agent,
    );
    return messageView(state, m);
  });

  const changeStatus = (raw: unknown, fixed?: "resolved") => {
    const b = parse(statusInput, raw);
    const conv = conversation(b);
    desk.setStatus(conv, parseStatus(fixed ?? b.status), state.agent(conv.accountId, b.agentName));
    return { conversationId: conv.displayId, status: conv.status };
  };
  app.post("/_control/resolve", async (req) => changeStatus(req.body, "resolved"));
  app.post("/_control/status", async (req) => changeStatus(req.body));

  app.post("/_control/outage", async (req) => {
    const b = parse(z.object({ ms: z.number().int().min(0).max(3_600_000) }), req.body);
    state.outageUntil = b.ms === 0 ? 0 : Date.now() + b.ms;
    return { outageUntil: state.outageUntil || null };
  });

  app.post("/_control/lose-answers", async (req) => {
    state.loseAnswers = parse(z.object({ count: z.number().int().min(0).max(1000) }), req.body).count;
    return { loseAnswers: state.loseAnswers };
  });

  app.get("/_control/state", async () => snapshot(state));
}
