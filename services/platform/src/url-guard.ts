import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, isIPv4, isIPv6, type LookupFunction, type Socket } from "node:net";
import { ApiError, invalid } from "@gw/contracts";
import { Agent, buildConnector, type Dispatcher, request } from "undici";

/**
 * Outbound URL guard (spec 4.13, 7 `400 url_not_allowed`): webhook deliveries and, later,
 * `file.url` media fetches must not reach internal addresses or ports other than 80/443.
 *
 * Three layers, each needed:
 * 1. `parseTargetUrl` — syntax and policy of the URL itself (scheme, credentials, port, literal IPs
 *    after WHATWG canonicalization, `localhost` names). Cheap, no I/O.
 * 2. `resolveAndCheck` — when a webhook is saved: the host name is resolved and every address checked,
 *    so the caller gets `url_not_allowed` at once instead of silent failed deliveries.
 * 3. `guardedDispatcher` / `guardedRequest` — at every delivery the name is resolved again inside the
 *    connection (DNS rebinding: the address checked is the address connected to), the connected
 *    socket's peer is checked once more, and redirects are never followed.
 *
 * `allowPrivate` (off by default; on in `make dev` and tests) lifts the address and port rules so local
 * receivers work. Scheme, credential and "must resolve" rules stay on in both settings.
 *
 * Error choice: a string that is not an absolute URL at all is `validation_error` (a malformed field);
 * a well-formed URL that we refuse — wrong scheme, credentials, port, internal address — is
 * `url_not_allowed`. `details` maps the field (default `url`) to the reason, in Portuguese.
 */

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

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const ALLOWED_PORTS = new Set([80, 443]);

function refuse(field: string, message: string, reason: string): ApiError {
  return new ApiError("url_not_allowed", `URL não permitida: ${message}`, { [field]: reason });
}

// ---------------------------------------------------------------------------------------------------
// Addresses

