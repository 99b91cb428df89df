import {
  chatOf,
  type FileObject,
  type Instance,
  type SendOptions,
  type SendRequest,
  type SendRoute,
} from "@gw/contracts";
import { parseTargetUrl } from "@gw/platform/url-guard";
import { cardKinds } from "./cards.ts";
import { interactiveKinds } from "./interactive.ts";
import { mediaKinds } from "./media.ts";
import { referenceKinds } from "./references.ts";
import {
  type ComposeDeps,
  type Composed,
  type ComposerTable,
  checkMedia,
  type KindComposer,
  type KindInput,
  kindRules,
  load,
  mentionsOf,
  networkIdOf,
  resolveRef,
} from "./shared.ts";
import { textKinds } from "./text.ts";

export type { ComposeDeps, Composed, ComposerTable, KindComposer } from "./shared.ts";
export { resolveRef } from "./shared.ts";

/** Every send kind's composer, by route: one module per family of kinds. */
export const COMPOSERS: ComposerTable = {
  ...textKinds,
  ...mediaKinds,
  ...cardKinds,
  ...interactiveKinds,
  ...referenceKinds,
};

function kindOf<R extends SendRoute>(route: R): KindComposer<R> {
  return COMPOSERS[route];
}

/**
 * The checks every kind shares, first in both {@link compose} and {@link precheck}: the instance
 * kind's own limits, the quoted message (`quote`: its id checked, or resolved) and the mentions
 * (`["all"]` only in a group; a malformed chat is refused here too). Answers the mentions.
 */
async function checkShared(
  instance: Pick<Instance, "kind">,
  req: SendRequest,
  quote: (replyTo: string) => void | Promise<void>,
): Promise<string[] | undefined> {
  kindRules(instance, req);
  const body = req.body;
  if (body.reply_to) await quote(body.reply_to);
  return mentionsOf(body.mentions, chatOf(body));
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
  const options: SendOptions = {};
  const mentions = await checkShared(instance, req, async (replyTo) => {
    const q = await resolveRef(instance.id, replyTo, "reply_to", deps.messages);
    options.quotedId = q.id;
    if (q.apiId) options.quotedApiId = q.apiId;
  });
  if (mentions) options.mentions = mentions;
  if (req.body.id) options.id = req.body.id;
  return kindOf(req.route).compose({ instance, req, deps }, options);
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
  await checkShared(instance, req, (replyTo) => void networkIdOf(replyTo, "reply_to"));
  const kind = kindOf(req.route);
  const input = { instance, req, deps };
  for (const [file, field] of kind.files?.(input) ?? []) await precheckFile(input, file, field);
  await kind.check?.(input);
}

/** One file before a queued send's 202: an inline one decoded and checked, a URL's form and literal address. */
async function precheckFile({ instance, req, deps }: KindInput<SendRoute>, file: FileObject, field: string) {
  if (file.data !== undefined) {
    const loaded = await load(file, deps, field);
    // A file that `convert: true` will turn into the route's kind is checked after conversion.
    if (!("convert" in req.body && req.body.convert)) checkMedia(instance, req, loaded, field);
  } else if (file.url !== undefined) {
    parseTargetUrl(file.url, { allowPrivate: deps.media.allowPrivate, field: `${field}.url` });
  }
}

/** Characters of text a request carries (the queue's typing rule). */
export function textLengthOf(req: SendRequest): number {
  const b = req.body as { text?: unknown; caption?: unknown };
  return typeof b.text === "string" ? b.text.length : typeof b.caption === "string" ? b.caption.length : 0;
}
