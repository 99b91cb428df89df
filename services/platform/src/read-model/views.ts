// Stored messages → the spec 2.8 read shape, privacy ids rewritten with what the instance knows now.
import { formatMessageId, type Instance, parseMessageId } from "@gw/contracts";
import { extensionOf, type MediaLinks } from "../auth/media-links.ts";
import type { IdentityMap } from "../store/identity.ts";
import { MESSAGE_KEEP_MS } from "../store/messages.ts";
import { ackName } from "./acks.ts";
import type { MessageDoc, MessageMedia, MessageView } from "./types.ts";

type Fetch = (instanceId: string, networkIds: string[], acks: boolean) => Promise<(MessageDoc | null)[]>;

export class MessageViews {
  constructor(
    private readonly identity: IdentityMap,
    private readonly mediaLinks: MediaLinks,
    private readonly fetch: Fetch,
  ) {}

  /** Stored messages → spec 2.8 read shapes, privacy ids rewritten with what the instance knows now. */
  async views(instance: Instance, docs: MessageDoc[], downloadMedia: boolean): Promise<MessageView[]> {
    const quotedRefs = docs.map((d) => (d.quotedId ? (parseMessageId(d.quotedId)?.id ?? d.quotedId) : null));
    const wanted = [...new Set(quotedRefs.filter((x): x is string => x !== null))];
    const quotedDocs = new Map<string, MessageDoc>();
    if (wanted.length) {
      // A quote shows no ack: its document alone.
      const got = await this.fetch(instance.id, wanted, false);
      got.forEach((d, i) => {
        if (d) quotedDocs.set(wanted[i]!, d);
      });
    }
    // Every privacy id of the page, resolved once; the views are then built without waiting.
    const lids = new Set<string>();
    const addLid = (id: string | undefined) => {
      if (id?.endsWith("@lid")) lids.add(id);
    };
    for (const d of [...docs, ...quotedDocs.values()]) {
      addLid(d.chatId);
      addLid(d.participant);
      if (d.quotedId) addLid(parseMessageId(d.quotedId)?.chatId);
      for (const m of d.mentions ?? []) addLid(m);
    }
    const known = new Map<string, string>();
    await Promise.all(
      [...lids].map(async (lid) => known.set(lid, (await this.identity.rewrite(instance.id, lid)) ?? lid)),
    );
    const rewrite = (id: string) => known.get(id) ?? id;
    const me = instance.phone ? `${instance.phone}@c.us` : "";
    return docs.map((d, i) => {
      const view = this.view(instance.id, d, me, downloadMedia, rewrite);
      const ref = quotedRefs[i];
      if (ref && view.quotedId) {
        const q = quotedDocs.get(ref);
        view.replyTo = q
          ? {
              id: view.quotedId,
              body: q.body,
              hasMedia: Boolean(q.hasMedia),
              media: this.mediaOf(instance.id, q, view.quotedId, false),
              participant: q.participant ? rewrite(q.participant) : null,
              _data: q.revoked ? null : (q.raw ?? null),
            }
          : { id: view.quotedId, body: null, hasMedia: false, media: null, participant: null, _data: null };
      }
      return view;
    });
  }

  private mediaOf(instanceId: string, d: MessageDoc, apiId: string, download: boolean): MessageMedia | null {
    if (!d.hasMedia || !d.media) return null;
    const media: MessageMedia = {
      url: null,
      mimetype: d.media.mimetype,
      filename: d.media.filename ?? null,
      error: null,
    };
    if (!download) return media;
    // The bytes live in the message store for 7 days (and only what was small enough to keep).
    if (d.media.available && Date.now() - d.timestamp * 1000 < MESSAGE_KEEP_MS) {
      const ext = extensionOf(d.media.mimetype, d.media.filename);
      media.url = this.mediaLinks.sign(`/v1/files/${instanceId}/${apiId}.${ext}`);
    } else {
      media.error = "mídia indisponível: não guardada ou expirada";
    }
    return media;
  }

  private view(
    instanceId: string,
    d: MessageDoc,
    me: string,
    downloadMedia: boolean,
    rewrite: (id: string) => string,
  ): MessageView {
    const chatId = rewrite(d.chatId);
    const participant = d.participant ? rewrite(d.participant) : null;
    const id = formatMessageId({
      fromMe: d.fromMe,
      chatId,
      id: d.networkId,
      ...(participant ? { participant } : {}),
    });
    let quotedId: string | null = null;
    if (d.quotedId) {
      const ref = parseMessageId(d.quotedId);
      quotedId = ref ? formatMessageId({ ...ref, chatId: rewrite(ref.chatId) }) : d.quotedId;
    }
    const media = this.mediaOf(instanceId, d, id, downloadMedia);
    const sender = d.isGroup ? (d.fromMe ? me : participant) : null;
    const view: MessageView = {
      id,
      chatId,
      from: d.fromMe ? me : chatId,
      to: d.fromMe ? chatId : me,
      author: sender,
      participant: sender,
      body: d.body,
      type: d.type,
      fromMe: d.fromMe,
      hasMedia: Boolean(d.hasMedia),
      ack: d.ack,
      ackName: ackName(d.ack),
      timestamp: d.timestamp,
      source: d.source ?? null,
      lid: (d.isGroup ? d.participantLid : d.chatLid) ?? null,
      vCards: d.vCards ?? [],
      ...(downloadMedia && media ? { mediaUrl: media.url } : {}),
      media,
      location: d.location ?? null,
      quotedId,
      replyTo: null,
      ...(d.mentions ? { mentions: d.mentions.map(rewrite) } : {}),
      ...(d.forwarded ? { forwarded: true } : {}),
      edited: Boolean(d.edited),
      revoked: Boolean(d.revoked),
      // A revoked message shows no content (a kept message's content stays stored: store/messages.ts).
      _data: d.revoked ? null : (d.raw ?? null),
    };
    return view;
  }
}