/** Dotted-quad IPv4 (as `net.isIPv4` accepts: decimal, no leading zeros) to an unsigned 32-bit number. */
function parseIPv4(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  const [a, b, c, d] = ip.split(".").map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Any textual IPv6 (compressed, embedded dotted quad, zone id) to a 128-bit integer. */
function parseIPv6(ip: string): bigint | undefined {
  const bare = ip.replace(/%.*$/, ""); // zone id (fe80::1%eth0) does not change the address
  if (!isIPv6(bare)) return undefined;
  const groups = (part: string): number[] => {
    if (part === "") return [];
    return part.split(":").flatMap((g) => {
      if (!g.includes(".")) return [Number.parseInt(g, 16)];
      const v4 = parseIPv4(g) ?? 0; // isIPv6 already validated the dotted quad
      return [v4 >>> 16, v4 & 0xffff];
    });
  };
  const gap = bare.indexOf("::");
  let all: number[];
  if (gap === -1) all = groups(bare);
  else {
    const head = groups(bare.slice(0, gap));
    const tail = groups(bare.slice(gap + 2));
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  if (all.length !== 8) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

type V4Range = { net: number; bits: number };
type V6Range = { net: bigint; bits: number };

function v4(cidr: string): V4Range {
  const [ip, bits] = cidr.split("/") as [string, string];
  return { net: parseIPv4(ip)!, bits: Number(bits) };
}
function v6(cidr: string): V6Range {
  const [ip, bits] = cidr.split("/") as [string, string];
  return { net: parseIPv6(ip)!, bits: Number(bits) };
}

function inV4(ip: number, { net, bits }: V4Range): boolean {
  if (bits === 0) return true;
  const shift = 32 - bits;
  return ip >>> shift === net >>> shift;
}
function inV6(ip: bigint, { net, bits }: V6Range): boolean {
  const shift = BigInt(128 - bits);
  return ip >> shift === net >> shift;
}

/** IANA special-purpose IPv4 blocks that must never be a target (RFC 6890 and successors). */
const V4_FORBIDDEN = [
  "0.0.0.0/8", // "this network"; 0.0.0.0 reaches the local host on Linux
  "10.0.0.0/8", // private
  "100.64.0.0/10", // CGNAT shared space
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, incl. 169.254.169.254 cloud metadata
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // TEST-NET-1
  "192.88.99.0/24", // 6to4 relay anycast (deprecated)
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // TEST-NET-2
  "203.0.113.0/24", // TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, incl. 255.255.255.255 broadcast
].map(v4);

/** IPv6 forms that carry an IPv4 address: checked by the embedded address. */
const V6_MAPPED = v6("::ffff:0:0/96"); // ::ffff:a.b.c.d
const V6_TRANSLATED = v6("::ffff:0:0:0/96"); // ::ffff:0:a.b.c.d (SIIT, RFC 2765)
const V6_NAT64 = v6("64:ff9b::/96"); // well-known NAT64 prefix, 64:ff9b::a.b.c.d
const V6_6TO4 = v6("2002::/16"); // 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD

const V6_FORBIDDEN = [
  "::/96", // unspecified ::, loopback ::1, deprecated IPv4-compatible ::a.b.c.d
  "64:ff9b:1::/48", // local-use NAT64 (RFC 8215)
  "100::/64", // discard-only
  "2001::/32", // Teredo (embeds an obfuscated IPv4)
  "2001:2::/48", // benchmarking
  "2001:10::/28", // ORCHID (deprecated)
  "2001:20::/28", // ORCHIDv2, identifiers, not locators
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation (RFC 9637)
  "5f00::/16", // SRv6 SIDs
  "fc00::/7", // unique-local
  "fe80::/10", // link-local
  "fec0::/10", // site-local (deprecated)
  "ff00::/8", // multicast
].map(v6);

/** Today only 2000::/3 is allocated as global unicast; anything else is refused. */
const V6_GLOBAL_UNICAST = v6("2000::/3");

function isForbiddenV4(ip: number): boolean {
  return V4_FORBIDDEN.some((r) => inV4(ip, r));
}

function isForbiddenV6(ip: bigint): boolean {
  if (inV6(ip, V6_MAPPED) || inV6(ip, V6_TRANSLATED) || inV6(ip, V6_NAT64)) {
    return isForbiddenV4(Number(ip & 0xffff_ffffn));
  }
  if (inV6(ip, V6_6TO4)) return isForbiddenV4(Number((ip >> 80n) & 0xffff_ffffn));
  if (V6_FORBIDDEN.some((r) => inV6(ip, r))) return true;
  return !inV6(ip, V6_GLOBAL_UNICAST);
}

/**
 * True when `ip` (textual IPv4 or IPv6, zone id allowed) is not a public unicast address.
 * Anything that is not an IP address at all is forbidden too (fail closed).
 */
export function isForbiddenAddress(ip: string): boolean {
  const a = parseIPv4(ip);
  if (a !== undefined) return isForbiddenV4(a);
  const b = parseIPv6(ip);
  if (b !== undefined) return isForbiddenV6(b);
  return true;
}

// ---------------------------------------------------------------------------------------------------
// URLs

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
function checkResolved(addresses: readonly LookupAddress[], opts: GuardOptions): void {
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

// ---------------------------------------------------------------------------------------------------
// Connections

export interface GuardedDispatcherOptions extends ResolveOptions {
  /** Connection (TCP + TLS handshake) timeout; default 10 s. */
  connectTimeoutMs?: number;
}

const guardedAgents = new WeakMap<Dispatcher, boolean>();

/**
 * An undici Agent that checks the address of every connection it opens:
 * - a host name is resolved inside the connection attempt (net's `lookup` hook), so the addresses
 *   checked are the ones the socket connects to — a name that answered public when the webhook was
 *   saved and private now (DNS rebinding) is refused; any forbidden address refuses the name;
 * - a literal IP (net skips `lookup` for those) is checked before connecting;
 * - once connected, the socket's peer address and port are checked again (backstop).
 * Refusals reject the request with `ApiError("url_not_allowed")`; resolver errors (ENOTFOUND, EAI_AGAIN)
 * pass through unchanged so a delivery can treat them as ordinary, retryable failures. With `allowPrivate` the injected
 * lookup is still used but nothing is refused. Ports are otherwise the job of `parseTargetUrl`.
 */
export function guardedDispatcher(opts: GuardedDispatcherOptions): Agent {
  const field = opts.field ?? "url";
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    (opts.lookup ?? systemLookup)(hostname).then(
      (found) => {
        try {
          checkResolved(found, opts);
        } catch (err) {
          callback(err as ApiError, "");
          return;
        }
        const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 ? 6 : 0;
        const usable = family === 0 ? found : found.filter((a) => a.family === family);
        const first = usable[0];
        if (!first) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = "ENOTFOUND";
          callback(err, "");
        } else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ""),
    );
  };
  const base = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000, lookup: guardedLookup });

  const connect: buildConnector.connector = (options, callback) => {
    if (!opts.allowPrivate && isIP(options.hostname) && isForbiddenAddress(options.hostname)) {
      callback(refuse(field, "endereço interno.", `endereço interno (${options.hostname})`), null);
      return;
    }
    base(options, (err, socket) => {
      if (err || !socket) {
        callback(err ?? new Error("connection failed"), null);
        return;
      }
      if (!opts.allowPrivate && !peerAllowed(socket)) {
        socket.destroy();
        callback(refuse(field, "endereço interno ou porta não permitida.", "conexão com destino não permitido"), null);
        return;
      }
      callback(null, socket);
    });
  };

  const agent = new Agent({ connect });
  guardedAgents.set(agent, opts.allowPrivate);
  return agent;
}

