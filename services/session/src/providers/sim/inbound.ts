import type { InboundMessage, OutboundContent } from "@gw/contracts";

type Party = { id: string; phone: string | null; lid: string | null; pushName: string | null };
type Content = { type: string; [k: string]: unknown };

/** simnet's `message` frame (docs/simnet.md). */
export interface SimMessageFrame {
  id: string;
  chatId: string;
  chatLid?: string | null;
  /** One-to-one chats on one address only (simnet's addressing rules): `lid` or `pn`. */
  addressingMode?: "lid" | "pn";
  chatName?: string | null;
  isGroup: boolean;
  fromMe: boolean;
  from: Party;
  timestamp: number;
  message: Content;
  quotedId?: string;
  mentions?: string[];
  forwarded?: boolean;
  origin?: "device" | "phone";
}

const MEDIA = new Set(["image", "video", "audio", "voice", "document", "sticker"]);

const str = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * The frame as `raw` (the events' and read model's `_data`) without its media's base64: the
 * bytes reach the media store with the message (`mediaData`, `content`), never an event stream.
 */
function rawOf(f: SimMessageFrame): SimMessageFrame {
  const media = f.message.media;
  if (!media || typeof media !== "object" || !("data" in media)) return f;
  const { data: _bytes, ...rest } = media as Record<string, unknown>;
  return { ...f, message: { ...f.message, media: rest } };
}

/** A simnet message frame in the provider contract's inbound shape. */
export function simInbound(f: SimMessageFrame): InboundMessage {
  const c = f.message;
  const base: InboundMessage = {
    id: String(f.id),
    chatId: String(f.chatId),
    chatLid: f.chatLid ?? null,
    chatName: f.chatName ?? null,
    isGroup: Boolean(f.isGroup),
    fromMe: Boolean(f.fromMe),
    from: { id: f.from.id, phone: f.from.phone ?? null, lid: f.from.lid ?? null, pushName: f.from.pushName ?? null },
    timestamp: Number(f.timestamp),
    type: "unknown",
    text: null,
    media: null,
    quotedId: f.quotedId ?? null,
    ...(f.mentions ? { mentions: f.mentions } : {}),
    ...(f.forwarded ? { forwarded: true } : {}),
    origin: f.origin ?? null,
    raw: rawOf(f),
    content: c as unknown as OutboundContent,
  };
  if (MEDIA.has(c.type)) {
    const media = (c.media ?? {}) as { data?: string; mimetype?: string; filename?: string };
    return {
      ...base,
      type: c.type,
      text: str(c.caption),
      media: { mimetype: media.mimetype ?? "application/octet-stream", filename: media.filename ?? null },
      mediaData: media.data ?? null,
    };
  }
  switch (c.type) {
    case "text":
    case "link_preview":
      return { ...base, type: "text", text: str(c.text) };
    case "location":
      return { ...base, type: "location", text: str(c.name) };
    case "contacts":
      return { ...base, type: "contact" };
    case "poll":
      return { ...base, type: "poll", text: str(c.name) };
    case "poll_vote":
      return {
        ...base,
        type: "poll_vote",
        targetId: str(c.pollId),
        selectedOptions: Array.isArray(c.votes) ? c.votes.map(String) : [],
      };
    case "event_response":
      return { ...base, type: "event_response", targetId: str(c.targetId), response: str(c.response) ?? "" };
    case "reaction":
      return { ...base, type: "reaction", targetId: str(c.targetId), emoji: str(c.emoji) ?? "" };
    case "edit":
      return { ...base, type: "edit", targetId: str(c.targetId), text: str(c.text) };
    case "revoke":
      return { ...base, type: "revoke", targetId: str(c.targetId) };
    default:
      return { ...base, text: str(c.name) ?? str(c.title) };
  }
}
