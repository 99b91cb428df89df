// The operator's error answers → the spec's errors, and which of them fail an instance, at the
// HTTP boundary: a real server answering as the operator (JSON error body) or as a proxy in front
// of it (a page that is not the operator's JSON).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiErrorOfGraph, isAuthFailure, isTransient } from "./errors.ts";
import { GraphError, graph } from "./graph.ts";

let server: Server;
let base: string;
/** What the server answers next: status, content type, body. */
let next: [number, string, string] = [200, "application/json", "{}"];

beforeAll(async () => {
  server = createServer((_req, res) => {
    const [status, type, body] = next;
    res.writeHead(status, { "content-type": type }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v25.0`;
});
afterAll(() => new Promise((r) => server.close(r)));

async function failure(status: number, type: string, body: string): Promise<GraphError> {
  next = [status, type, body];
  const err = await graph.get({ apiBaseUrl: base, accessToken: "t", timeoutMs: 2_000 }, "123").then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GraphError);
  return err as GraphError;
}

const operatorBody = (code: number, message = "x") =>
  JSON.stringify({ error: { message, type: "OAuthException", code } });

describe("answers without the operator's error body", () => {
  it("carry no code (not 0, the operator's AuthException): the HTTP status decides", async () => {
    const proxy502 = await failure(502, "text/html", "<html><body>502 Bad Gateway</body></html>");
    expect(proxy502.code).toBeNull();
    expect(isAuthFailure(proxy502)).toBe(false);
    expect(isTransient(proxy502)).toBe(true);
    const e = apiErrorOfGraph(proxy502);
    expect(e.code).toBe("network_unavailable");
    expect(e.retryAfter).toBeGreaterThan(0);
    expect(e.details).toEqual({ operatorStatus: "502" });

    const empty500 = await failure(500, "text/plain", "");
    expect(isAuthFailure(empty500)).toBe(false);
    expect(apiErrorOfGraph(empty500)).toMatchObject({ code: "network_error", retryAfter: 5 });
    expect(isTransient(empty500)).toBe(true);

    const notFound = await failure(404, "text/html", "<h1>Not Found</h1>");
    expect(isAuthFailure(notFound)).toBe(false);
    expect(isTransient(notFound)).toBe(false);
    expect(apiErrorOfGraph(notFound).code).toBe("network_error");
    expect(apiErrorOfGraph(notFound).message).toMatch(/apiBaseUrl/);

    const limited = await failure(429, "text/plain", "slow down");
    expect(apiErrorOfGraph(limited).code).toBe("rate_limited");
    expect(isTransient(limited)).toBe(true);

    const forbidden = await failure(403, "text/html", "denied");
    expect(isAuthFailure(forbidden)).toBe(false);
  });

  it("a 401 without a body still says the credentials were refused", async () => {
    const unauthorized = await failure(401, "text/html", "<h1>401</h1>");
    expect(unauthorized.code).toBeNull();
    expect(isAuthFailure(unauthorized)).toBe(true);
  });
});

describe("the operator's own error body", () => {
  it("is mapped by its code, whatever the HTTP status", async () => {
    const expired = await failure(401, "application/json", operatorBody(190, "Session has expired"));
    expect(expired.code).toBe(190);
    expect(isAuthFailure(expired)).toBe(true);
    const auth0 = await failure(401, "application/json", operatorBody(0));
    expect(auth0.code).toBe(0);
    expect(isAuthFailure(auth0)).toBe(true);

    const unknown = await failure(500, "application/json", operatorBody(131000));
    expect(isAuthFailure(unknown)).toBe(false);
    expect(isTransient(unknown)).toBe(true);
    expect(apiErrorOfGraph(unknown).details).toMatchObject({ operatorCode: "131000" });

    const throughput = await failure(400, "application/json", operatorBody(130429));
    expect(apiErrorOfGraph(throughput).code).toBe("rate_limited");
    expect(isTransient(throughput)).toBe(true);

    const invalid = await failure(400, "application/json", operatorBody(100));
    expect(isTransient(invalid)).toBe(false);
    expect(isAuthFailure(invalid)).toBe(false);
  });
});

describe("no answer at all", () => {
  it("is transient and never an auth failure", () => {
    const refused = new GraphError(0, null, "connect ECONNREFUSED", null, null, true);
    expect(isAuthFailure(refused)).toBe(false);
    expect(isTransient(refused)).toBe(true);
    expect(apiErrorOfGraph(refused).code).toBe("network_unavailable");
  });
});
