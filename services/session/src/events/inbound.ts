import { formatMessageId, type InboundMessage } from "@gw/contracts";
import type { IdentityMap } from "@gw/platform";

export type InboundKind =
  | "message"
  | "message.reaction"
  | "message.edited"
  | "message.revoked"
  | "poll.vote"
  | "event.response";

/**
 * A provider's message → the spec 2.11 payload, with privacy ids rewritten to numbers where the
 * instance knows them (spec 1 rules 3–4: the lid stays in `chatLid` / `from.lid`).
 * `mediaUrl` is the signed link of the message's media, when it has any.
 */
export async function inboundPayload(
  instanceId: string,
  m: InboundMessage,
  identity: IdentityMap,
  opts: {
    mediaUrl: (apiId: string) => string | null;
    avatarUrl: (chatId: string) => string | null;
    quotedFromMe: (networkId: string) => Promise<boolean | null>;
    /** The chat's name as the instance knows it, for messages whose provider gives none (spec 1 rule 7). */
    chatName?: (chatId: string) => Promise<string | null>;
  },
): Promise<{ kind: InboundKind; apiId: string; chatId: string; payload: Record<string, unknown> }> {
  // Learn what this message reveals, then rewrite with everything known.
  if (m.chatLid && m.chatId.endsWith("@c.us")) await identity.learn(instanceId, m.chatLid, m.chatId.split("@")[0]!);
  if (m.from.lid && m.from.phone) await identity.learn(instanceId, m.from.lid, m.from.phone);
  const chatId = (await identity.rewrite(instanceId, m.chatId)) ?? m.chatId;
  const chatLid = m.chatLid ?? (m.chatId.endsWith("@lid") ? m.chatId : null);
  const fromId = (await identity.rewrite(instanceId, m.from.id)) ?? m.from.id;
  const fromLid = m.from.lid ?? (m.from.id.endsWith("@lid") ? m.from.id : null);
  const fromPhone = m.from.phone ?? (fromId.endsWith("@c.us") ? fromId.split("@")[0]! : null);
  const participant = m.isGroup && !m.fromMe ? fromId : undefined;
  const apiId = formatMessageId({ fromMe: m.fromMe, chatId, id: m.id, ...(participant ? { participant } : {}) });
  const ref = async (networkId: string | null | undefined, known?: boolean | null) => {
    if (!networkId) return null;
    const fromMe = known ?? (await opts.quotedFromMe(networkId)) ?? false;
    return formatMessageId({ fromMe, chatId, id: networkId });
  };
  const base = {
    id: apiId,
    chatId,
    chatLid,
    isGroup: m.isGroup,
    chatName: m.chatName ?? (opts.chatName ? await opts.chatName(chatId) : null),
    chatPicture: opts.avatarUrl(chatId),
    fromMe: m.fromMe,
    from: {
      id: fromId,
      phone: fromPhone ?? "",
      lid: fromLid,
      pushName: m.from.pushName ?? "",
      picture: fromId ? opts.avatarUrl(fromId) : null,
    },
    timestamp: m.timestamp,
    ...(m.fromMe ? { source: m.origin === "device" || m.origin === "phone" ? "app" : "api" } : {}),
  };
  const raw = m.raw;
  // Messages about another message: `type` names what they are (docs/webhooks.md, "payload.type").
  const about = { ...base, type: m.type };
  const target = () => ref(m.targetId, m.targetFromMe);
  switch (m.type) {
    case "reaction":
      return {
        kind: "message.reaction",
        apiId,
        chatId,
        payload: {
          ...about,
          messageId: await target(),
          emoji: m.emoji ?? "",
          // A channel post's reaction: the post's sequence number, and its count when the network tells it.
          ...(m.serverId ? { serverId: m.serverId } : {}),
          ...(typeof m.count === "number" ? { count: m.count } : {}),
          raw,
        },
      };
    case "edit":
      return {
        kind: "message.edited",
        apiId,
        chatId,
        payload: { ...about, messageId: await target(), text: m.text, raw },
      };
    case "revoke":
      return { kind: "message.revoked", apiId, chatId, payload: { ...about, messageId: await target(), raw } };
    case "event_response":
      return {
        kind: "event.response",
        apiId,
        chatId,
        payload: { ...about, eventId: await target(), response: m.response ?? "", raw },
      };
    case "poll_vote":
      return {
        kind: "poll.vote",
        apiId,
        chatId,
        payload: { ...about, pollId: await target(), selectedOptions: m.selectedOptions ?? [], raw },
      };
  }
  const url = m.media ? opts.mediaUrl(apiId) : null;
  return {
    kind: "message",
    apiId,
    chatId,
    payload: {
      ...base,
      type: m.type,
      text: m.text,
      ...(m.media ? { media: { url, mimetype: m.media.mimetype, filename: m.media.filename ?? null } } : {}),
      ...(m.fromMe ? { status: "sent" } : {}),
      quotedId: await ref(m.quotedId),
      ...(m.mentions?.length
        ? { mentions: await Promise.all(m.mentions.map((x) => identity.rewrite(instanceId, x))) }
        : {}),
      ...(m.forwarded ? { forwarded: true } : {}),
      referral: m.referral ?? null,
      ...(m.interactive ? { interactive: m.interactive } : {}),
      ...(m.error ? { error: m.error } : {}),
      raw,
    },
  };
}
