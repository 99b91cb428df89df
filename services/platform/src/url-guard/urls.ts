import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ApiError, invalid } from "@gw/contracts";
import { isForbiddenAddress } from "./addresses.ts";

// The URL checks of the URL guard (index.ts): the target URL's syntax and policy, and its host's
// resolution when a webhook is saved.

export interface GuardOptions {
  /** Allow private/internal addresses and any port (local receivers in development and tests). */
  allowPrivate: boolean;
  /** Name of the request field for `details` (`url` for webhooks, `file.url` for send routes). */
  field?: string;
}

/** Resolves a host name to all its addresses, like `dns.promises.lookup(host, { all: true })`. */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

export interface ResolveOptions extends GuardOptions {
  /** Injectable for tests; default the system resolver (getaddrinfo, so /etc/hosts applies). */
  lookup?: HostLookup;
}

/** The system resolver (getaddrinfo). */
export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The only ports a target may use unless `allowPrivate`. */
export const ALLOWED_PORTS = new Set([80, 443]);

/** The `url_not_allowed` refusal, `details` mapping the field to the reason. */
export function refuse(field: string, message: string, reason: string): ApiError {
  return new ApiError("url_not_allowed", `URL não permitida: ${message}`, { [field]: reason });
}

/** `url.hostname` without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * Parses and checks an outbound target. Throws `validation_error` when `raw` is not an absolute URL,
 * `url_not_allowed` when it is one we refuse. IPv4 numeric tricks (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`, `127.0.0.1.`) are canonicalized by the WHATWG parser before the check, so
 * the literal compared is the one a client would connect to. Host names are only checked for
 * `localhost`; their addresses are checked by `resolveAndCheck` and at connection time.
 */
export function parseTargetUrl(raw: string, opts: GuardOptions): URL {
  const field = opts.field ?? "url";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(field, "informe uma URL absoluta http ou https", "URL inválida.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refuse(
      field,
      "somente http e https são aceitos.",
      `esquema ${url.protocol} não permitido; use http ou https`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw refuse(field, "credenciais na URL não são aceitas.", "credenciais (usuário:senha@) não são aceitas na URL");
  }
  if (opts.allowPrivate) return url;

  const port = effectivePort(url);
  if (!ALLOWED_PORTS.has(port)) {
    throw refuse(field, "porta diferente de 80/443.", `porta ${port} não permitida; use 80 ou 443`);
  }
  const host = bareHost(url);
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw refuse(field, "endereço interno.", `endereço interno (${host})`);
    return url;
  }
  const name = host.replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) {
    throw refuse(field, "endereço interno.", `nome local (${name})`);
  }
  return url;
}

/** Any forbidden address refuses the name: a resolver may hand out either one. */
export function checkResolved(addresses: readonly LookupAddress[], opts: GuardOptions): void {
  // The address itself is not echoed: the name may be one only our resolver knows (split-horizon DNS).
  if (!opts.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw refuse(
      opts.field ?? "url",
      "o nome do host aponta para um endereço interno.",
      "o nome aponta para um endereço interno",
    );
  }
}

/**
 * Resolves the URL's host (literal IPs are checked directly) and refuses when it resolves to nothing
 * or, unless `allowPrivate`, when ANY of its addresses is forbidden. Returns the addresses. Call after
 * `parseTargetUrl`; used when a webhook is saved. Deliveries check again at connection time.
 */
export async function resolveAndCheck(url: URL, opts: ResolveOptions): Promise<string[]> {
  const host = bareHost(url);
  if (isIP(host)) {
    if (!opts.allowPrivate && isForbiddenAddress(host)) {
      throw refuse(opts.field ?? "url", "endereço interno.", `endereço interno (${host})`);
    }
    return [host];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (opts.lookup ?? systemLookup)(host);
  } catch {
    addresses = []; // ENOTFOUND, ENODATA, EAI_AGAIN...: the name cannot be used now
  }
  if (addresses.length === 0) {
    throw refuse(
      opts.field ?? "url",
      "o nome do host não pôde ser resolvido.",
      `o nome ${host} não resolve para nenhum endereço`,
    );
  }
  checkResolved(addresses, opts);
  return addresses.map((a) => a.address);
}

/** `parseTargetUrl` then `resolveAndCheck`: the whole check for saving a webhook URL. */
export async function checkTargetUrl(raw: string, opts: ResolveOptions): Promise<URL> {
  const url = parseTargetUrl(raw, opts);
  await resolveAndCheck(url, opts);
  return url;
}
