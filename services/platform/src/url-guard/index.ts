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
 *
 * Files: addresses.ts (which IP addresses are forbidden), urls.ts (layers 1 and 2),
 * connections.ts (layer 3). This module is the guard's public list (`@gw/platform/url-guard`).
 */
export { isForbiddenAddress } from "./addresses.ts";
export {
  type GuardedDispatcherOptions,
  type GuardedRequestInit,
  type GuardedRequestOptions,
  guardedDispatcher,
  guardedRequest,
} from "./connections.ts";
export {
  checkTargetUrl,
  type GuardOptions,
  type HostLookup,
  parseTargetUrl,
  type ResolveOptions,
  resolveAndCheck,
} from "./urls.ts";
