import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "@gw/contracts";
import { Agent, request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { a4, apiErrorAsync, OPEN, STRICT, scriptedLookup } from "../testing/url-guard.ts";
import { guardedDispatcher, guardedRequest } from "./connections.ts";
import { resolveAndCheck } from "./urls.ts";

// Tests never contact anything but 127.0.0.1: public addresses below are only ever returned by
// injected lookups that run where no connection follows (save-time checks) or are refused first.

describe("connections (local servers on 127.0.0.1 only)", () => {
  let server: Server;
  let port: number;
  let hits: string[];
  const agents: Agent[] = [];
  const dispatcher = (opts: Parameters<typeof guardedDispatcher>[0]) => {
    const agent = guardedDispatcher(opts);
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.headers.host} ${req.url}`);
      if (req.url === "/hang") return; // never answers
      if (req.url === "/redirect") {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
        return;
      }
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`ok ${body}`));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    hits = [];
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    server.closeAllConnections();
    server.close();
  });

  it("DNS rebinding: a name that was public when saved and is loopback at delivery is refused at connect time", async () => {
    // First answer: public (save time, no connection made). Second: loopback (delivery).
    const lookup = scriptedLookup([a4("93.184.215.14")], [a4("127.0.0.1")]);
    const url = new URL(`http://rebind.test:${port}/hook`);
    await expect(resolveAndCheck(url, { ...STRICT, lookup })).resolves.toEqual(["93.184.215.14"]);

    // The dispatcher alone (the port rule belongs to parseTargetUrl): only the address check applies.
    const err = await apiErrorAsync(request(url, { dispatcher: dispatcher({ ...STRICT, lookup }) }));
    expect(err.code).toBe("url_not_allowed");
    expect(err.details).toEqual({ url: "o nome aponta para um endereço interno" });
    expect(lookup.calls).toEqual(["rebind.test", "rebind.test"]);
    expect(hits).toEqual([]);
  });

  it("re-resolves on every new connection", async () => {
    const lookup = scriptedLookup([a4("127.0.0.1")], [a4("10.9.9.9")]);
    const d = dispatcher({ ...STRICT, lookup });
    // a name answering private on the first connection is refused, whatever it answers later
    expect((await apiErrorAsync(request(`http://one.test:${port}/`, { dispatcher: d }))).code).toBe("url_not_allowed");
    expect((await apiErrorAsync(request(`http://two.test:${port}/`, { dispatcher: d }))).code).toBe("url_not_allowed");
    expect(lookup.calls).toEqual(["one.test", "two.test"]);
    expect(hits).toEqual([]);
  });

  it("refuses literal forbidden IPs (net does not call lookup for those)", async () => {
    const lookup = scriptedLookup(new Error("must not be called"));
    const d = dispatcher({ ...STRICT, lookup });
    const err = await apiErrorAsync(request(`http://127.0.0.1:${port}/`, { dispatcher: d }));
    expect(err.details).toEqual({ url: "endereço interno (127.0.0.1)" });
    const err6 = await apiErrorAsync(request(`http://[::ffff:127.0.0.1]:${port}/`, { dispatcher: d }));
    expect(err6.details).toEqual({ url: "endereço interno (::ffff:7f00:1)" });
    expect(lookup.calls).toEqual([]);
    expect(hits).toEqual([]);
  });

  it("with allowPrivate the same name reaches the local server", async () => {
    const lookup = scriptedLookup([a4("127.0.0.1")]);
    const d = dispatcher({ ...OPEN, lookup });
    const res = await guardedRequest(
      `http://receiver.test:${port}/hook`,
      { method: "POST", headers: { "content-type": "text/plain" }, body: "ping" },
      { ...OPEN, timeoutMs: 5_000, dispatcher: d },
    );
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe("ok ping");
    expect(hits).toEqual([`POST receiver.test:${port} /hook`]);
    expect(lookup.calls).toEqual(["receiver.test"]);
  });

  it("allowPrivate allows 127.0.0.1 on any port through the default dispatcher", async () => {
    const res = await guardedRequest(`http://127.0.0.1:${port}/any`, {}, { ...OPEN, timeoutMs: 5_000 });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    expect(hits).toEqual([`GET 127.0.0.1:${port} /any`]);
  });

  it("without allowPrivate, guardedRequest refuses the same local URL before connecting", async () => {
    for (const raw of [`http://127.0.0.1:${port}/any`, "http://127.0.0.1/any", "http://localhost/any"]) {
      const err = await apiErrorAsync(guardedRequest(raw, {}, { ...STRICT, timeoutMs: 5_000 }));
      expect(err.code).toBe("url_not_allowed");
    }
    const lookup = scriptedLookup([a4("127.0.0.1")]);
    const err = await apiErrorAsync(
      guardedRequest(
        "http://rebind.test/hook",
        {},
        { ...STRICT, timeoutMs: 5_000, dispatcher: dispatcher({ ...STRICT, lookup }) },
      ),
    );
    expect(err.code).toBe("url_not_allowed");
    expect(lookup.calls).toEqual(["rebind.test"]);
    expect(hits).toEqual([]);
  });

  it("redirects are not followed: the 3xx comes back as is and its target is never contacted", async () => {
    const res = await guardedRequest(`http://127.0.0.1:${port}/redirect`, {}, { ...OPEN, timeoutMs: 5_000 });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${port}/target`);
    await res.body.dump();
    await new Promise((r) => setTimeout(r, 50));
    expect(hits).toEqual([`GET 127.0.0.1:${port} /redirect`]);
  });

  it("times out with the given deadline", async () => {
    const started = Date.now();
    const err = await guardedRequest(`http://127.0.0.1:${port}/hang`, {}, { ...OPEN, timeoutMs: 200 }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.name).toBe("TimeoutError");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(hits).toEqual([`GET 127.0.0.1:${port} /hang`]);
  });

  it("the caller's signal aborts too", async () => {
    const ctl = new AbortController();
    const p = guardedRequest(`http://127.0.0.1:${port}/hang`, { signal: ctl.signal }, { ...OPEN, timeoutMs: 5_000 });
    setTimeout(() => ctl.abort(new Error("stop")), 50);
    await expect(p).rejects.toThrow("stop");
  });

  it("refuses a dispatcher that is not guarded, or more permissive than asked", async () => {
    const plain = new Agent();
    agents.push(plain);
    await expect(
      guardedRequest(`http://127.0.0.1:${port}/`, {}, { ...OPEN, timeoutMs: 1_000, dispatcher: plain }),
    ).rejects.toThrow(/guardedDispatcher/);
    const open = dispatcher(OPEN);
    await expect(
      guardedRequest("http://hooks.example.com/", {}, { ...STRICT, timeoutMs: 1_000, dispatcher: open }),
    ).rejects.toThrow(/guardedDispatcher/);
    expect(hits).toEqual([]);
  });

  it("resolver errors at delivery pass through unchanged (retryable, not url_not_allowed)", async () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND gone.test"), { code: "ENOTFOUND" });
    const d = dispatcher({ ...STRICT, lookup: scriptedLookup(notFound) });
    const err = await request(`http://gone.test:${port}/`, { dispatcher: d }).then(
      () => null,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(err).not.toBeInstanceOf(ApiError);
    expect(err?.code).toBe("ENOTFOUND");
  });
});
