import { ApiError, invalid, type OutboundContent, type OutboundMedia, type SendOptions } from "@gw/contracts";
import {
  type AnyMessageContent,
  extractImageThumb,
  isJidGroup,
  isJidNewsletter,
  jidDecode,
  jidNormalizedUser,
  type MiscMessageGenerationOptions,
  type proto,
  type WAMessage,
  type WAMessageKey,
  type WAUrlInfo,
} from "@whiskeysockets/baileys";
import { isBareMessageId, parseMessageId, STATUS_JID, toJid, toUserJid } from "./jids.ts";
import { buildVCard } from "./vcard.ts";

/**
 * The gateway's normalized outbound content (`@gw/contracts` outbound.ts) as Baileys' send shapes
 * (reference §5.1). Everything here is deterministic given its inputs: lookups that need the
 * network or a store (group participants, stored messages) come in through {@link OutboundContext}.
 *
 * | content            | Baileys `AnyMessageContent`                                                        |
 * |--------------------|------------------------------------------------------------------------------------|
 * | text               | `{text}`; with a link, `linkPreview`: ours (`ctx.linkPreview`) or `null` (never Baileys') |
 * | image              | `{image, mimetype, caption}`                                                       |
 * | video              | `{video, mimetype, caption}`; `asNote` → `{video, ptv: true}` (round note, no caption) |
 * | audio              | `{audio, mimetype, ptt: false}`                                                    |
 * | voice              | `{audio, mimetype: "audio/ogg; codecs=opus" (for OGG/Opus), ptt: true, seconds}`    |
 * | document           | `{document, mimetype, fileName, caption}`                                          |
 * | sticker            | `{sticker, mimetype: "image/webp", isAnimated}` (WebP only; VP8X animation flag)   |
 * | location           | `{location: {degreesLatitude, degreesLongitude, name, address, url}}`              |
 * | contacts           | `{contacts: {displayName, contacts: [{displayName, vcard}]}}` (vCard 3.0, `waid=`)  |
 * | poll               | `{poll: {name, values, selectableCount: multipleAnswers ? 0 : 1}}` (quote yes; mentions/forwarded 422) |
 * | poll_vote          | not here: the session encrypts it with the stored poll's secret (poll-vote.ts)       |
 * | reaction           | `{react: {text: emoji, key}}` (key from our id)                                    |
 * | edit               | `{text, edit: key}` (own messages only)                                            |
 * | revoke             | `{delete: key}` (own messages; others' only in groups, as admin)                   |
 * | event              | `{event: {name, description, startDate, endDate, location: {name}, extraGuestsAllowed}}` |
 * | link_preview       | `{text, linkPreview: {title, description, canonical-url, matched-text, jpegThumbnail}}` |
 *
 * Options: `id` → `messageId` (a retry keeps the network id); `quotedId` → `quoted` (the full stored
 * message, else 422 `reply_to`); `mentions` → `mentions` JIDs (`all` = the group's participants);
 * `forwarded` → `contextInfo {isForwarded, forwardingScore: 1}`; to `status@broadcast`, `status` →
 * `statusJidList` (the audience), `backgroundColor`, `font`, `broadcast: true`.
 */

// ── the mapping ──────────────────────────────────────────────────────────────

/** What the mapping asks of the session: our account, stored messages, group participants, thumbnails. */
export interface OutboundContext {
  /** Our account (`creds.me`): excluded from `mentions: ["all"]`. */
  me?: { id?: string | null; lid?: string | null };
  /**
   * The stored message for a key, or undefined when unknown. Keys parsed from a bare id carry only
   * `remoteJid` and `id`. The gateway stores no messages yet, so today this answers undefined.
   */
  loadMessage(key: WAMessageKey): Promise<WAMessage | undefined>;
  /**
   * The JIDs of this send's conversation (the chat as asked, and the address it goes to: LID or
   * number, addressing.ts): a stored message keyed by either is rekeyed to the destination, so a
   * quote does not show as from another chat and a reaction or edit names the right message.
   */
  conversation?: string[];
  /** The LID of a number (`<digits>@s.whatsapp.net` → `<id>@lid`) when known: status audiences. */
  lidOf?(pnJid: string): Promise<string | null>;
  /** Participant JIDs of a group (as the group addresses them: PN or LID), for `mentions: ["all"]`. */
  groupParticipants(groupJid: string): Promise<string[]>;
  /** JPEG thumbnail of a link preview image; default Baileys' `extractImageThumb` at 192 px (sharp). */
  thumbnail?(image: Buffer): Promise<Buffer>;
  /**
   * The preview of a text's first link (link-preview.ts: fetched through the URL guard, bounded in
   * time and size), or undefined for none. Without it, texts with a link go without a preview.
   */
  linkPreview?(text: string): Promise<WAUrlInfo | undefined>;
}

