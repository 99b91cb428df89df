import { chatwootWebhookSchema, type HelpdeskAgentItem, normalizeChatId } from "@gw/contracts";
import { type Config, HELPDESK_HOOK_PATH, type HelpdeskApp, type Platform } from "@gw/platform";
import { signalHelpdesk } from "@gw/sending";
import type { Client } from "@temporalio/client";
import type { FastifyInstance } from "fastify";

const notFound = { error: { code: "not_found", message: "Recurso não encontrado." } };

/**
 * `POST /v1/helpdesk/hooks/<secret>`: the URL a `helpdesk` app shows as `webhookUrl`, pasted as the
 * Chatwoot inbox's webhook (docs/helpdesk.md). The secret in the path is the only credential (an
 * unknown one is 404, like any unknown path). The inbox reports every message there; an agent's
 * public reply is handed to its chat's help-desk workflow, which sends it to the customer — the
 * answer (200) comes once Temporal holds it. Everything else is acknowledged and ignored.
 */
export function registerHelpdeskHook(
  app: FastifyInstance,
  platform: Platform,
  config: Config,
  temporal: () => Promise<Client>,
): void {
  app.post(`${HELPDESK_HOOK_PATH}/:secret`, async (req, reply) => {
    const helpdesk = await platform.apps.helpdeskByHook((req.params as { secret: string }).secret);
    if (!helpdesk) return reply.code(404).send(notFound);
    const parsed = chatwootWebhookSchema.safeParse(req.body);
    if (!parsed.success) {
      return reply
        .code(422)
        .send({ error: { code: "validation_error", message: "Corpo não é um webhook do Chatwoot." } });
    }
    const found = await agentReply(platform, helpdesk, parsed.data);
    if (typeof found === "string") return { ignored: found };
    try {
      await signalHelpdesk(await temporal(), config.TEMPORAL_TASK_QUEUE, found.target, [found.item]);
    } catch (err) {
      // Nothing holds the reply: say so (Chatwoot does not retry; docs/helpdesk.md, Limits).
      req.log.error({ err, appId: helpdesk.id }, "help desk: an agent's reply could not be taken");
      return reply
        .code(503)
        .header("retry-after", "5")
        .send({ error: { code: "network_unavailable", message: "Serviço temporariamente indisponível." } });
    }
    return { accepted: true };
  });
}

/** An agent's reply to send, or why the hook's message is not one. */
async function agentReply(platform: Platform, app: HelpdeskApp, hook: ReturnType<typeof chatwootWebhookSchema.parse>) {
  if (!app.enabled) return "app disabled";
  if (hook.event !== "message_created") return "not a new message";
  if (hook.message_type !== "outgoing" && hook.message_type !== 1) return "not outgoing";
  if (hook.private) return "private note";
  if (hook.source_id) return "relayed by the gateway"; // ours (WAID:…, notes), or another channel's
  if (hook.sender?.type === "contact") return "sent by the contact";
  if (hook.inbox && hook.inbox.id !== app.config.inboxId) return "another inbox";
  if (hook.account && hook.account.id !== app.config.accountId) return "another account";
  const conversation = hook.conversation;
  if (!conversation || hook.id === undefined) return "no conversation";
  const chatId =
    (await platform.redis.get(platform.keys.helpdeskConversation(app.id, conversation.id))) ??
    normalizeChatId(conversation.meta?.sender?.identifier ?? "") ??
    normalizeChatId(conversation.meta?.sender?.phone_number?.replace(/^\+/, "") ?? "");
  if (!chatId) return "conversation of an unknown chat";
  const attachments = (hook.attachments ?? []).map((a) => ({
    url: a.data_url,
    fileType: a.file_type ?? "file",
    name: a.file_name ?? null,
  }));
  const content = hook.content?.trim() ?? "";
  if (!content && attachments.length === 0) return "empty";
  const item: HelpdeskAgentItem = {
    kind: "agent",
    messageId: hook.id,
    conversationId: conversation.id,
    content,
    agentName: hook.sender?.name ?? null,
    attachments,
    inReplyTo: hook.content_attributes?.in_reply_to ?? null,
  };
  return { target: { instanceId: app.instanceId, appId: app.id, chatId }, item };
}
