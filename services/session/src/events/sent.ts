import { formatMessageId, type Instance, type OutboundContent, type SendOptions, type SendResult } from "@gw/contracts";

type Me = Pick<Instance, "phone" | "pushName" | "kind">;

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
    case "buttons":
      return "text";
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
    case "buttons":
      return content.text;
    case "list":
      return content.title;
    case "location":
      return content.name ?? null;
    default:
      return null;
  }
}

/**
 * The content as `raw` carries it: media bytes left out. `raw` goes into the event's history and
 * dispatch streams and the webhook deliveries, all in Redis, where no media byte belongs (docs/media.md
 * "Where media bytes live"): the bytes are the media store's, behind the message's own link.
 */
function rawOf(content: OutboundContent): Record<string, unknown> {
  if ("media" in content) {
    const { data: _data, ...media } = content.media;
    return { ...content, media };
  }
  // A template's or reply buttons' header file (official instances): the same bytes, one level down.
  if ((content.type === "buttons" || content.type === "template") && content.header && "media" in content.header) {
    const { data: _data, ...media } = content.header.media;
    return { ...content, header: { ...content.header, media } };
  }
  if (content.type === "link_preview" && content.preview.image) {
    const { data: _data, ...image } = content.preview.image;
    return { ...content, preview: { ...content.preview, image } };
  }
  return content;
}

/**
 * The event a message sent through the API produces (spec 6.2 `message.any` with `fromMe`,
 * `source: "api"`, `status`), or the reaction/edit/revoke event of such a send. A poll vote is
 * `poll.vote`, shaped as a vote from the phone (events/inbound.ts): `type: "poll_vote"`, the
 * poll's id (`chat.targetFromMe`: whether the poll is ours; a network id names someone else's
 * unless known) and `selectedOptions`.
 */
export function sentEvent(
  instance: Me,
  chatId: string,
  content: OutboundContent,
  options: SendOptions,
  result: SendResult,
  avatarUrl: (chatId: string) => string | null,
  chat: { chatLid: string | null; chatName: string | null; targetFromMe?: boolean | null } = {
    chatLid: null,
    chatName: null,
  },
): {
  kind: "message.any" | "message.reaction" | "message.edited" | "message.revoked" | "poll.vote";
  payload: Record<string, unknown>;
} | null {
  // Built field by field (no spread of a common base): on Node 20's V8 every property added to an
  // object made by spreading another takes a slow path (~1.5 µs each, measured), and this runs for
  // every send.
  const shownChat = result.chatId || chatId;
  // Edits and revocations name our own messages; a reaction names whichever it reacts to (`chat.targetFromMe`).
  const target = (targetId: string, fromMe = true) =>
    targetId.includes("_") ? targetId : formatMessageId({ fromMe, chatId: shownChat, id: targetId });
  const payload: Record<string, unknown> = {
    id: formatMessageId({ fromMe: true, chatId: shownChat, id: result.id }),
    chatId: shownChat,
    isGroup: shownChat.endsWith("@g.us"),
    fromMe: true,
    // Spec 1 rule 8: the account itself, empty on official-gateway instances.
    from:
      instance.kind === "official"
        ? { id: "", phone: "", lid: null, pushName: "", picture: null }
        : {
            id: instance.phone ? `${instance.phone}@c.us` : "",
            phone: instance.phone,
            lid: null,
            pushName: instance.pushName,
            picture: instance.phone ? avatarUrl(`${instance.phone}@c.us`) : null,
          },
    timestamp: result.timestamp,
    source: "api",
  };
  payload.chatLid = chat.chatLid;
  payload.chatName = chat.chatName;
  payload.chatPicture = avatarUrl(shownChat);
  switch (content.type) {
    // Messages about another message: `type` names what they are, as received ones (events/inbound.ts).
    case "reaction":
      payload.type = "reaction";
      payload.messageId = target(content.targetId, chat.targetFromMe ?? true);
      payload.emoji = content.emoji;
      return { kind: "message.reaction", payload };
    case "edit":
      payload.type = "edit";
      payload.messageId = target(content.targetId);
      payload.text = content.text;
      return { kind: "message.edited", payload };
    case "revoke":
      payload.type = "revoke";
      payload.messageId = target(content.targetId);
      return { kind: "message.revoked", payload };
    case "poll_vote":
      payload.type = "poll_vote";
      payload.pollId = content.pollId.includes("_")
        ? content.pollId
        : formatMessageId({ fromMe: chat.targetFromMe ?? false, chatId: shownChat, id: content.pollId });
      payload.selectedOptions = content.votes;
      payload.raw = rawOf(content);
      return { kind: "poll.vote", payload };
  }
  const media = "media" in content ? content.media : undefined;
  payload.type = payloadType(content);
  payload.text = textOf(content);
  if (media) payload.media = { url: null, mimetype: media.mimetype, filename: media.filename ?? null };
  payload.status = "sent";
  payload.quotedId = options.quotedApiId ?? (options.quotedId ? target(options.quotedId) : null);
  if (options.mentions?.length) payload.mentions = options.mentions;
  if (options.forwarded) payload.forwarded = true;
  if (content.type === "template") payload.template = { name: content.name, language: content.language };
  payload.raw = rawOf(content);
  return { kind: "message.any", payload };
}
