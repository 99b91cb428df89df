import { guardedDispatcher, guardedRequest, type HostLookup } from "@gw/platform/url-guard";
import { extractImageThumb, type WAUrlInfo } from "@whiskeysockets/baileys";
import type { Agent, Dispatcher } from "undici";
import { decodeHtml, type PagePreview, parsePreview } from "./link-preview-page.ts";

/**
 * Link previews of our texts, made here and handed to Baileys as `linkPreview`, so that Baileys
 * never fetches a link itself: its own fetcher (`getUrlInfo`, with the optional `link-preview-js`)
 * would reach any address a message names, internal ones included. Ours goes through the URL guard
 * of webhooks and media downloads (`@gw/platform/url-guard`): every hop of up to 3 redirects is
 * checked again, at connection time (DNS rebinding); the whole preview is bounded in time and the
 * page and image in size. Results are kept a while (a campaign sends one link to many chats).
 *
 * What WhatsApp shows: `title` (required: a page without one gets no preview, as with Baileys),
 * `description` and a small JPEG (`jpegThumbnail`) of the page's image; the card opens
 * `matched-text`, the link exactly as it appears in the text. `canonical-url` is required by
 * Baileys' type but goes nowhere: the network's `ExtendedTextMessage` has no such field anymore.
 */

export interface LinkPreviewOptions {
  /**
   * Allow private/internal addresses and any port (development and tests), as media `file.url`
   * downloads do (`WEBHOOK_ALLOW_PRIVATE`). Off in production.
   */
  allowPrivate: boolean;
  /** Resolver of the guarded connections (tests); default the system's. */
  lookup?: HostLookup;
  /** Deadline of the whole preview: the page (redirects included) and its image. Default 5 s. */
  timeoutMs?: number;
  /** Most of a page read (its head is enough; reading stops at `</head>`). Default 512 KB. */
  maxPageBytes?: number;
  /** Largest image turned into a thumbnail; a larger one leaves the preview without it. Default 5 MB. */
  maxImageBytes?: number;
  /** The thumbnail of an image; default Baileys' `extractImageThumb` at 192 px (sharp). */
  thumbnail?(image: Buffer): Promise<Buffer>;
  /** How long a preview (or a page without one) is kept; default 10 min. Failures: `failureTtlMs`, 1 min. */
  cacheTtlMs?: number;
  failureTtlMs?: number;
  /** Links kept; default 500. */
  cacheSize?: number;
}

/** Where a failed preview is told (debug level: a preview is a nicety). */
export interface PreviewLog {
  debug(obj: unknown, msg?: string): void;
}

interface Preview {
  url: string;
  page: PagePreview;
  thumbnail?: Buffer;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_PAGE_BYTES = 512 * 1024;
const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const THUMBNAIL_WIDTH = 192;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; MessagingGateway-LinkPreview/1.0)",
  "accept-language": "pt-BR,pt;q=0.9,en;q=0.8",
};
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
/** Raster formats only: SVG would be rendered by the image library. */
const IMAGE_TYPES = /^image\/(jpeg|jpg|pjpeg|png|webp|gif|avif|bmp)$/;

export class LinkPreviews {
  private readonly cache = new Map<string, { until: number; value: Promise<Preview | undefined> }>();

  constructor(private readonly opts: LinkPreviewOptions) {}

  /**
   * The preview of the first http(s) link of `text`; undefined when there is none, the guard
   * refuses it, the page has no title, or anything fails (told to `log`). Never throws.
   */
  async preview(text: string, log?: PreviewLog): Promise<WAUrlInfo | undefined> {
    const link = firstLink(text);
    if (!link) return undefined;
    try {
      const found = await this.cached(link);
      if (!found) return undefined;
      const info: WAUrlInfo = { "canonical-url": found.url, "matched-text": link, title: found.page.title };
      if (found.page.description) info.description = found.page.description;
      if (found.thumbnail) info.jpegThumbnail = found.thumbnail;
      return info;
    } catch (err) {
      log?.debug({ err, link }, "link preview failed");
      return undefined;
    }
  }

  private cached(link: string): Promise<Preview | undefined> {
    const now = Date.now();
    const hit = this.cache.get(link);
    if (hit && hit.until > now) return hit.value;
    this.cache.delete(link);
    const value = this.fetchPreview(link);
    const entry = { until: now + (this.opts.cacheTtlMs ?? 600_000), value };
    this.cache.set(link, entry);
    value.catch(() => {
      entry.until = Math.min(entry.until, Date.now() + (this.opts.failureTtlMs ?? 60_000));
    });
    const max = this.opts.cacheSize ?? 500;
    for (const key of this.cache.keys()) {
      if (this.cache.size <= max) break;
      this.cache.delete(key);
    }
    return value;
  }

  private async fetchPreview(link: string): Promise<Preview | undefined> {
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const fetcher = new GuardedFetch(this.opts, timeoutMs);
    try {
      const page = await fetcher.get(link, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", {
        maxBytes: this.opts.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES,
        truncate: true,
        accept: (type) => HTML_TYPES.has(type),
      });
      if (!page) return undefined;
      const parsed = parsePreview(decodeHtml(page.body, page.charset), page.url);
      if (!parsed) return undefined;
      const preview: Preview = { url: page.url.href, page: parsed };
      if (parsed.image) {
        const image = await fetcher
          .get(parsed.image, "image/*", {
            maxBytes: this.opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES,
            truncate: false,
            accept: (type) => type === "" || type === "application/octet-stream" || IMAGE_TYPES.test(type),
          })
          .catch(() => undefined); // no image, still a preview
        if (image) preview.thumbnail = await this.thumbnail(image.body).catch(() => undefined);
      }
      return preview;
    } finally {
      fetcher.close();
    }
  }

  private async thumbnail(image: Buffer): Promise<Buffer> {
    if (this.opts.thumbnail) return this.opts.thumbnail(image);
    return (await extractImageThumb(image, THUMBNAIL_WIDTH)).buffer;
  }
}

