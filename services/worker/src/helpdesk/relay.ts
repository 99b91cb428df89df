import { HELPDESK_SOURCE_PREFIX, type HelpdeskEventItem } from "@gw/contracts";
import type { HelpdeskApp, Platform } from "@gw/platform";
import { messageMedia, type SessionDirectory } from "@gw/session";
import { type ChatwootClient, ChatwootError, type NewMessage } from "./chatwoot.ts";
import { helpdeskMappings, networkIdOf } from "./mappings.ts";
import { type Place, phoneOf, placeOf } from "./place.ts";

type Payload = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export interface RelayDeps {
  platform: Pick<Platform, "redis" | "keys" | "messages" | "media">;
  sessions: SessionDirectory;
}

/**
 * One of the instance's events shown in the help desk (docs/helpdesk.md): a message (the
 * customer's `incoming`, the account's — phone or API — `outgoing`), a reaction, an edit, a
 * revocation. Exactly once per our message: its help-desk message carries `source_id`
 * `WAID:<network id>`; the mapping is written after the help desk answers, and an attempt after a
 * failed one looks for that `source_id` among the conversation's latest messages before creating
 * (the answer may have been lost after the message was made).
 */
export async function relayEvent(
  deps: RelayDeps,
  app: HelpdeskApp,
  client: ChatwootClient,
  item: HelpdeskEventItem,
  retrying: boolean,
): Promise<"relayed" | "skipped"> {
  const p = item.payload;
  const id = str(p.id);
  const chatId = str(p.chatId);
  if (!id || !chatId) return "skipped";
  // A message by its network id; a reaction, an edit or a revocation by its event.
  const key = item.event === "message.any" ? networkIdOf(id) : item.eventId;
  const mappings = helpdeskMappings(deps.platform, app.id);
  // Relayed already, or the agent's own reply coming back as the account's message.
  if (await mappings.has(key)) return "skipped";

  if (item.event === "message.revoked") {
    const target = await mapped(mappings, p.messageId);
    if (target) {
      await client.deleteMessage(target.conversationId, target.messageId).catch((err) => {
        if (!(err instanceof ChatwootError && err.status === 404)) throw err;
      });
    }
    await mappings.set(key, "revoked");
    return target ? "relayed" : "skipped";
  }
  if (item.event === "message.reaction" && !str(p.emoji)) return "skipped"; // a reaction taken back

  const place = await placeOf(deps.platform, app, client, {
    chatId,
    name: nameOf(p, chatId),
    incoming: p.fromMe !== true,
  });
  const message = await compose(deps, app, item, place, mappings);
  const sourceId = HELPDESK_SOURCE_PREFIX + key;
  message.source_id = sourceId;
  let created: number | undefined;
  if (retrying) {
    created = (await client.latestMessages(place.conversationId)).find((m) => m.source_id === sourceId)?.id;
  }
  created ??= (await client.createMessage(place.conversationId, message)).id;
  await mappings.set(key, { conversationId: place.conversationId, messageId: created });
  return "relayed";
}

type Mappings = ReturnType<typeof helpdeskMappings>;
const mapped = (mappings: Mappings, apiId: unknown) => {
  const id = str(apiId);
  return id ? mappings.of(id) : Promise.resolve(null);
};

function nameOf(p: Payload, chatId: string): string {
  const from = (p.from ?? {}) as Payload;
  const isGroup = p.isGroup === true;
  return str(p.chatName) ?? (!isGroup && p.fromMe !== true ? str(from.pushName) : null) ?? phoneOf(chatId) ?? chatId;
}

async function compose(
  deps: RelayDeps,
  app: HelpdeskApp,
  item: HelpdeskEventItem,
  place: Place,
  mappings: Mappings,
): Promise<NewMessage> {
  const p = item.payload;
  const type = p.fromMe === true ? "outgoing" : "incoming";
  const attributes: Record<string, unknown> = {};
  const replyTo = await mapped(mappings, item.event === "message.any" ? p.quotedId : p.messageId);
  if (replyTo && replyTo.conversationId === place.conversationId) attributes.in_reply_to = replyTo.messageId;
  let content: string;
  let attachment: NewMessage["attachment"];
  switch (item.event) {
    case "message.reaction":
      content = str(p.emoji) ?? "";
      attributes.is_reaction = true;
      break;
    case "message.edited":
      content = `✏️ ${str(p.text) ?? ""}`;
      break;
    default: {
      content = str(p.text) ?? "";
      const media = p.media as { mimetype?: string; filename?: string | null } | undefined;
      if (media) {
        const found = await messageMedia(deps.platform, deps.sessions, app.instanceId, networkIdOf(String(p.id)));
        // Read whole from the media store: the help desk's upload is one multipart body.
        const bytes = found ? await deps.platform.media.read(app.instanceId, found.media.sha256) : null;
        if (found && bytes) {
          attachment = {
            filename: found.filename ?? media.filename ?? `${String(p.type)}.${extOf(found.mimetype)}`,
            mimetype: found.mimetype,
            bytes,
          };
        } else content ||= `[${String(p.type)}: mídia indisponível]`;
      }
      if (!content && !attachment) content = `[${String(p.type ?? "mensagem")}]`;
    }
  }
  // In a group, whose words they are.
  if (p.isGroup === true && p.fromMe !== true) {
    const from = (p.from ?? {}) as Payload;
    const who = str(from.pushName) ?? str(from.phone) ?? str(from.id) ?? "?";
    content = `**${who}:**\n${content}`;
  }
  return {
    content,
    message_type: type,
    ...(Object.keys(attributes).length ? { content_attributes: attributes } : {}),
    ...(attachment ? { attachment } : {}),
  };
}

const extOf = (mimetype: string) => mimetype.split("/")[1]?.split(/[;+]/)[0] ?? "bin";