export interface BaileysOutbound {
  /** Where `sock.sendMessage` sends. */
  jid: string;
  content: AnyMessageContent;
  options: MiscMessageGenerationOptions;
}

/** Width Baileys itself uses for link preview thumbnails (`linkPreviewImageThumbnailWidth`). */
const LINK_THUMBNAIL_WIDTH = 192;
/** WhatsApp's limit on poll options. */
export const MAX_POLL_OPTIONS = 12;

export const POLL_VOTE_MESSAGE =
  "Votos em enquetes são enviados pela sessão (cifrados com a chave da enquete guardada), não por este mapeamento.";
const NEWSLETTER_REACTION_MESSAGE = "Reagir a publicações de canais não é suportado em instâncias padrão.";

type Kind = OutboundContent["type"];
/** Kinds that are a message of their own (may quote, mention and be marked forwarded). */
const MESSAGE_KINDS = new Set<Kind>([
  "text",
  "image",
  "video",
  "audio",
  "voice",
  "document",
  "sticker",
  "location",
  "contacts",
  "poll",
  "event",
  "link_preview",
]);

/** `invalid` with the field and its problem in the message too (Baileys' mapping names one field at a time). */
function invalidField(field: string, text: string): ApiError {
  return invalid(field, text, `Campo inválido: ${field} (${text}).`);
}

/**
 * Maps one outbound content to what `sock.sendMessage(jid, content, options)` takes. Throws
 * `ApiError` (`validation_error` with `details`, or `not_supported`) for what cannot be sent
 * faithfully; it never drops an option silently.
 */
export async function toBaileysContent(
  chatId: string,
  content: OutboundContent,
  options: SendOptions,
  ctx: OutboundContext,
): Promise<BaileysOutbound> {
  // A status post goes to `status@broadcast`, which is no chat of its own (toJid refuses it).
  const jid = chatId.trim() === STATUS_JID ? STATUS_JID : toJid(chatId);
  if (!jid) throw invalidField("chatId", "use <número>@c.us, um @lid, um @g.us ou um @newsletter");
  if (content.type === "poll_vote") throw new ApiError("not_supported", POLL_VOTE_MESSAGE);

  const opts: MiscMessageGenerationOptions = {};
  if (options.id !== undefined) opts.messageId = messageIdOption(options.id);
  if (jid === STATUS_JID) Object.assign(opts, await statusOptions(options.status, ctx));

  const isMessage = MESSAGE_KINDS.has(content.type);
  if (!isMessage) {
    if (options.quotedId) throw invalidField("reply_to", "não se aplica a reações, edições e exclusões");
    if (options.forwarded) throw invalidField("forwarded", "não se aplica a reações, edições e exclusões");
    if (content.type !== "edit" && options.mentions?.length) {
      throw invalidField("mentions", "não se aplica a reações e exclusões");
    }
  }

  if (content.type === "poll" && (options.mentions?.length || options.forwarded)) {
    // rc14 builds polls with `messageContextInfo` first and attaches mentions and contextInfo to
    // the first key, where the proto has no such fields: they would vanish without a word.
    throw invalidField(options.forwarded ? "forwarded" : "mentions", "não é suportado em enquetes");
  }

  const base = await baseContent(jid, content, ctx);

  const extras: { mentions?: string[]; contextInfo?: proto.IContextInfo } = {};
  if (options.mentions?.length) extras.mentions = await resolveMentions(jid, options.mentions, ctx);
  if (options.forwarded) extras.contextInfo = { isForwarded: true, forwardingScore: 1 };
  if (options.quotedId) opts.quoted = await resolveQuoted(jid, options.quotedId, ctx);

  const mapped = Object.keys(extras).length ? ({ ...base, ...extras } as AnyMessageContent) : base;
  return { jid, content: mapped, options: opts };
}

