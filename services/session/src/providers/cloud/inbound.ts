import type { InboundMessage, InboundParty, OutboundContent } from "@gw/contracts";
import type { AckInput } from "../../events/record.ts";
import { type AckStatus, NETWORK_ACKS } from "../contract.ts";
import { ackErrorOf } from "./errors.ts";
import { chatOfUser, networkIdOf } from "./ids.ts";
import { arr, type Obj, obj } from "./values.ts";

/**
 * The operator's `messages` webhooks (reference cloud-api.md §3.4, §3.5) and coexistence echoes
 * (§3.6 `smb_message_echoes`) → the provider contract's messages and acks. Pure: the processor
 * (process.ts) deduplicates, records and publishes.
 *
 * | operator `type` | `payload.type` |
 * |---|---|
 * | text | text |
 * | image, video, document, sticker | the same (media by signed link, downloaded when opened) |
 * | audio (`voice: true`) | voice, else audio |
 * | location, contacts | location, contact |
 * | interactive `button_reply` / `list_reply`, template `button` | button_reply / list_reply (`interactive` says which) |
 * | reaction | `message.reaction` (empty emoji: removed) |
 * | edit, revoke (coexistence) | `message.edited`, `message.revoked` |
 * | order, system, unsupported, anything else | unknown (text when it has one; `error` when the operator gives one) |
 */

export type CloudItem =
  | { kind: "message"; key: string; message: InboundMessage; rawMessage: unknown; window: boolean }
  | { kind: "ack"; key: string; ack: AckInput };

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const seconds = (v: unknown): number => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : Math.floor(Date.now() / 1000);
};

const MEDIA = ["image", "video", "document", "sticker", "audio"] as const;

/** Click-to-ad referral (spec 2.11 `referral`, all strings). */
function referralOf(r: unknown): Record<string, string> | null {
  const v = obj(r);
  if (Object.keys(v).length === 0) return null;
  const s = (k: string) => (typeof v[k] === "string" ? (v[k] as string) : "");
  return {
    sourceType: s("source_type"),
    sourceId: s("source_id"),
    sourceUrl: s("source_url"),
    headline: s("headline"),
    body: s("body"),
    mediaType: s("media_type"),
    clickId: s("ctwa_clid"),
  };
}

/** The content of a message object (the part the type names), as `type`, text and media. */
function contentOf(m: Obj): Pick<InboundMessage, "type" | "text" | "media" | "targetId" | "emoji" | "interactive"> & {
  content?: OutboundContent;
} {
  const type = str(m.type) ?? "unknown";
  const body = obj(m[type]);
  if ((MEDIA as readonly string[]).includes(type)) {
    const kind = type === "audio" && body.voice === true ? "voice" : type;
    return {
      type: kind,
      text: str(body.caption),
      media: { mimetype: str(body.mime_type) ?? "application/octet-stream", filename: str(body.filename) },
    };
  }
  switch (type) {
    case "text": {
      const text = str(body.body) ?? "";
      return { type: "text", text, media: null, ...(text ? { content: { type: "text", text } } : {}) };
    }
    case "location":
      return { type: "location", text: str(body.name) ?? str(body.address), media: null };
    case "contacts":
      return {
        type: "contact",
        text: str(obj(obj(arr(m.contacts)[0]).name).formatted_name),
        media: null,
      };
    case "interactive": {
      const kind = str(body.type) ?? "";
      const chosen = obj(body[kind]);
      const title = str(chosen.title) ?? "";
      const description = str(chosen.description);
      return {
        type: kind === "list_reply" ? "list_reply" : kind === "button_reply" ? "button_reply" : "unknown",
        text: title || null,
        media: null,
        interactive: { type: kind, id: str(chosen.id) ?? "", title, ...(description ? { description } : {}) },
      };
    }
    case "button":
      // A tap on a template's quick-reply button.
      return {
        type: "button_reply",
        text: str(body.text),
        media: null,
        interactive: { type: "template_button", id: str(body.payload) ?? "", title: str(body.text) ?? "" },
      };
    case "reaction":
      return {
        type: "reaction",
        text: null,
        media: null,
        targetId: str(body.message_id) ? networkIdOf(body.message_id as string) : null,
        emoji: str(body.emoji) ?? "",
      };
    case "edit": {
      const edited = obj(body.message);
      const inner = obj(edited[str(edited.type) ?? ""]);
      return {
        type: "edit",
        text: str(inner.body) ?? str(inner.caption),
        media: null,
        targetId: str(body.original_message_id) ? networkIdOf(body.original_message_id as string) : null,
      };
    }
    case "revoke":
      return {
        type: "revoke",
        text: null,
        media: null,
        targetId: str(body.original_message_id) ? networkIdOf(body.original_message_id as string) : null,
      };
    case "order":
      return { type: "unknown", text: str(body.text), media: null };
    case "system":
      return { type: "unknown", text: str(body.body), media: null };
    default:
      return { type: "unknown", text: null, media: null };
  }
}

/**
 * Why the operator could not hand a message over (`messages[].errors`, reference §3.4: 131051 on
 * an unsupported type, 131052 when the customer's media could not be fetched): the first error.
 */
