import { ApiError, BASE64_PROBLEM, invalid, parseBase64Content } from "@gw/contracts";
import { guardedDispatcher, guardedRequest, type HostLookup } from "@gw/platform/url-guard";
import type { Agent, Dispatcher } from "undici";
import { SNIFF_BYTES, sniffMimetype } from "./sniff.ts";

/**
 * The `file` object of the send routes (spec 2.5) turned into bytes: `data` is decoded (strict
 * base64, optionally as a `data:` URL), `url` is downloaded through the same internal-address guard
 * the webhooks use (`@gw/platform/url-guard`), following up to 3 redirects with the guard applied
 * again on every hop, bounded by a whole-download timeout and a size cap.
 *
 * Errors (all `ApiError`, `details` keyed by `<field>.url`, `<field>.data`, `<field>.mimetype`):
 * - a URL the guard refuses, on the first hop or after a redirect: what the guard throws
 *   (`400 url_not_allowed`, or `422 validation_error` for a string that is no URL at all);
 * - the download fails — non-2xx answer, name that does not resolve, connection refused or reset,
 *   TLS failure, timeout, too many redirects, empty body: `422 validation_error` saying why;
 * - more than `maxBytes` (announced by Content-Length or counted while streaming), or decoded `data`
 *   above it: `413 payload_too_large`;
 * - bad base64, empty data, missing or malformed mimetype: `422 validation_error`.
 */

export interface FileInput {
  url?: string | undefined;
  data?: string | undefined;
  mimetype?: string | undefined;
  filename?: string | undefined;
}

export interface LoadedFile {
  data: Buffer;
  mimetype: string;
  filename?: string;
}

export interface LoadOptions {
  /** Allow private/internal addresses and any port (development and tests), as for webhooks. */
  allowPrivate: boolean;
  /** Name of the request field: `file` gives details keys `file.url`, `file.data`, `file.mimetype`. */
  field: string;
  /** Size cap of the file's bytes (downloaded or decoded). */
  maxBytes: number;
  /** Deadline of the whole download: every redirect hop, headers and body. */
  timeoutMs: number;
  /** Resolver for the guarded connection (tests); default the system resolver. */
  lookup?: HostLookup;
}

export const MAX_REDIRECTS = 3;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const OCTET_STREAM = "application/octet-stream";

export async function loadFile(file: FileInput, opts: LoadOptions): Promise<LoadedFile> {
  if (file.data !== undefined) return decodeData(file, opts);
  if (file.url !== undefined) return download(file, opts);
  throw invalid(opts.field, `informe ${opts.field}.url ou ${opts.field}.data`, "Arquivo ausente.");
}

// ---------------------------------------------------------------------------------------------------
// Helpers shared by both sources

/** `1.5 MB`, `300 KB`, `512 bytes`: sizes in messages. */
export function formatBytes(n: number): string {
  const mb = 1024 * 1024;
  if (n >= mb) return `${Number((n / mb).toFixed(1))} MB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KB`;
  return `${n} bytes`;
}

function tooLarge(key: string, maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `Arquivo acima do limite de ${formatBytes(maxBytes)}.`, {
    [key]: `o arquivo passa do limite de ${formatBytes(maxBytes)}`,
  });
}

const TOKEN = "[a-z0-9!#$&^_.+-]+";
const MIME_RE = new RegExp(`^${TOKEN}/${TOKEN}$`);

/**
 * `type/subtype` lowercased, keeping only a `codecs` parameter (`audio/ogg; codecs=opus`); other
 * parameters (charset, boundary, name...) are dropped. `undefined` when not of that shape.
 */
export function normalizeMimetype(raw: string): string | undefined {
  const [essence = "", ...params] = raw.split(";");
  const type = essence.trim().toLowerCase();
  if (!MIME_RE.test(type)) return undefined;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "codecs") continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim();
    if (value !== "") return `${type}; codecs=${value}`;
  }
  return type;
}

function callerMimetype(file: FileInput, field: string): string | undefined {
  if (file.mimetype === undefined || file.mimetype.trim() === "") return undefined;
  const normalized = normalizeMimetype(file.mimetype);
  if (!normalized) {
    throw invalid(`${field}.mimetype`, "use o formato tipo/subtipo, por exemplo image/jpeg", "Mimetype inválido.");
  }
  return normalized;
}

