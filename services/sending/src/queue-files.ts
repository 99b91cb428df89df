import { ApiError, parseBase64Content, type SendRequest } from "@gw/contracts";
import { isMediaRef, type MediaRef, type MediaStore } from "@gw/platform";

/**
 * The files of a queued send (spec 2.5 `data`) live in the media store while the item waits, not
 * in its Redis hash (docs/media.md "Where media bytes live"): at enqueue each inline file is put
 * in the store (content-addressed per instance, as an immediate send's: media/keep.ts) and the
 * item keeps a {@link QueuedFile} in its place; when its turn comes the bytes are read back into
 * the request, which then composes exactly as it would have (the same base64, the same `data:`
 * URL type). A file given by `url` is downloaded at send time, as before: nothing to keep.
 *
 * An object lives the store's retention (7 days) after its put, the longest an item may wait
 * (`ttlHours` ≤ 168); an item whose object is gone anyway (a shorter MEDIA_RETENTION_DAYS, a
 * store emptied by hand) fails with `not_found` naming the field, never a crash or a retry loop.
 */

/** A file of a queued request as its item keeps it: the file object without `data`, plus this. */
export interface QueuedFile extends MediaRef {
  /** The type a `data:` URL declared (bare base64 has none): the URL is rebuilt with it. */
  urlType?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isQueuedFile = (v: unknown): v is QueuedFile =>
  isMediaRef(v) && ((v as QueuedFile).urlType === undefined || typeof (v as QueuedFile).urlType === "string");

const HEADER_FILES = ["image", "video", "document"] as const;

/**
 * Where a route's body carries file objects (contracts send.ts, official-send.ts): every place,
 * whatever the instance's kind (an official link preview ignores its image, but it is still a file).
 */
function fileSlots(req: SendRequest): string[][] {
  switch (req.route) {
    case "image":
    case "file":
    case "voice":
    case "video":
    case "sticker":
      return [["file"]];
    case "link-preview":
      return [["preview", "image"]];
    case "buttons":
      return HEADER_FILES.map((k) => ["header", k]);
    case "template":
      return HEADER_FILES.map((k) => ["template", "header", k]);
    default:
      return [];
  }
}

/** `node` with the object at `path` replaced by `fn`'s answer (copies on the way; untouched when absent). */
async function replaceAt(node: unknown, path: string[], fn: (file: Obj) => Promise<Obj>): Promise<unknown> {
  if (!isObj(node)) return node;
  const [head, ...rest] = path as [string, ...string[]];
  const child = node[head];
  if (child === undefined) return node;
  const next = rest.length > 0 ? await replaceAt(child, rest, fn) : isObj(child) ? await fn(child) : child;
  return next === child ? node : { ...node, [head]: next };
}

async function eachFile(req: SendRequest, fn: (file: Obj, field: string) => Promise<Obj>): Promise<SendRequest> {
  let body: unknown = req.body;
  for (const path of fileSlots(req)) body = await replaceAt(body, path, (file) => fn(file, path.join(".")));
  return body === req.body ? req : ({ route: req.route, body } as SendRequest);
}

/**
 * The request as the item keeps it: each inline file's bytes put in the store, a {@link QueuedFile}
 * in their place (`stored`). Throws what the store throws: nothing is queued then (the caller's
 * 5xx), as an item whose bytes were not kept could never be sent. Base64 that does not decode
 * stays as given (precheck refused it on every route that sends it).
 */
export function stashQueuedFiles(store: MediaStore, instanceId: string, req: SendRequest): Promise<SendRequest> {
  return eachFile(req, async (file) => {
    if (typeof file.data !== "string") return file;
    const content = parseBase64Content(file.data);
    if (!content.ok) return file;
    const ref = await store.put(instanceId, Buffer.from(content.base64, "base64"));
    const { data: _bytes, ...rest } = file;
    const stored: QueuedFile = { sha256: ref.sha256, size: ref.size };
    if (content.urlType !== undefined) stored.urlType = content.urlType;
    return { ...rest, stored };
  });
}

/**
 * The request as it was sent to the queue: each {@link QueuedFile} read back from the store into
 * `data`. An object that is gone is `not_found` on its field (the item fails with it); a store
 * that cannot be reached throws as it is (the activity is retried).
 */
export function resolveQueuedFiles(store: MediaStore, instanceId: string, req: SendRequest): Promise<SendRequest> {
  return eachFile(req, async (file, field) => {
    const stored = file.stored;
    if (!isQueuedFile(stored)) return file;
    const bytes = await store.read(instanceId, stored.sha256);
    if (!bytes || bytes.length !== stored.size) {
      throw new ApiError("not_found", "O arquivo da mensagem na fila não está mais guardado; envie de novo.", {
        [`${field}.data`]: `arquivo ${stored.sha256.slice(0, 12)}… (${stored.size} bytes) não encontrado no armazenamento de mídia`,
      });
    }
    const { stored: _ref, ...rest } = file;
    const base64 = bytes.toString("base64");
    return { ...rest, data: stored.urlType === undefined ? base64 : `data:${stored.urlType};base64,${base64}` };
  });
}
