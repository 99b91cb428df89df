import { ApiError } from "@gw/contracts";
import type { FastifyInstance, FastifyReply } from "fastify";

/** A route's path pattern (Fastify syntax) as a regular expression over the request path. */
function patternOf(url: string): RegExp {
  const source = url
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}$`);
}

/**
 * How specific a route's path is, comparable as a string: per segment `2` fixed, `1` a
 * parameter, `0` a wildcard — the router's own preference, segment by segment from the left.
 */
function rankOf(url: string): string {
  return url
    .split("/")
    .map((segment) => (segment === "*" ? "0" : segment.startsWith(":") ? "1" : "2"))
    .join("");
}

/**
 * `405 Method Not Allowed` for a method the server has no route for on a path it knows
 * (RFC 9110 15.5.6): with `Allow` listing the path's methods and the spec's error body. The
 * spec's error codes have no 405 code, so the body is `bad_request`'s with its own message.
 *
 * Once for the whole server, from Fastify's route table: every route registered after this is
 * recorded (onRoute), and a request that found no route (`is404`) is answered 405 when another
 * method's route matches its path — before its body is read or its credentials checked (a
 * path's methods are public, in /v1/openapi.json). Everything else stays the 404 of the
 * not-found handler. Must be registered before the routes.
 */
export function registerMethodNotAllowed(app: FastifyInstance): void {
  const routes = new Map<string, { pattern: RegExp; rank: string; methods: Set<string> }>();
  app.addHook("onRoute", (route) => {
    if ((route.config as { methodNotAllowed?: boolean } | undefined)?.methodNotAllowed) return;
    const url = route.url.length > 1 ? route.url.replace(/\/+$/, "") : route.url;
    let entry = routes.get(url);
    if (!entry) {
      entry = { pattern: patternOf(url), rank: rankOf(url), methods: new Set() };
      routes.set(url, entry);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      entry.methods.add(method.toUpperCase());
    }
  });

  /**
   * The methods of this request path's resource (empty: a path the server does not know). Where
   * routes overlap (`/queue/pause` and `/queue/:queueId`), the resource is the most specific
   * one, as the router and the API document see it: `Allow` lists its methods only.
   */
  const allowedOn = (rawUrl: string): string[] => {
    const q = rawUrl.indexOf("?");
    let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    // ignoreTrailingSlash, as the router
    if (path.length > 1) path = path.replace(/\/+$/, "");
    let best: { rank: string; methods: Set<string> } | undefined;
    for (const entry of routes.values()) {
      if (entry.pattern.test(path) && (!best || entry.rank > best.rank)) best = entry;
    }
    if (!best) return [];
    const methods = new Set(best.methods);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };

  // A callback hook, not an async one: it runs on every request (a promise each is measurable).
  app.addHook("onRequest", (req, reply, done) => {
    if (!req.is404) return done();
    const allowed = allowedOn(req.raw.url ?? "/");
    if (allowed.length === 0 || allowed.includes(req.method)) return done();
    methodNotAllowed(reply, req.method, allowed);
  });
}

/**
 * A path of fixed segments that a parametric route of another method also matches
 * (`POST /queue/pause` and `GET /queue/{queueId}`): the router would give `GET /queue/pause` to
 * the parametric route, which answers 404 or 422 for the id "pause". The fixed path is its own
 * resource: its other methods answer 405 by a route of their own, which the router prefers.
 */
export function registerShadowedMethods(
  app: FastifyInstance,
  routes: readonly { url: string; method: string }[],
): void {
  const byUrl = new Map<string, Set<string>>();
  for (const { url, method } of routes) byUrl.set(url, (byUrl.get(url) ?? new Set()).add(method.toUpperCase()));
  const patterns = [...byUrl.keys()].map((url) => [url, patternOf(url)] as const);
  for (const [url, methods] of byUrl) {
    const allowed = [...methods, ...(methods.has("GET") ? ["HEAD"] : [])].sort();
    const shadowed = new Set<string>();
    for (const [other, pattern] of patterns) {
      if (other === url || !pattern.test(url)) continue;
      for (const m of byUrl.get(other) ?? []) if (!methods.has(m)) shadowed.add(m);
    }
    if (shadowed.has("GET")) shadowed.add("HEAD");
    if (shadowed.size === 0) continue;
    app.route({
      method: [...shadowed].sort(),
      url,
      exposeHeadRoute: false,
      config: { methodNotAllowed: true },
      handler: async (req, reply) => methodNotAllowed(reply, req.method, allowed),
    });
  }
}

function methodNotAllowed(reply: FastifyReply, method: string, allowed: string[]): FastifyReply {
  const err = new ApiError("bad_request", `Método ${method} não permitido neste caminho. Use: ${allowed.join(", ")}.`);
  return reply.code(405).header("allow", allowed.join(", ")).type("application/json; charset=utf-8").send(err.toBody());
}
