import { z } from "zod";
import { DOC_PATTERNS, documented } from "./doc-patterns.ts";
import { invalid } from "./errors.ts";
import type { InstanceKind } from "./instance.ts";

/**
 * Conversation ids of spec 1: digits with country and area code become `<digits>@c.us`;
 * `@c.us` (and the network's `@s.whatsapp.net`), `@lid`, `@g.us`, `@newsletter`, `@bsuid` and
 * `status@broadcast` are kept. Anything else is not a chat id.
 */
const SUFFIXES = /^([\w.:+-]+)@(c\.us|s\.whatsapp\.net|lid|g\.us|newsletter|bsuid|broadcast)$/;

export function normalizeChatId(raw: string): string | null {
  const value = raw.trim();
  const digits = value.replace(/[\s()+.-]/g, "");
  if (/^\d{8,15}$/.test(digits)) return `${digits}@c.us`;
  const m = SUFFIXES.exec(value);
  if (!m) return null;
  const [, user, server] = m;
  const base = user!.split(":")[0]!; // a device suffix (`:12`) is not part of the chat
  if (server === "c.us" || server === "s.whatsapp.net") return /^\d{8,15}$/.test(base) ? `${base}@c.us` : null;
  if (server === "broadcast") return base === "status" ? "status@broadcast" : null;
  return base ? `${base}@${server}` : null;
}

/** Brazilian mobile numbers, with or without the ninth digit: the form the network knows varies. */
export function isBrazilianMobile(digits: string): boolean {
  return brazilianMobileAlternate(digits) !== null;
}

/**
 * The other form of a Brazilian mobile number (spec 1 rule 2): the ninth digit added when it
 * lacks it, removed when it has it; null for any other number. A customer registered as
 * `551188887777` is typed `5511988887777` as often as not.
 */
export function brazilianMobileAlternate(digits: string): string | null {
  if (/^55\d{2}9[6-9]\d{7}$/.test(digits)) return `${digits.slice(0, 4)}${digits.slice(5)}`;
  if (/^55\d{2}[6-9]\d{7}$/.test(digits)) return `${digits.slice(0, 4)}9${digits.slice(4)}`;
  return null;
}

/** A person (a mention, a group participant): a number or a privacy id, normalized; else null. */
export function normalizePersonId(raw: string): string | null {
  const id = normalizeChatId(raw);
  return id && (id.endsWith("@c.us") || id.endsWith("@lid")) ? id : null;
}

const chatIdMessage = "chatId inválido: use o número com DDI e DDD, ou um id @c.us, @lid, @g.us, @newsletter";

/** A chat id field: normalized, or a validation error on the field. */
export const chatIdSchema = documented(
  z.string().transform((raw, ctx) => {
    const id = normalizeChatId(raw);
    if (!id) {
      ctx.addIssue({ code: "custom", message: chatIdMessage });
      return z.NEVER;
    }
    return id;
  }),
  { pattern: DOC_PATTERNS.chat },
  { description: "Number with country and area code, or a JID" },
);

/** The request fields that name a chat: `chatId`, or its alias `phone` (spec 1 rule 1). */
export const chatFields = {
  chatId: documented(
    z.string().max(200).optional(),
    { pattern: DOC_PATTERNS.chatField },
    {
      description: "Number with country and area code, or a JID (`@c.us`, `@lid`, `@g.us`, `@newsletter`, `@bsuid`)",
    },
  ),
  phone: documented(
    z.string().max(200).optional(),
    { pattern: DOC_PATTERNS.chatField },
    { description: "Alias of chatId" },
  ),
};

/**
 * The normalized chat of a request, or null when none was given. A value that is not a chat id
 * is an `ApiError("validation_error")` with `details.chatId`.
 */
export function chatOf(input: { chatId?: string | undefined; phone?: string | undefined }): string | null {
  // An empty chatId does not hide a given phone (its alias).
  const chatGiven = Boolean(input.chatId?.trim());
  const raw = chatGiven ? input.chatId : input.phone;
  if (raw === undefined || raw.trim() === "") return null;
  const id = normalizeChatId(raw);
  if (!id) throw invalid("chatId", chatIdMessage);
  // The alias sent beside a chatId is validated too: a field that is sent is never ignored
  // unread (schemathesis sent `phone: "\u0084"` beside a good chatId and got 200).
  if (chatGiven && input.phone?.trim() && !normalizeChatId(input.phone)) throw invalid("phone", chatIdMessage);
  return id;
}

/** Like {@link chatOf}, but the chat is required: `details.chatId` "informe o chatId" when absent. */
export function requireChat(input: { chatId?: string | undefined; phone?: string | undefined }): string {
  const id = chatOf(input);
  if (!id) throw invalid("chatId", "informe o chatId");
  return id;
}

/**
 * Whether an instance of `kind` can address `chatId` (spec 1): the operator's Cloud API reaches
 * customers only, by number or by business-scoped user id (`@bsuid`); the multi-device network has
 * no business-scoped ids. Null when it can; else why not (the 422's `details.chatId`). Checked
 * before a send is queued, so that a queued item never fails on it later.
 */
export function chatKindRule(kind: InstanceKind, chatId: string): string | null {
  if (kind === "official") {
    if (chatId.endsWith("@c.us") || chatId.endsWith("@bsuid")) return null;
    return "no gateway oficial, o destino é um número (ou um id @bsuid); grupos, canais e status não existem";
  }
  if (chatId.endsWith("@bsuid"))
    return "ids @bsuid só existem no gateway oficial: use o número ou o chatId da conversa";
  return null;
}
