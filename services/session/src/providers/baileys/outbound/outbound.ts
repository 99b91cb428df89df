import { ApiError, type OutboundContent, type SendOptions } from "@gw/contracts";
import {
  type AnyMessageContent,
  isJidNewsletter,
  type MiscMessageGenerationOptions,
  type proto,
  type WAUrlInfo,
} from "@whiskeysockets/baileys";
import { STATUS_JID, toJid } from "../jids.ts";
import { unixSeconds } from "../seconds.ts";
import { invalidField, type OutboundContext } from "./outbound-context.ts";
import { caption, isAnimatedWebp, isWebp, linkThumbnail, mediaBytes, voiceMimetype } from "./outbound-media.ts";
import { messageIdOption, resolveMentions, resolveQuoted, resolveTarget, statusOptions } from "./outbound-options.ts";
import { buildVCard } from "./vcard.ts";

export type { OutboundContext } from "./outbound-context.ts";

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
 *
 * The parts: outbound-context.ts (what the mapping asks of the session), outbound-media.ts (bytes,
 * stickers, thumbnails), outbound-options.ts (ids, audiences, mentions, quotes, target keys);
 * this file puts them together.
 */

export interface BaileysOutbound {
  /** Where `sock.sendMessage` sends. */
  jid: string;
  content: AnyMessageContent;
  options: MiscMessageGenerationOptions;
}

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