function peerAllowed(socket: Socket): boolean {
  const address = socket.remoteAddress;
  const port = socket.remotePort;
  return address !== undefined && !isForbiddenAddress(address) && port !== undefined && ALLOWED_PORTS.has(port);
}

const defaultAgents = new Map<boolean, Agent>();

function defaultDispatcher(allowPrivate: boolean): Agent {
  let agent = defaultAgents.get(allowPrivate);
  if (!agent) {
    agent = guardedDispatcher({ allowPrivate });
    defaultAgents.set(allowPrivate, agent);
  }
  return agent;
}

export interface GuardedRequestInit {
  method?: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | null;
  /** Aborts together with the timeout. */
  signal?: AbortSignal;
}

export interface GuardedRequestOptions extends GuardOptions {
  /** Whole-exchange deadline: connection, headers and body (deliveries use 10 s). */
  timeoutMs: number;
  /** From `guardedDispatcher` with the same `allowPrivate` (tests inject a lookup this way); default a shared one. */
  dispatcher?: Agent;
}

/**
 * One outbound request to a guarded target: the URL goes through `parseTargetUrl`, the connection
 * through a guarded dispatcher, redirects are never followed (a 3xx comes back as is, its Location
 * untouched) and the whole exchange, body included, is bounded by `timeoutMs` (on expiry the promise
 * or the body stream fails with the signal's `TimeoutError`). The caller must consume or dump `body`.
 */
export async function guardedRequest(
  url: string | URL,
  init: GuardedRequestInit,
  opts: GuardedRequestOptions,
): Promise<Dispatcher.ResponseData> {
  const target = parseTargetUrl(String(url), opts);
  const dispatcher = opts.dispatcher ?? defaultDispatcher(opts.allowPrivate);
  const guardedWith = guardedAgents.get(dispatcher);
  if (guardedWith === undefined || (guardedWith && !opts.allowPrivate)) {
    throw new Error("guardedRequest: the dispatcher must come from guardedDispatcher with the same allowPrivate");
  }
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  return request(target, {
    dispatcher,
    method: init.method ?? "GET",
    headers: init.headers,
    body: init.body,
    signal,
    maxRedirections: 0,
  });
}
