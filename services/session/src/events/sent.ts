import { formatMessageId, type Instance, type OutboundContent, type SendOptions, type SendResult } from "@gw/contracts";

type Me = Pick<Instance, "phone" | "pushName">;

/** Spec 2.11 `payload.type` of what we sent. */
export function payloadType(content: OutboundContent): string {
  switch (content.type) {
    case "text":
    case "link_preview":
      return "text";
    case "contacts":
      return "contact";
    case "image":
    case "video":
    case "audio":
    case "voice":
    case "document":
    case "sticker":
    case "location":
    case "poll":
      return content.type;
    default:
      return "unknown";
  }
}

function textOf(content: OutboundContent): string | null {
  switch (content.type) {
    case "text":
    case "link_preview":
      return content.text;
    case "image":
    case "video":
    case "document":
      return content.caption ?? null;
    case "poll":
    case "event":
      return content.name;
    case "location":
      return content.name ?? null;
    default:
      return null;
  }
}

/** The content as `raw` carries it: media bytes left out (they are big and have their own link). */
function rawOf(content: OutboundContent): Record<string, unknown> {
  if ("media" in content) {
    const { data: _data, ...media } = content.media;
    return { ...content, media };
  }
  if (content.type === "link_preview" && content.preview.image) {
    const { data: _data, ...image } = content.preview.image;
    return { ...content, preview: { ...content.preview, image } };
  }
  return content;
}

export function meOf(instance: Me) {
  return {
    id: instance.phone ? `${instance.phone}@c.us` : "",
    phone: instance.phone,
    lid: null,
    pushName: instance.pushName,
  };
}

/**
 * The event a message sent through the API produces (spec 6.2 `message.any` with `fromMe`,
 * `source: "api"`, `status`), or the reaction/edit/revoke event of such a send. Null for sends
 * that are no message of their own (poll votes).
 */
export function sentEvent(
  instance: Me,
  chatId: string,
  content: OutboundContent,
  options: SendOptions,
  result: SendResult,
  avatarUrl: (chatId: string) => string,
  chat: { chatLid: string | null; chatName: string | null } = { chatLid: null, chatName: null },
): {
  kind: "message.any" | "message.reaction" | "message.edited" | "message.revoked";
  payload: Record<string, unknown>;
} | null {
  const id = formatMessageId({ fromMe: true, chatId: result.chatId || chatId, id: result.id });
  const base = {
    id,
    chatId: result.chatId || chatId,
    isGroup: (result.chatId || chatId).endsWith("@g.us"),
    fromMe: true,
    from: { ...meOf(instance), picture: instance.phone ? avatarUrl(`${instance.phone}@c.us`) : null },
    timestamp: result.timestamp,
    source: "api",
  };
  const target = (targetId: string) =>
    targetId.includes("_") ? targetId : formatMessageId({ fromMe: true, chatId: base.chatId, id: targetId });
  switch (content.type) {
    case "poll_vote":
      return null;
    case "reaction":
      return {
        kind: "message.reaction",
        payload: { ...base, messageId: target(content.targetId), emoji: content.emoji },
      };
    case "edit":
      return { kind: "message.edited", payload: { ...base, messageId: target(content.targetId), text: content.text } };
    case "revoke":
      return { kind: "message.revoked", payload: { ...base, messageId: target(content.targetId) } };
  }
  const media = "media" in content ? content.media : undefined;
  return {
    kind: "message.any",
    payload: {
      ...base,
      chatLid: chat.chatLid,
      chatName: chat.chatName,
      chatPicture: avatarUrl(base.chatId),
      type: payloadType(content),
      text: textOf(content),
      ...(media ? { media: { url: null, mimetype: media.mimetype, filename: media.filename ?? null } } : {}),
      status: "sent",
      quotedId: options.quotedApiId ?? (options.quotedId ? target(options.quotedId) : null),
      ...(options.mentions?.length ? { mentions: options.mentions } : {}),
      ...(options.forwarded ? { forwarded: true } : {}),
      raw: rawOf(content),
    },
  };
}
