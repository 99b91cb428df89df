import type { SendOptions } from "@gw/contracts";
import {
  isJidGroup,
  isJidNewsletter,
  jidDecode,
  jidNormalizedUser,
  type MiscMessageGenerationOptions,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { isBareMessageId, parseMessageId, toUserJid } from "../jids.ts";
import { invalidField, type OutboundContext } from "./outbound-context.ts";

/**
 * The send's options and the messages a content names (outbound.ts): our id as the network id,
 * a status post's audience and style, mentions (`all` = the group's participants), the message
 * quoted, and the key of the message a reaction, edit or revoke targets.
 */

/** The network id of the `id` option: the id part of our format, else a bare id as given. */
export function messageIdOption(id: string): string {
  const parsed = parseMessageId(id);
  if (parsed?.id) return parsed.id;
  if (!isBareMessageId(id)) throw invalidField("id", "use só letras e dígitos");
  return id.trim();
}

/**
 * A status post's options (README "Send Broadcast & Stories"): the audience as `statusJidList`
 * (only their devices get it: messages-send.js addresses nobody else), the style as Baileys'
 * `backgroundColor` (a hex string: a number is lost by rc14's `assertColor`) and `font`.
 * `broadcast: true` as the README shows it (rc14 reads it nowhere).
 *
 * Our own account is in the list, or the post never reaches our phone. Baileys encrypts a status
 * as our LID when we have one (the sender-key identity of `status@broadcast`, addressing `lid` by
 * default), and the network refuses a LID-sent post to an audience named by number (ack error
 * 479, Baileys#2794): with a LID, the audience goes by LID wherever the pair is known.
 */
export async function statusOptions(
  status: SendOptions["status"],
  ctx: OutboundContext,
): Promise<MiscMessageGenerationOptions> {
  if (!status?.audience.length) throw invalidField("contacts", "informe quem vê o status");
  const byLid = Boolean(ctx.me?.lid);
  const list = new Set<string>();
  for (const id of status.audience) {
    const jid = toUserJid(id);
    if (!jid) throw invalidField("contacts", `contato inválido: ${id.slice(0, 40)}`);
    const lid = byLid && !jid.endsWith("@lid") ? await ctx.lidOf?.(jid).catch(() => null) : null;
    list.add(lid ? jidNormalizedUser(lid) : jid);
  }
  const own = byLid ? ctx.me?.lid : ctx.me?.id;
  if (own) list.add(jidNormalizedUser(own));
  return {
    statusJidList: [...list],
    broadcast: true,
    ...(status.backgroundColor ? { backgroundColor: status.backgroundColor } : {}),
    ...(status.font !== undefined ? { font: status.font } : {}),
  };
}

/** Mentions as JIDs; `all` is the group's participants but us. */
export async function resolveMentions(jid: string, mentions: string[], ctx: OutboundContext): Promise<string[]> {
  const out = new Set<string>();
  for (const m of mentions) {
    if (m.trim().toLowerCase() === "all") {
      if (!isJidGroup(jid)) throw invalidField("mentions", '"all" só vale em grupos');
      const self = new Set([userOf(ctx.me?.id), userOf(ctx.me?.lid)].filter(Boolean));
      for (const p of await ctx.groupParticipants(jid)) if (!self.has(userOf(p))) out.add(p);
      continue;
    }
    const user = toUserJid(m);
    if (!user) throw invalidField("mentions", `use <número>@c.us ou "all" (recebido: ${m.slice(0, 40)})`);
    out.add(user);
  }
  return [...out];
}

function userOf(jid: string | null | undefined): string {
  if (!jid) return "";
  const d = jidDecode(jid);
  return d ? `${d.user}@${d.server}` : jid;
}

/**
 * The message to quote. Baileys builds the quote (`contextInfo.stanzaId`, `participant`,
 * `quotedMessage`) from a full `WAMessage`; the phone draws the quote bubble from
 * `quotedMessage`, so a key alone would send a reply without a visible quote. Unknown → 422.
 */
export async function resolveQuoted(jid: string, quotedId: string, ctx: OutboundContext): Promise<WAMessage> {
  if (isJidNewsletter(jid)) throw invalidField("reply_to", "canais não aceitam respostas");
  const key = keyFromId(jid, quotedId, "reply_to");
  const stored = await ctx.loadMessage(key);
  if (!stored?.message || !stored.key?.id) throw invalidField("reply_to", "mensagem não encontrada");
  // Baileys names the quote's chat (`contextInfo.remoteJid`) when the key's differs from where the
  // reply goes (messages.js): the other address of this very chat would show as another chat.
  return { ...stored, key: inConversation(stored.key, jid, ctx) };
}

/** A key of this conversation (either of its addresses) as the destination names it; others as they are. */
function inConversation(key: WAMessageKey, jid: string, ctx: OutboundContext): WAMessageKey {
  const remote = key.remoteJid ? jidNormalizedUser(key.remoteJid) : undefined;
  const ours = remote && remote !== jid && (ctx.conversation ?? []).some((c) => jidNormalizedUser(c) === remote);
  return ours ? { ...key, remoteJid: jid } : key;
}

function keyFromId(jid: string, id: string, field: string): WAMessageKey {
  const parsed = parseMessageId(id);
  if (parsed) return parsed;
  if (isBareMessageId(id)) return { remoteJid: jid, id: id.trim() };
  throw invalidField(field, "use o id no formato {fromMe}_{chatId}_{id}[_{participant}]");
}

/**
 * The key of a message to react to, edit or revoke. Our id format carries everything
 * (`fromMe`, chat, id, group sender); a stored message, when there is one, gives the exact key the
 * network used. A bare id works for edits and deletions (they can only target our own messages,
 * group admins aside); a reaction needs to know who sent the target.
 */
export async function resolveTarget(
  jid: string,
  targetId: string,
  purpose: "reaction" | "edit" | "revoke",
  ctx: OutboundContext,
): Promise<WAMessageKey> {
  const parsed = parseMessageId(targetId);
  const lookup = parsed ?? keyFromId(jid, targetId, "messageId");
  const stored = (await ctx.loadMessage(lookup))?.key;
  let key: WAMessageKey;
  if (stored?.id && stored.remoteJid) key = inConversation(stored, jid, ctx);
  else if (parsed) key = inConversation(parsed, jid, ctx);
  else if (purpose === "reaction") {
    throw invalidField(
      "messageId",
      "mensagem não encontrada; use o id completo {fromMe}_{chatId}_{id}[_{participant}]",
    );
  } else key = { ...lookup, fromMe: true };

  if (purpose === "edit" && !key.fromMe) {
    throw invalidField("messageId", "só é possível editar mensagens enviadas por este número");
  }
  if (purpose === "revoke" && !key.fromMe && !isJidGroup(key.remoteJid ?? undefined)) {
    throw invalidField("messageId", "só é possível apagar para todos mensagens enviadas por este número");
  }
  if (isJidGroup(key.remoteJid ?? undefined) && !key.fromMe && !key.participant) {
    throw invalidField("messageId", "em grupos, o id de mensagem recebida precisa do participante (_{participant})");
  }
  return key;
}