const byAllowPrivate = new Map<boolean, LinkPreviews>();

/**
 * The process's previews. The provider context carries no config, so whether private addresses
 * are allowed is read from `WEBHOOK_ALLOW_PRIVATE` (the platform config's variable and values, as
 * for media downloads): off unless set to true/1/yes.
 */
export function linkPreviewsFromEnv(env: Record<string, string | undefined> = process.env): LinkPreviews {
  const allowPrivate = ["true", "1", "yes"].includes(env.WEBHOOK_ALLOW_PRIVATE ?? "");
  let previews = byAllowPrivate.get(allowPrivate);
  if (!previews) {
    previews = new LinkPreviews({ allowPrivate });
    byAllowPrivate.set(allowPrivate, previews);
  }
  return previews;
}

// ── the link ────────────────────────────────────────────────────────────────

const LINK = /\bhttps?:\/\/[^\s<>"`]+/i;
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/**
 * The first http(s) link of a text, as it appears there, without the sentence's punctuation after
 * it (`veja https://a.example/x.` → `https://a.example/x`; a closing bracket stays when the link
 * opened it). Links without a scheme get no preview (WhatsApp's clients do the same for ours).
 */
export function firstLink(text: string): string | undefined {
  const m = LINK.exec(text);
  if (!m) return undefined;
  let link = m[0];
  for (;;) {
    const last = link.at(-1) ?? "";
    const opener = CLOSERS[last];
    if (/[.,;:!?'*~…]/.test(last)) link = link.slice(0, -1);
    else if (opener && count(link, opener) < count(link, last)) link = link.slice(0, -1);
    else break;
  }
  try {
    return new URL(link).hostname ? link : undefined;
  } catch {
    return undefined;
  }
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

// ── guarded fetch ───────────────────────────────────────────────────────────

interface Fetched {
  /** Where the body came from, after redirects. */
  url: URL;
  body: Buffer;
  charset?: string;
}

interface GetOptions {
  maxBytes: number;
  /** Keep the first `maxBytes` (a page) instead of giving up (an image). */
  truncate: boolean;
  /** Content types (essence, lowercase; "" when absent) worth reading. */
  accept(type: string): boolean;
}

/** One preview's requests: one deadline, one guarded dispatcher (its own when a resolver is injected). */
class GuardedFetch {
  private readonly started = Date.now();
  private readonly deadline: AbortSignal;
  private readonly agent: Agent | undefined;

  constructor(
    private readonly opts: LinkPreviewOptions,
    private readonly timeoutMs: number,
  ) {
    this.deadline = AbortSignal.timeout(timeoutMs);
    this.agent = opts.lookup ? guardedDispatcher({ allowPrivate: opts.allowPrivate, lookup: opts.lookup }) : undefined;
  }

  /** The body of a 2xx answer of an accepted type, else undefined; the guard's refusals and network errors throw. */
  async get(url: string, accept: string, o: GetOptions): Promise<Fetched | undefined> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const res = await guardedRequest(
        current,
        { method: "GET", headers: { ...HEADERS, accept }, signal: this.deadline },
        {
          allowPrivate: this.opts.allowPrivate,
          timeoutMs: Math.max(1, this.timeoutMs - (Date.now() - this.started)),
          ...(this.agent ? { dispatcher: this.agent } : {}),
        },
      );
      const location = header(res.headers, "location");
      if (REDIRECT_STATUS.has(res.statusCode) && location) {
        discard(res.body);
        if (hop >= MAX_REDIRECTS) return undefined;
        current = new URL(location, current).href;
        continue;
      }
      const [essence = "", ...params] = (header(res.headers, "content-type") ?? "").split(";");
      const type = essence.trim().toLowerCase();
      const declared = Number(header(res.headers, "content-length"));
      if (
        res.statusCode < 200 ||
        res.statusCode > 299 ||
        !o.accept(type) ||
        (!o.truncate && Number.isFinite(declared) && declared > o.maxBytes)
      ) {
        discard(res.body);
        return undefined;
      }
      const body = await readUpTo(res.body, o.maxBytes, o.truncate);
      if (!body?.length) return undefined;
      const charset = params
        .map((p) => /^\s*charset\s*=\s*"?([^";\s]+)/i.exec(p)?.[1])
        .find((c): c is string => Boolean(c));
      return { url: new URL(current), body, ...(charset ? { charset } : {}) };
    }
  }

  close(): void {
    if (this.agent) void this.agent.destroy().catch(() => {});
  }
}

function header(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Drops a body we will not read (undici then emits an AbortError nobody needs). */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

/**
 * At most `maxBytes` of a body: a page stops there (or at `</head>`, all a preview needs); an
 * image over the limit is dropped (undefined).
 */
async function readUpTo(
  body: Dispatcher.ResponseData["body"],
  maxBytes: number,
  truncate: boolean,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  let tail = "";
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (total + buf.length > maxBytes) {
      discard(body);
      if (!truncate) return undefined;
      chunks.push(buf.subarray(0, maxBytes - total));
      total = maxBytes;
      break;
    }
    chunks.push(buf);
    total += buf.length;
    if (truncate) {
      const probe = tail + buf.toString("latin1").toLowerCase();
      if (probe.includes("</head")) {
        discard(body);
        break;
      }
      tail = probe.slice(-6);
    }
  }
  return Buffer.concat(chunks, total);
}
