import {
  chatOf,
  type FileObject,
  formatMessageId,
  type Instance,
  invalid,
  isMediaKind,
  mediaKindProblem,
  NETWORK_ID_RE,
  normalizePersonId,
  type OutboundContent,
  type OutboundHeader,
  type OutboundMedia,
  parseMessageId,
  requireChat,
  type SendOptions,
  type SendRequest,
  type TemplateSend,
} from "@gw/contracts";
import type { MessageStore, StoredMessage } from "@gw/platform";
import { parseTargetUrl } from "@gw/platform/url-guard";
import {
  type ConvertOptions,
  convertVideo,
  convertVoice,
  type LoadedFile,
  type LoadOptions,
  loadFile,
} from "./media/index.ts";
import { officialBodyRules, officialMediaRules } from "./official-rules.ts";

/** What the provider is asked to send. */
export interface Composed {
  chatId: string;
  content: OutboundContent;
  options: SendOptions;
}

export interface ComposeDeps {
  messages: MessageStore;
  media: Omit<LoadOptions, "field">;
  /** ffmpeg's limits (`convert: true`), the same for `/media/convert/*`. */
  convert?: ConvertOptions;
}

function mediaOf(file: LoadedFile): OutboundMedia {
  return {
    data: file.data.toString("base64"),
    mimetype: file.mimetype,
    ...(file.filename ? { filename: file.filename } : {}),
  };
}

async function load(file: FileObject, deps: ComposeDeps, field = "file"): Promise<LoadedFile> {
  return loadFile(file, { ...deps.media, field });
}

/** The media type a route's file must have (contracts' MEDIA_KINDS; none when `convert: true` makes it so). */
function requireMediaKind(req: SendRequest, mimetype: string): void {
  if (!isMediaKind(req.route) || ("convert" in req.body && req.body.convert)) return;
  const problem = mediaKindProblem(req.route, mimetype);
  if (problem) throw invalid("file", problem);
}

/**
 * What the instance's kind cannot carry, before anything is fetched: which route exists for which
 * kind is the capability table's (the routes answer its 501s); the operator's own limits are here.
 */
function kindRules(instance: Pick<Instance, "kind">, req: SendRequest): void {
  if (instance.kind === "official") officialBodyRules(req);
}

/** A loaded file against the rules of the route and the instance's kind. */
function checkMedia(instance: Pick<Instance, "kind">, req: SendRequest, file: LoadedFile, field = "file"): void {
  if (field === "file") requireMediaKind(req, file.mimetype);
  if (instance.kind === "official") officialMediaRules(req.route, file.mimetype, file.data, field);
}

/** The network id of a message the request names (an API id or a bare one); a malformed one is 422 on `field`. */
function networkIdOf(value: string, field: string): string {
  const id = parseMessageId(value)?.id ?? value.trim();
  if (!NETWORK_ID_RE.test(id)) throw invalid(field, "id de mensagem inválido");
  return id;
}

/** A message the request names, by API id or bare network id: the chat and the network id. */
export async function resolveRef(
  instanceId: string,
  value: string,
  field: string,
  messages: MessageStore,
): Promise<{ chatId: string | null; id: string; apiId: string | null; stored: StoredMessage | null }> {
  const parsed = parseMessageId(value);
  const id = networkIdOf(value, field);
  const stored = await messages.get(instanceId, id);
  const chatId = parsed?.chatId ?? stored?.chatId ?? null;
  const apiId = parsed
    ? value.trim()
    : stored
      ? formatMessageId({
          fromMe: stored.fromMe,
          chatId: stored.chatId,
          id,
          ...(stored.participant ? { participant: stored.participant } : {}),
        })
      : null;
  return { chatId, id, apiId, stored };
}

/** The mentions of a request in `chat` (when the body names one): people, or `["all"]` in a group. */
function mentionsOf(raw: string[] | undefined, chat: string | null): string[] | undefined {
  if (!raw?.length) return undefined;
  if (raw.length === 1 && raw[0] === "all") {
    if (chat && !chat.endsWith("@g.us")) throw invalid("mentions", '"all" só vale em grupos');
    return ["all"];
  }
  return raw.map((m) => {
    const id = normalizePersonId(m);
    if (!id) throw invalid("mentions", `menção inválida: ${m}`);
    return id;
  });
}

/** Characters of text a request carries (the queue's typing rule). */
export function textLengthOf(req: SendRequest): number {
  const b = req.body as { text?: unknown; caption?: unknown };
  return typeof b.text === "string" ? b.text.length : typeof b.caption === "string" ? b.caption.length : 0;
}

/**
 * What {@link compose} and the network would certainly refuse, checked without the network and
 * without downloading anything: run before a queued send is accepted, so that its 202 is not
 * followed by a `failed` item for a mistake the request already showed. Inline files are decoded
 * (size, mimetype, the route's media type); a file's URL is checked for its form and any literal
 * address (its name's addresses when it is downloaded, at send time). Quotes, forwards, mentions
 * (`["all"]` only in a group) and an event's times as `compose` checks them.
 */