/** A file name safe to pass on: last path component, no control characters, at most 255 characters. */
export function sanitizeFilename(raw: string): string | undefined {
  const base = raw.split(/[/\\]/).pop() ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (clean === "" || clean === "." || clean === "..") return undefined;
  return clean.length > 255 ? clean.slice(0, 255) : clean;
}

// ---------------------------------------------------------------------------------------------------
// data (base64)

function decodeData(file: FileInput, opts: LoadOptions): LoadedFile {
  const key = `${opts.field}.data`;
  const content = parseBase64Content(file.data ?? "");
  if (!content.ok) {
    const summary = content.reason === "empty" ? "Arquivo vazio." : "Arquivo em base64 inválido.";
    throw invalid(key, BASE64_PROBLEM[content.reason], summary);
  }
  const text = content.base64;
  const urlMimetype = content.urlType ? normalizeMimetype(content.urlType) : undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const size = Math.floor((text.length * 3) / 4) - padding;
  if (size > opts.maxBytes) throw tooLarge(key, opts.maxBytes);

  const mimetype = callerMimetype(file, opts.field) ?? urlMimetype;
  if (!mimetype) {
    throw invalid(
      `${opts.field}.mimetype`,
      "obrigatório quando o arquivo vai em data (base64)",
      "Mimetype obrigatório.",
    );
  }
  const filename = file.filename !== undefined ? sanitizeFilename(file.filename) : undefined;
  return { data: Buffer.from(text, "base64"), mimetype, ...(filename ? { filename } : {}) };
}

// ---------------------------------------------------------------------------------------------------
// url (guarded download)

const sharedDispatchers = new Map<string, Agent>();

/** A guarded dispatcher whose refusals name `key`; shared unless a test injects a resolver. */
function dispatcherFor(opts: LoadOptions, key: string): { agent: Agent; owned: boolean } {
  if (opts.lookup) {
    return {
      agent: guardedDispatcher({ allowPrivate: opts.allowPrivate, field: key, lookup: opts.lookup }),
      owned: true,
    };
  }
  const cacheKey = `${opts.allowPrivate}|${key}`;
  let agent = sharedDispatchers.get(cacheKey);
  if (!agent) {
    agent = guardedDispatcher({ allowPrivate: opts.allowPrivate, field: key });
    sharedDispatchers.set(cacheKey, agent);
  }
  return { agent, owned: false };
}

