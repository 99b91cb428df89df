import { isIP, type LookupFunction, type Socket } from "node:net";
import type { ApiError } from "@gw/contracts";
import { Agent, buildConnector, type Dispatcher, request } from "undici";
import { isForbiddenAddress } from "./addresses.ts";
import {
  ALLOWED_PORTS,
  checkResolved,
  type GuardOptions,
  parseTargetUrl,
  type ResolveOptions,
  refuse,
  systemLookup,
} from "./urls.ts";

// The connections of the URL guard (index.ts): a dispatcher that checks every address it connects
// to, and the one guarded request deliveries make with it.

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
