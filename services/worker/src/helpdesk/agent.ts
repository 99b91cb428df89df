import {
  ApiError,
  type HelpdeskAgentItem,
  type SendRequest,
  type SendResponse,
  type SendRoute,
  sendBodies,
} from "@gw/contracts";
import type { HelpdeskApp, Platform } from "@gw/platform";
import type { SendService } from "@gw/sending";
import type { ChatwootClient } from "./chatwoot.ts";
import { helpdeskMappings, networkIdOf } from "./mappings.ts";

export interface AgentDeps {
  platform: Pick<Platform, "redis" | "keys" | "instanceCache">;
  send: SendService;
}

/** Chatwoot's attachment kinds → our send routes; anything else goes as a document. */
const ROUTE_OF: Record<string, SendRoute> = { image: "image", video: "video", audio: "voice", file: "file" };

/**
 * An agent's reply, sent to the customer through the normal send path (immediately: the agent
 * is waiting). Each part (the text, each attachment) is keyed by the help desk's message id, so a
 * retry never sends twice; every sent message is mapped to the agent's message before the next
 * part, so its `message.any` coming back is not echoed into the help desk. A refusal (window closed,
 * invalid number, a file the network does not take) becomes a private note in the conversation.
 */
export async function sendAgentReply(
  deps: AgentDeps,
  app: HelpdeskApp,
  client: ChatwootClient,
  chatId: string,
  item: HelpdeskAgentItem,
): Promise<"sent" | "refused"> {
  const instance = await deps.platform.instanceCache.get(app.instanceId);
  if (!instance) return "refused";
  const text =
    app.config.signAgentName && item.agentName && item.content ? `*${item.agentName}:*\n${item.content}` : item.content;
  const parts: { route: SendRoute; body: Record<string, unknown> }[] = item.attachments.map((a, i) => {
    const route = ROUTE_OF[a.fileType] ?? "file";
    const file = { url: a.url, ...(a.name ? { filename: a.name } : route === "file" ? { filename: "arquivo" } : {}) };
    const caption = i === 0 && text && route !== "voice" ? { caption: text } : {};
    return {
      route,
      body: { chatId, file, ...caption, ...(route === "voice" || route === "video" ? { convert: true } : {}) },
    };
  });
  // Voice notes take no caption: the text goes on its own, first.
  if (text && (parts.length === 0 || parts[0]?.route === "voice"))
    parts.unshift({ route: "text", body: { chatId, text } });
  const mappings = helpdeskMappings(deps.platform, app.id);
  try {
    for (const [i, part] of parts.entries()) {
      const parsed = sendBodies[part.route].safeParse(part.body);
      if (!parsed.success)
        throw new ApiError("validation_error", parsed.error.issues[0]?.message ?? "mensagem inválida");
      const answer = await deps.send.submit(instance, { route: part.route, body: parsed.data } as SendRequest, {
        queue: false,
        idempotencyKey: `helpdesk-${app.id}-${item.messageId}-${i}`,
      });
      const sent = answer.body as SendResponse;
      await mappings.set(networkIdOf(sent.id), { conversationId: item.conversationId, messageId: item.messageId });
    }
    return "sent";
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500 || err.code === "rate_limited") throw err; // try again
    await client.createMessage(item.conversationId, {
      content: `⚠️ Não entregue ao cliente (${err.code}): ${err.message}`,
      message_type: "outgoing",
      private: true,
      source_id: `GWNOTE:${item.messageId}`,
    });
    return "refused";
  }
}