async function baseContent(jid: string, c: OutboundContent, ctx: OutboundContext): Promise<AnyMessageContent> {
  switch (c.type) {
    case "text": {
      if (c.linkPreview === false) return { text: c.text, linkPreview: null };
      // A failed preview never fails the send.
      const info = await ctx.linkPreview?.(c.text).catch(() => undefined);
      if (info) return { text: c.text, linkPreview: info };
      // Ours or none (null) where there is a link: Baileys' own fetcher, which no URL guard covers, never runs.
      return /https?:\/\//i.test(c.text) ? { text: c.text, linkPreview: null } : { text: c.text };
    }
    case "image":
      return { image: mediaBytes(c.media), mimetype: c.media.mimetype, ...caption(c.caption) };
    case "video":
      if (c.asNote) {
        // Baileys' ptv branch keeps only the bytes; a round note shows no caption on the phone.
        if (c.caption?.trim()) throw invalidField("caption", "vídeos redondos (asNote) não têm legenda");
        return { video: mediaBytes(c.media), mimetype: c.media.mimetype, ptv: true };
      }
      return { video: mediaBytes(c.media), mimetype: c.media.mimetype, ...caption(c.caption) };
    case "audio":
      return { audio: mediaBytes(c.media), mimetype: c.media.mimetype, ptt: false };
    case "voice":
      return {
        audio: mediaBytes(c.media),
        mimetype: voiceMimetype(c.media.mimetype),
        ptt: true,
        ...(c.seconds !== undefined ? { seconds: c.seconds } : {}),
      };
    case "document":
      return {
        document: mediaBytes(c.media),
        mimetype: c.media.mimetype,
        ...(c.media.filename ? { fileName: c.media.filename } : {}),
        ...caption(c.caption),
      };
    case "sticker": {
      const bytes = mediaBytes(c.media);
      // Baileys converts nothing (reference §6): a sticker that is not WebP would not render.
      if (!isWebp(bytes)) throw invalidField("file", "figurinhas precisam ser WebP");
      return { sticker: bytes, mimetype: "image/webp", isAnimated: isAnimatedWebp(bytes) };
    }
    case "location":
      return {
        location: {
          degreesLatitude: c.latitude,
          degreesLongitude: c.longitude,
          ...(c.name ? { name: c.name } : {}),
          ...(c.address ? { address: c.address } : {}),
          ...(c.url ? { url: c.url } : {}),
        },
      };
    case "contacts": {
      const contacts = c.contacts.map((ct) => ({ displayName: ct.fullName, vcard: buildVCard(ct) }));
      const displayName = contacts.length === 1 ? contacts[0]!.displayName : `${contacts.length} contatos`;
      return { contacts: { displayName, contacts } };
    }
    case "poll": {
      const names = c.options.map((o) => o.trim());
      if (names.length > MAX_POLL_OPTIONS) throw invalidField("poll.options", `no máximo ${MAX_POLL_OPTIONS} opções`);
      if (new Set(names).size !== names.length) throw invalidField("poll.options", "as opções devem ser diferentes");
      // Votes name options by the SHA-256 of their text: the text goes as given.
      return { poll: { name: c.name, values: c.options, selectableCount: c.multipleAnswers ? 0 : 1 } };
    }
    case "poll_vote":
      throw new ApiError("not_supported", POLL_VOTE_MESSAGE);
    case "reaction": {
      if (isJidNewsletter(jid)) throw new ApiError("not_supported", NEWSLETTER_REACTION_MESSAGE);
      const key = await resolveTarget(jid, c.targetId, "reaction", ctx);
      return { react: { text: c.emoji, key } };
    }
    case "edit": {
      const key = await resolveTarget(jid, c.targetId, "edit", ctx);
      // An edit keeps the message's preview: Baileys is not to fetch one of its own (link-preview.ts).
      return { text: c.text, edit: key, linkPreview: null };
    }
    case "revoke": {
      const key = await resolveTarget(jid, c.targetId, "revoke", ctx);
      return { delete: key };
    }
    case "event": {
      const start = unixSeconds(c.startTime);
      const end = c.endTime !== undefined ? unixSeconds(c.endTime) : undefined;
      if (end !== undefined && end < start) throw invalidField("event.endTime", "termina antes de começar");
      return {
        event: {
          name: c.name,
          startDate: new Date(start * 1000),
          ...(end !== undefined ? { endDate: new Date(end * 1000) } : {}),
          ...(c.description ? { description: c.description } : {}),
          ...(c.location ? { location: { name: c.location.name } } : {}),
          ...(c.extraGuestsAllowed !== undefined ? { extraGuestsAllowed: c.extraGuestsAllowed } : {}),
        },
      };
    }
    case "link_preview": {
      const p = c.preview;
      const info: WAUrlInfo = {
        "canonical-url": p.url,
        // WhatsApp opens `matchedText` when the card is tapped.
        "matched-text": p.url,
        title: p.title,
        description: p.description,
      };
      if (p.image) info.jpegThumbnail = await linkThumbnail(p.image, ctx);
      return { text: c.text, linkPreview: info };
    }
    case "list":
    case "buttons":
    case "template":
      // Official-gateway content: the capability table keeps these routes away from standard instances.
      throw new ApiError("not_supported", "Conteúdo disponível apenas no gateway oficial.");
  }
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
async function statusOptions(
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

function caption(text: string | undefined): { caption?: string } {
  return text ? { caption: text } : {};
}

function mediaBytes(media: OutboundMedia, field = "file"): Buffer {
  const bytes = Buffer.from(media.data, "base64");
  if (bytes.length === 0) throw invalidField(field, "arquivo vazio ou base64 inválido");
  return bytes;
}

async function linkThumbnail(image: OutboundMedia, ctx: OutboundContext): Promise<Buffer> {
  const bytes = mediaBytes(image, "preview.image");
  try {
    if (ctx.thumbnail) return await ctx.thumbnail(bytes);
    return (await extractImageThumb(bytes, LINK_THUMBNAIL_WIDTH)).buffer;
  } catch {
    throw invalidField("preview.image", "imagem inválida ou em formato não suportado");
  }
}

/**
 * Voice notes are Opus in OGG; WhatsApp's clients expect the exact `audio/ogg; codecs=opus`
 * (Baileys' default) and may not draw an OGG voice note labelled otherwise. Others as given.
 */
function voiceMimetype(mimetype: string): string {
  return /^audio\/(ogg|opus)\b/i.test(mimetype.trim()) ? "audio/ogg; codecs=opus" : mimetype;
}

function isWebp(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP";
}

/** `RIFF....WEBPVP8X` with the animation bit of the VP8X flags set. */
export function isAnimatedWebp(bytes: Buffer): boolean {
  return (
    bytes.length >= 21 &&
    bytes.toString("latin1", 0, 4) === "RIFF" &&
    bytes.toString("latin1", 8, 16) === "WEBPVP8X" &&
    (bytes[20]! & 0x02) !== 0
  );
}

/** Unix seconds from seconds or milliseconds. */
function unixSeconds(v: number): number {
  return v > 1e12 ? Math.floor(v / 1000) : Math.floor(v);
}

function messageIdOption(id: string): string {
  const parsed = parseMessageId(id);
  if (parsed?.id) return parsed.id;
  if (!isBareMessageId(id)) throw invalidField("id", "use só letras e dígitos");
  return id.trim();
}

// ── options ──────────────────────────────────────────────────────────────────

async function resolveMentions(jid: string, mentions: string[], ctx: OutboundContext): Promise<string[]> {
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
async function resolveQuoted(jid: string, quotedId: string, ctx: OutboundContext): Promise<WAMessage> {
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
async function resolveTarget(
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
