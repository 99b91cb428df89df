import {
  chatKindRule,
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
  type OutboundMedia,
  parseMessageId,
  type SendOptions,
  type SendRequest,
  type SendRoute,
} from "@gw/contracts";
import type { MessageStore, StoredMessage } from "@gw/platform";
import { type ConvertOptions, type LoadedFile, type LoadOptions, loadFile } from "../media/index.ts";
import { officialBodyRules, officialMediaRules } from "../official-rules.ts";

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

/** A send request of one route, its body typed as that route's. */
export type RequestOf<R extends SendRoute> = Extract<SendRequest, { route: R }>;

/** What a kind's composer is given: the instance, the request of its route, the dependencies. */
export interface KindInput<R extends SendRoute> {
  instance: Pick<Instance, "id" | "kind">;
  req: RequestOf<R>;
  deps: ComposeDeps;
}

/** A file the request carries and the field a problem with it is reported on. */
export type FileRef = [file: FileObject, field: string];

/**
 * One send kind (route): how it becomes provider content, and what of it can be checked before a
 * queued send is accepted. The checks every kind shares are `precheck`'s and `compose`'s own
 * (compose/index.ts); a kind adds its files and anything else here.
 */
export interface KindComposer<R extends SendRoute> {
  /**
   * The files a queued send is checked on before its 202, with their fields: inline ones decoded
   * (size, mimetype, the route's media type), URLs checked for their form and any literal address.
   * `compose` loads them itself (downloaded then, at send time).
   */
  files?: (input: KindInput<R>) => FileRef[];
  /** What else the kind would certainly fail on, checked without the network and without downloads. */
  check?: (input: KindInput<R>) => void | Promise<void>;
  /** The provider content; `options` holds the quote, mentions and own id already resolved. */
  compose: (input: KindInput<R>, options: SendOptions) => Composed | Promise<Composed>;
}

/** Every send kind's composer, keyed by route. */
export type ComposerTable = { [R in SendRoute]: KindComposer<R> };

export function mediaOf(file: LoadedFile): OutboundMedia {
  return {
    data: file.data.toString("base64"),
    mimetype: file.mimetype,
    ...(file.filename ? { filename: file.filename } : {}),
  };
}

export async function load(file: FileObject, deps: ComposeDeps, field = "file"): Promise<LoadedFile> {
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
export function kindRules(instance: Pick<Instance, "kind">, req: SendRequest): void {
  if (instance.kind === "official") officialBodyRules(req);
  // A vote or a forward may name its chat by the message alone: that one is the message's own.
  const chatId = chatOf(req.body as { chatId?: string; phone?: string });
  const why = chatId ? chatKindRule(instance.kind, chatId) : null;
  if (why) throw invalid("chatId", why);
}

/** A loaded file against the rules of the route and the instance's kind. */
export function checkMedia(instance: Pick<Instance, "kind">, req: SendRequest, file: LoadedFile, field = "file"): void {
  if (field === "file") requireMediaKind(req, file.mimetype);
  if (instance.kind === "official") officialMediaRules(req.route, file.mimetype, file.data, field);
}

/** The network id of a message the request names (an API id or a bare one); a malformed one is 422 on `field`. */
export function networkIdOf(value: string, field: string): string {
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
export function mentionsOf(raw: string[] | undefined, chat: string | null): string[] | undefined {
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

export function capt(caption: string | undefined) {
  return caption ? { caption } : {};
}