function messageErrorOf(m: Obj): InboundMessage["error"] {
  const e = obj(arr(m.errors)[0]);
  if (Object.keys(e).length === 0) return null;
  return {
    code: typeof e.code === "number" ? e.code : null,
    message: str(e.title) ?? str(e.message) ?? "erro do operador",
    details: str(obj(e.error_data).details),
  };
}

interface ContactInfo {
  name: string | null;
  username: string | null;
  waId: string | null;
  userId: string | null;
}

function contactsOf(value: Obj): ContactInfo[] {
  return arr(value.contacts).map((c) => {
    const o = obj(c);
    const profile = obj(o.profile);
    return { name: str(profile.name), username: str(profile.username), waId: str(o.wa_id), userId: str(o.user_id) };
  });
}

/** Received messages and statuses of one `messages` change. */
export function messagesChange(value: unknown): CloudItem[] {
  const v = obj(value);
  const contacts = contactsOf(v);
  const out: CloudItem[] = [];
  for (const raw of arr(v.messages)) {
    const m = obj(raw);
    const wamid = str(m.id);
    const fromPhone = str(m.from);
    const fromUser = str(m.from_user_id);
    const chatId = chatOfUser(fromPhone, fromUser);
    if (!wamid || !chatId) continue;
    const contact =
      contacts.find((c) => (fromPhone && c.waId === fromPhone) || (fromUser && c.userId === fromUser)) ??
      contacts[0] ??
      null;
    const context = obj(m.context);
    const from: InboundParty = {
      id: chatId,
      phone: fromPhone,
      lid: null,
      pushName: contact?.name ?? contact?.username ?? null,
    };
    const c = contentOf(m);
    const error = messageErrorOf(m);
    const message: InboundMessage = {
      id: networkIdOf(wamid),
      chatId,
      chatLid: null,
      chatName: from.pushName,
      isGroup: false,
      fromMe: false,
      from,
      timestamp: seconds(m.timestamp),
      ...c,
      quotedId: str(context.id) ? networkIdOf(context.id as string) : null,
      ...(context.forwarded === true || context.frequently_forwarded === true ? { forwarded: true } : {}),
      referral: referralOf(m.referral),
      ...(error ? { error } : {}),
      raw: { ...m, ...(contact ? { contact: arr(v.contacts)[contacts.indexOf(contact)] } : {}) },
    };
    out.push({ kind: "message", key: `m:${wamid}`, message, rawMessage: m, window: true });
  }
  for (const raw of arr(v.statuses)) {
    const s = obj(raw);
    const wamid = str(s.id);
    const status = str(s.status);
    const chatId = chatOfUser(str(s.recipient_id), str(s.recipient_user_id));
    if (!wamid || !status || !NETWORK_ACKS.has(status) || !chatId || s.recipient_type === "group") continue;
    const error = arr(s.errors)[0];
    const pricing = obj(s.pricing);
    const conversation = obj(s.conversation);
    out.push({
      kind: "ack",
      key: `s:${wamid}:${status}`,
      ack: {
        id: networkIdOf(wamid),
        chatId,
        status: status as AckStatus,
        timestamp: seconds(s.timestamp),
        ...(error ? { error: ackErrorOf(obj(error)) } : {}),
        ...(Object.keys(pricing).length > 0
          ? {
              pricing: {
                category: pricing.category ?? null,
                type: pricing.type ?? null,
                billable: pricing.billable ?? null,
                pricingModel: pricing.pricing_model ?? null,
                ...(Object.keys(conversation).length > 0
                  ? {
                      conversation: {
                        id: conversation.id ?? null,
                        origin: obj(conversation.origin).type ?? null,
                        expiresAt: conversation.expiration_timestamp ? Number(conversation.expiration_timestamp) : null,
                      },
                    }
                  : {}),
              },
            }
          : {}),
      },
    });
  }
  return out;
}

/** Coexistence: messages the business sent from the business app or a linked device (`fromMe`, source `app`). */
export function echoesChange(value: unknown): CloudItem[] {
  const v = obj(value);
  const out: CloudItem[] = [];
  for (const raw of arr(v.message_echoes)) {
    const m = obj(raw);
    const wamid = str(m.id);
    const chatId = chatOfUser(str(m.to), str(m.to_user_id));
    if (!wamid || !chatId) continue;
    const c = contentOf(m);
    const context = obj(m.context);
    const message: InboundMessage = {
      id: networkIdOf(wamid),
      chatId,
      chatLid: null,
      // The operator names no one in an echo: the processor fills the name the instance knows (process.ts).
      chatName: null,
      isGroup: false,
      fromMe: true,
      from: { id: "", phone: null, lid: null, pushName: null },
      timestamp: seconds(m.timestamp),
      ...c,
      // A reply made in the business app names the message it answers, as received messages do.
      quotedId: str(context.id) ? networkIdOf(context.id as string) : null,
      ...(context.forwarded === true || context.frequently_forwarded === true ? { forwarded: true } : {}),
      origin: "phone",
      raw: m,
    };
    out.push({ kind: "message", key: `e:${wamid}:${c.type}`, message, rawMessage: m, window: false });
  }
  return out;
}