export async function precheck(
  instance: Pick<Instance, "id" | "kind">,
  req: SendRequest,
  deps: ComposeDeps,
): Promise<void> {
  kindRules(instance, req);
  const body = req.body;
  if (body.reply_to) networkIdOf(body.reply_to, "reply_to");
  mentionsOf(body.mentions, chatOf(body));
  const files: [FileObject, string][] = [];
  if ("file" in body && body.file) files.push([body.file, "file"]);
  if (req.route === "link-preview" && req.body.preview.image && instance.kind === "standard") {
    files.push([req.body.preview.image, "preview.image"]);
  }
  const header = headerFileOf(req);
  if (header) files.push(header);
  for (const [file, field] of files) {
    if (file.data !== undefined) {
      const loaded = await load(file, deps, field);
      // A file that `convert: true` will turn into the route's kind is checked after conversion.
      if (!("convert" in body && body.convert)) checkMedia(instance, req, loaded, field);
    } else if (file.url !== undefined) {
      parseTargetUrl(file.url, { allowPrivate: deps.media.allowPrivate, field: `${field}.url` });
    }
  }
  if (req.route === "event") requireEventTimes(req.body.event);
  if (req.route === "forward") await forwardable(instance.id, req.body.messageId, deps);
}

function requireEventTimes(e: { startTime: number; endTime?: number | undefined }): void {
  if (e.endTime !== undefined && e.endTime < e.startTime) {
    throw invalid("event.endTime", "endTime deve ser depois de startTime");
  }
}

/** The kept message a forward sends again, with its media. */
async function forwardable(instanceId: string, messageId: string, deps: ComposeDeps): Promise<StoredMessage> {
  const ref = await resolveRef(instanceId, messageId, "messageId", deps.messages);
  if (!ref.stored)
    throw invalid("messageId", "mensagem não encontrada (só se encaminham mensagens dos últimos 7 dias)");
  if (!ref.stored.mediaKept) throw invalid("messageId", "a mídia desta mensagem não está mais disponível");
  return ref.stored;
}

/**
 * Turns a validated send request into provider content: the chat (from the body, or from the
 * message a vote or forward names), media fetched/decoded and converted, quotes and mentions
 * resolved. Instance-kind rules (lists, templates) are checked first.
 */