function header(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function fetchFailed(key: string, reason: string): ApiError {
  return invalid(key, reason, "Não foi possível baixar o arquivo.");
}

async function download(file: FileInput, opts: LoadOptions): Promise<LoadedFile> {
  const key = `${opts.field}.url`;
  const given = callerMimetype(file, opts.field); // a malformed mimetype fails before any I/O
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const started = Date.now();
  const { agent, owned } = dispatcherFor(opts, key);
  let current = file.url ?? "";
  try {
    for (let hop = 0; ; hop++) {
      const res = await guardedRequest(
        current,
        { method: "GET", headers: { accept: "*/*", "user-agent": "MessagingGateway-Media/1" }, signal: deadline },
        {
          allowPrivate: opts.allowPrivate,
          field: key,
          timeoutMs: Math.max(1, opts.timeoutMs - (Date.now() - started)),
          dispatcher: agent,
        },
      );
      const location = header(res.headers, "location");
      if (REDIRECT_STATUS.has(res.statusCode) && location) {
        discard(res.body);
        if (hop >= MAX_REDIRECTS) throw fetchFailed(key, `redirecionamentos demais (mais de ${MAX_REDIRECTS})`);
        try {
          current = new URL(location, current).href;
        } catch {
          throw fetchFailed(key, "o endereço redirecionou para uma URL inválida");
        }
        continue;
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        discard(res.body);
        throw fetchFailed(key, `o endereço respondeu ${res.statusCode}`);
      }
      const declared = Number(header(res.headers, "content-length"));
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        discard(res.body);
        throw tooLarge(key, opts.maxBytes);
      }
      const data = await readCapped(res.body, opts.maxBytes, key);
      if (data.length === 0) throw fetchFailed(key, "o endereço respondeu sem conteúdo");

      const served = header(res.headers, "content-type");
      const servedType = served ? normalizeMimetype(served) : undefined;
      const mimetype =
        given ??
        (servedType && servedType !== OCTET_STREAM ? servedType : undefined) ??
        sniffMimetype(data.subarray(0, SNIFF_BYTES)) ??
        OCTET_STREAM;
      const filename =
        (file.filename !== undefined ? sanitizeFilename(file.filename) : undefined) ??
        filenameFromDisposition(header(res.headers, "content-disposition")) ??
        filenameFromUrl(current) ??
        (current !== file.url ? filenameFromUrl(file.url ?? "") : undefined);
      return { data, mimetype, ...(filename ? { filename } : {}) };
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (deadline.aborted) throw fetchFailed(key, timeoutReason(opts.timeoutMs));
    throw fetchFailed(key, describeNetworkError(err, current, opts.timeoutMs));
  } finally {
    if (owned) void agent.destroy().catch(() => {});
  }
}

/** Drops a body we will not read; undici then emits an AbortError that nobody needs to see. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

async function readCapped(body: Dispatcher.ResponseData["body"], maxBytes: number, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > maxBytes) {
      discard(body);
      throw tooLarge(key, maxBytes);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}

function timeoutReason(timeoutMs: number): string {
  return `tempo esgotado ao baixar o arquivo (limite de ${Number((timeoutMs / 1000).toFixed(1))} s)`;
}

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "ENODATA", "EAI_NONAME", "EAI_FAIL"]);

/** Why a download failed, in Portuguese, from an undici/net error (possibly wrapped or aggregated). */
function describeNetworkError(err: unknown, url: string, timeoutMs: number): string {
  type Failure = { code?: string; syscall?: string };
  const e = err as Failure & { name?: string; cause?: Failure; errors?: Failure[] };
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code ?? "";
  // The resolver's own refusals (EINVAL for a name over DNS's 253 characters) are names that do not resolve too.
  const syscall = e?.syscall ?? e?.cause?.syscall ?? e?.errors?.[0]?.syscall;
  let host = url;
  try {
    host = new URL(url).host;
  } catch {}
  if (e?.name === "TimeoutError" || code.endsWith("_TIMEOUT") || code === "ETIMEDOUT") return timeoutReason(timeoutMs);
  if (DNS_CODES.has(code) || syscall === "getaddrinfo") return `o nome ${host} não pôde ser resolvido`;
  if (code === "ECONNREFUSED") return `conexão recusada por ${host}`;
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") {
    return "a conexão foi encerrada antes do fim do arquivo";
  }
  if (code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL") || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return `falha na conexão segura (TLS) com ${host}: ${code}`;
  }
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return `o endereço ${host} está inacessível`;
  return `falha ao baixar o arquivo${code ? ` (${code})` : ""}`;
}

// ---------------------------------------------------------------------------------------------------
// File names

/** Splits `a=1; b="x;y"` into parameters, honoring quoted strings with backslash escapes. */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const m of value.matchAll(re)) {
    const name = m[1]!.toLowerCase();
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] ?? "").trim();
    if (!params.has(name)) params.set(name, raw);
  }
  return params;
}

/** RFC 6266: `filename*` (RFC 8187 `UTF-8''%..`) wins over `filename`. */
export function filenameFromDisposition(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const params = dispositionParams(value);
  const extended = params.get("filename*");
  if (extended) {
    const m = /^([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec(extended);
    if (m) {
      const charset = m[1]!.toLowerCase();
      try {
        const decoded =
          charset === "iso-8859-1" || charset === "latin1"
            ? m[2]!.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
            : decodeURIComponent(m[2]!);
        const name = sanitizeFilename(decoded);
        if (name) return name;
      } catch {}
    }
  }
  const plain = params.get("filename");
  return plain ? sanitizeFilename(plain) : undefined;
}

/** The last non-empty segment of the URL's path, percent-decoded. */
export function filenameFromUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const segment = url.pathname.split("/").filter(Boolean).pop();
  if (!segment) return undefined;
  try {
    return sanitizeFilename(decodeURIComponent(segment));
  } catch {
    return sanitizeFilename(segment);
  }
}