export async function compose(
  instance: Pick<Instance, "id" | "kind">,
  req: SendRequest,
  deps: ComposeDeps,
): Promise<Composed> {
  kindRules(instance, req);

  const body = req.body;
  const options: SendOptions = {};
  if (body.reply_to) {
    const q = await resolveRef(instance.id, body.reply_to, "reply_to", deps.messages);
    options.quotedId = q.id;
    if (q.apiId) options.quotedApiId = q.apiId;
  }
  const mentions = mentionsOf(body.mentions, chatOf(body));
  if (mentions) options.mentions = mentions;
  if (body.id) options.id = body.id;

  const chat = () => requireChat(body);
  switch (req.route) {
    case "text": {
      const b = req.body;
      return {
        chatId: chat(),
        content: { type: "text", text: b.text, ...(b.linkPreview !== undefined ? { linkPreview: b.linkPreview } : {}) },
        options,
      };
    }
    case "image": {
      const chatId = chat();
      const file = await load(req.body.file, deps);
      checkMedia(instance, req, file);
      return { chatId, content: { type: "image", media: mediaOf(file), ...capt(req.body.caption) }, options };
    }
    case "file": {
      const chatId = chat();
      const file = await load(req.body.file, deps);
      checkMedia(instance, req, file);
      return { chatId, content: { type: "document", media: mediaOf(file), ...capt(req.body.caption) }, options };
    }
    case "voice": {
      const chatId = chat();
      let file = await load(req.body.file, deps);
      let seconds: number | undefined;
      if (req.body.convert) {
        const converted = await convertVoice(file, deps.convert);
        seconds = converted.seconds;
        file = converted;
      }
      checkMedia(instance, req, file);
      return {
        chatId,
        content: { type: "voice", media: mediaOf(file), ...(seconds !== undefined ? { seconds } : {}) },
        options,
      };
    }
    case "video": {
      const chatId = chat();
      let file = await load(req.body.file, deps);
      if (req.body.convert) file = await convertVideo(file, deps.convert);
      checkMedia(instance, req, file);
      return {
        chatId,
        content: {
          type: "video",
          media: mediaOf(file),
          ...capt(req.body.caption),
          ...(req.body.asNote ? { asNote: true } : {}),
        },
        options,
      };
    }
    case "sticker": {
      const chatId = chat();
      const file = await load(req.body.file, deps);
      checkMedia(instance, req, file);
      return { chatId, content: { type: "sticker", media: mediaOf(file) }, options };
    }
    case "link-preview": {
      const chatId = chat();
      const b = req.body;
      if (instance.kind === "official") {
        // The operator previews the first URL of a text itself; a custom preview cannot be sent.
        const text = b.text.includes(b.preview.url) ? b.text : `${b.text}\n${b.preview.url}`;
        return { chatId, content: { type: "text", text, linkPreview: true }, options };
      }
      const image = b.preview.image ? mediaOf(await load(b.preview.image, deps, "preview.image")) : undefined;
      return {
        chatId,
        content: {
          type: "link_preview",
          text: b.text,
          preview: {
            title: b.preview.title,
            description: b.preview.description,
            url: b.preview.url,
            ...(image ? { image } : {}),
          },
        },
        options,
      };
    }
    case "poll":
      return {
        chatId: chat(),
        content: {
          type: "poll",
          name: req.body.poll.name,
          options: req.body.poll.options,
          multipleAnswers: req.body.poll.multipleAnswers,
        },
        options,
      };
    case "poll/vote": {
      const b = req.body;
      const poll = await resolveRef(instance.id, b.pollMessageId, "pollMessageId", deps.messages);
      const chatId = (b.chatId ?? b.phone) ? chat() : poll.chatId;
      if (!chatId) throw invalid("chatId", "informe o chatId (a enquete não é conhecida por este id)");
      return { chatId, content: { type: "poll_vote", pollId: poll.id, votes: b.votes.flat() }, options };
    }
    case "location":
      return {
        chatId: chat(),
        content: {
          type: "location",
          latitude: req.body.latitude,
          longitude: req.body.longitude,
          name: req.body.title,
          ...(req.body.address ? { address: req.body.address } : {}),
        },
        options,
      };
    case "contact-vcard":
      return { chatId: chat(), content: { type: "contacts", contacts: req.body.contacts }, options };
    case "event":
      requireEventTimes(req.body.event);
      return { chatId: chat(), content: { type: "event", ...req.body.event }, options };
    case "forward": {
      const chatId = chat();
      const stored = await forwardable(instance.id, req.body.messageId, deps);
      return { chatId, content: stored.content, options: { ...options, forwarded: true } };
    }
    case "list": {
      const m = req.body.message;
      return {
        chatId: chat(),
        content: {
          type: "list",
          title: m.title,
          button: m.button,
          sections: m.sections,
          ...(m.description ? { description: m.description } : {}),
          ...(m.footer ? { footer: m.footer } : {}),
        },
        options,
      };
    }
    case "buttons": {
      const chatId = chat();
      const b = req.body;
      const header = b.header ? await headerOf(b.header, deps) : undefined;
      return {
        chatId,
        content: {
          type: "buttons",
          text: b.text,
          buttons: b.buttons,
          ...(header ? { header } : {}),
          ...(b.footer ? { footer: b.footer } : {}),
        },
        options,
      };
    }
    case "template": {
      const chatId = chat();
      const t = req.body.template;
      const header = t.header ? await headerOf(t.header, deps) : undefined;
      return {
        chatId,
        content: {
          type: "template",
          name: t.name,
          language: t.language,
          ...(header ? { header } : {}),
          ...(t.body ? { body: t.body } : {}),
          ...(t.buttons
            ? {
                buttons: t.buttons.map((btn, i) => ({
                  type: btn.type,
                  value: btn.type === "quick_reply" ? btn.payload : btn.type === "url" ? btn.text : btn.code,
                  index: btn.index ?? i,
                })),
              }
            : {}),
          ...(t.components ? { components: t.components } : {}),
        },
        options,
      };
    }
  }
}

type HeaderInput = NonNullable<TemplateSend["header"]>;

/** A header's media file, for the checks before a queued send is accepted. */
function headerFileOf(req: SendRequest): [FileObject, string] | null {
  const header = req.route === "template" ? req.body.template.header : req.route === "buttons" ? req.body.header : null;
  if (!header) return null;
  const field = req.route === "template" ? "template.header" : "header";
  for (const type of ["image", "video", "document"] as const) {
    if (type in header) return [(header as Record<typeof type, FileObject>)[type], `${field}.${type}`];
  }
  return null;
}

/** A header with its media fetched. */
async function headerOf(header: HeaderInput, deps: ComposeDeps): Promise<OutboundHeader> {
  if ("text" in header) return { text: header.text };
  if ("location" in header) return { location: header.location };
  for (const mediaType of ["image", "video", "document"] as const) {
    if (mediaType in header) {
      const file = (header as Record<typeof mediaType, FileObject>)[mediaType];
      return { mediaType, media: mediaOf(await load(file, deps, `header.${mediaType}`)) };
    }
  }
  throw invalid("header", "cabeçalho inválido");
}

function capt(caption: string | undefined) {
  return caption ? { caption } : {};
}
