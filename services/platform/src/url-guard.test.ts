import type { LookupAddress } from "node:dns";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "@gw/contracts";
import { Agent, request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  checkTargetUrl,
  guardedDispatcher,
  guardedRequest,
  type HostLookup,
  isForbiddenAddress,
  parseTargetUrl,
  resolveAndCheck,
} from "./url-guard.ts";

// Tests never contact anything but 127.0.0.1: public addresses below are only ever returned by
// injected lookups that run where no connection follows (save-time checks) or are refused first.

const STRICT = { allowPrivate: false };
const OPEN = { allowPrivate: true };

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected an ApiError");
}

async function apiErrorAsync(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** An injected lookup answering from a fixed list per call; records the names asked. */
function scriptedLookup(...answers: (LookupAddress[] | Error)[]): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)];
    calls.push(hostname);
    if (answer instanceof Error) throw answer;
    return answer ?? [];
  };
  return Object.assign(fn, { calls });
}
const a4 = (address: string): LookupAddress => ({ address, family: 4 });
const a6 = (address: string): LookupAddress => ({ address, family: 6 });

describe("isForbiddenAddress: IPv4", () => {
  const refused = [
    "0.0.0.0",
    "0.255.255.255",
    "10.0.0.0",
    "10.255.255.255",
    "100.64.0.0",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.255",
    "169.254.0.0",
    "169.254.169.254",
    "169.254.255.255",
    "172.16.0.0",
    "172.31.255.255",
    "192.0.0.0",
    "192.0.0.255",
    "192.0.2.0",
    "192.0.2.255",
    "192.88.99.1",
    "192.168.0.0",
    "192.168.255.255",
    "198.18.0.0",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.255",
    "224.0.0.0",
    "239.255.255.255",
    "240.0.0.0",
    "255.255.255.255",
  ];
  const allowed = [
    "1.0.0.0",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.0",
    "192.0.3.0",
    "192.88.98.255",
    "192.88.100.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "198.51.99.255",
    "198.51.101.0",
    "203.0.112.255",
    "203.0.114.0",
    "223.255.255.255",
    "8.8.8.8",
  ];
  it.each(refused)("refuses %s", (ip) => expect(isForbiddenAddress(ip)).toBe(true));
  it.each(allowed)("allows %s", (ip) => expect(isForbiddenAddress(ip)).toBe(false));
});

describe("isForbiddenAddress: IPv6", () => {
  const refused = [
    "::",
    "::1",
    "0:0:0:0:0:0:0:1",
    "::7f00:1", // deprecated IPv4-compatible
    "::8.8.8.8", // deprecated IPv4-compatible, even with a public IPv4
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.1.2.3",
    "::ffff:169.254.169.254",
    "::ffff:0:127.0.0.1", // IPv4-translated
    "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
    "64:ff9b::10.0.0.1",
    "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
    "64:ff9b:1::808:808", // local-use NAT64
    "100::",
    "100::ffff:ffff:ffff:ffff",
    "2001::1", // Teredo
    "2001:db8::",
    "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    "2002:7f00:1::", // 6to4 of 127.0.0.1
    "2002:a00:1::1", // 6to4 of 10.0.0.1
    "2002:c0a8:101::1", // 6to4 of 192.168.1.1
    "3fff::1",
    "fc00::",
    "fd00::1",
    "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "fe80::",
    "fe80::1",
    "fe80::1%eth0",
    "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "fec0::1",
    "ff00::",
    "ff02::1",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "1::", // outside 2000::/3: not allocated as global unicast
    "4000::1",
  ];
  const allowed = [
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2001:4860:4860::8888",
    "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", // just below 2001:db8::/32
    "2001:db9::", // just above
    "2002:808:808::1", // 6to4 of 8.8.8.8
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::8.8.8.8",
    "64:ff9b::808:808",
    "3ffe::1",
  ];
  it.each(refused)("refuses %s", (ip) => expect(isForbiddenAddress(ip)).toBe(true));
  it.each(allowed)("allows %s", (ip) => expect(isForbiddenAddress(ip)).toBe(false));

  it("fails closed on anything that is not an IP address", () => {
    for (const s of ["", "localhost", "example.com", "127.1", "0x7f000001", "2130706433", "[::1]", "1.2.3.4.5"]) {
      expect(isForbiddenAddress(s)).toBe(true);
    }
  });
});

describe("parseTargetUrl", () => {
  it("accepts public http and https URLs on 80/443, explicit or default", () => {
    for (const raw of [
      "https://hooks.example.com/in?x=1",
      "http://hooks.example.com/",
      "https://hooks.example.com:443/a",
      "http://hooks.example.com:80/a",
      "http://8.8.8.8/",
      "https://[2606:4700:4700::1111]/",
    ]) {
      expect(parseTargetUrl(raw, STRICT).href).toBe(new URL(raw).href);
    }
  });

  it("a string that is not an absolute URL is a validation error", () => {
    for (const raw of ["", "not a url", "/relative/path", "hooks.example.com/in", "http://", "http://[::1"]) {
      const err = apiError(() => parseTargetUrl(raw, STRICT));
      expect(err.code).toBe("validation_error");
      expect(err.status).toBe(422);
      expect(err.details?.url).toBeTruthy();
    }
  });

  it("refuses other schemes with url_not_allowed", () => {
    for (const raw of [
      "file:///etc/passwd",
      "gopher://127.0.0.1:6379/_INFO",
      "ftp://ftp.example.com/",
      "ws://hooks.example.com/",
      "data:text/plain,hi",
      "javascript:alert(1)",
    ]) {
      const err = apiError(() => parseTargetUrl(raw, OPEN));
      expect(err.code).toBe("url_not_allowed");
      expect(err.status).toBe(400);
      expect(err.details?.url).toMatch(/esquema/);
    }
  });

  it("refuses credentials in the URL, in both settings", () => {
    for (const raw of [
      "https://user:pass@hooks.example.com/",
      "https://user@hooks.example.com/",
      "http://:p@h.example/",
    ]) {
      for (const opts of [STRICT, OPEN]) {
        const err = apiError(() => parseTargetUrl(raw, opts));
        expect(err.code).toBe("url_not_allowed");
        expect(err.details?.url).toMatch(/credenciais/);
      }
    }
  });

  it("refuses ports other than 80/443", () => {
    for (const raw of [
      "http://hooks.example.com:8080/",
      "https://hooks.example.com:8443/",
      "http://hooks.example.com:22/",
      "https://hooks.example.com:1/",
    ]) {
      const err = apiError(() => parseTargetUrl(raw, STRICT));
      expect(err.code).toBe("url_not_allowed");
      expect(err.message).toMatch(/porta/);
      expect(err.details?.url).toMatch(/porta \d+/);
    }
    // the port that is the other scheme's default is still 80/443
    expect(parseTargetUrl("http://hooks.example.com:443/", STRICT).port).toBe("443");
    expect(parseTargetUrl("https://hooks.example.com:80/", STRICT).port).toBe("80");
  });

  it("IPv4 numeric tricks are canonicalized by the URL parser and refused", () => {
    const cases: [string, string][] = [
      ["http://2130706433/", "127.0.0.1"],
      ["http://0x7f.1/", "127.0.0.1"],
      ["http://0x7f000001/", "127.0.0.1"],
      ["http://0177.0.0.1/", "127.0.0.1"],
      ["http://0177.1/", "127.0.0.1"],
      ["http://127.1/", "127.0.0.1"],
      ["http://127.0.1/", "127.0.0.1"],
      ["http://127.0.0.1./", "127.0.0.1"],
      ["http://127.0.0.1%2e/", "127.0.0.1"],
      ["http://0/", "0.0.0.0"],
      ["http://0x0/", "0.0.0.0"],
      ["http://10.1/", "10.0.0.1"],
      ["http://167772161/", "10.0.0.1"],
      ["http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254"],
      ["http://2852039166/", "169.254.169.254"],
      ["http://0251.0376.0251.0376/", "169.254.169.254"],
      ["http://0xc0a80001/", "192.168.0.1"],
      ["http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "127.0.0.1"], // full-width digits
      ["http:\\\\127.0.0.1\\", "127.0.0.1"], // backslashes
      ["HTTP://127.0.0.1:80/", "127.0.0.1"],
      ["http://4294967295/", "255.255.255.255"],
    ];
    for (const [raw, canonical] of cases) {
      expect(new URL(raw).hostname, raw).toBe(canonical);
      const err = apiError(() => parseTargetUrl(raw, STRICT));
      expect(err.code, raw).toBe("url_not_allowed");
      expect(err.details?.url).toBe(`endereço interno (${canonical})`);
    }
  });

  it("a number that is not a valid IPv4 is not a URL", () => {
    for (const raw of ["http://4294967296/", "http://1.2.3.4.5/", "http://0x100000000/", "http://256.0.0.1/"]) {
      expect(apiError(() => parseTargetUrl(raw, STRICT)).code).toBe("validation_error");
    }
  });

  it("IPv6 literals are canonicalized and refused", () => {
    const cases: [string, string][] = [
      ["http://[::1]/", "[::1]"],
      ["http://[0:0:0:0:0:0:0:1]/", "[::1]"],
      ["http://[::]/", "[::]"],
      ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
      ["http://[::ffff:7f00:1]/", "[::ffff:7f00:1]"],
      ["http://[::ffff:169.254.169.254]/", "[::ffff:a9fe:a9fe]"],
      ["http://[::127.0.0.1]/", "[::7f00:1]"],
      ["http://[fd00::1]/", "[fd00::1]"],
      ["http://[fc00::1]/", "[fc00::1]"],
      ["http://[fe80::1]/", "[fe80::1]"],
      ["http://[64:ff9b::7f00:1]/", "[64:ff9b::7f00:1]"],
      ["http://[64:ff9b::127.0.0.1]/", "[64:ff9b::7f00:1]"],
      ["http://[2002:7f00:1::]/", "[2002:7f00:1::]"],
      ["http://[ff02::1]/", "[ff02::1]"],
      ["https://[2001:db8::1]:443/", "[2001:db8::1]"],
    ];
    for (const [raw, canonical] of cases) {
      expect(new URL(raw).hostname, raw).toBe(canonical);
      const err = apiError(() => parseTargetUrl(raw, STRICT));
      expect(err.code, raw).toBe("url_not_allowed");
      expect(err.details?.url).toBe(`endereço interno (${canonical.slice(1, -1)})`);
    }
    expect(parseTargetUrl("http://[::ffff:8.8.8.8]/", STRICT).hostname).toBe("[::ffff:808:808]");
  });

  it("refuses localhost names before any lookup", () => {
    for (const raw of [
      "http://localhost/",
      "http://LOCALHOST./",
      "https://api.localhost/",
      "http://a.b.localhost:443/",
    ]) {
      expect(apiError(() => parseTargetUrl(raw, STRICT)).code).toBe("url_not_allowed");
    }
    expect(parseTargetUrl("http://localhost.example.com/", STRICT).hostname).toBe("localhost.example.com");
  });

  it("allowPrivate allows private targets and any port, but not other schemes or credentials", () => {
    for (const raw of [
      "http://127.0.0.1:3000/hook",
      "http://localhost:8080/",
      "http://[::1]:9000/",
      "http://10.0.0.5:1/",
      "http://169.254.169.254/",
      "https://192.168.1.10:8443/",
    ]) {
      expect(parseTargetUrl(raw, OPEN).href).toBe(new URL(raw).href);
      expect(apiError(() => parseTargetUrl(raw, STRICT)).code).toBe("url_not_allowed");
    }
  });

  it("names the field given in details", () => {
    const err = apiError(() => parseTargetUrl("http://127.0.0.1/", { allowPrivate: false, field: "file.url" }));
    expect(err.toBody()).toEqual({
      error: {
        code: "url_not_allowed",
        message: expect.stringMatching(/^URL não permitida/),
        details: { "file.url": "endereço interno (127.0.0.1)" },
      },
    });
  });
});

describe("resolveAndCheck", () => {
  const url = new URL("https://hooks.example.com/in");

  it("returns the addresses of a name that resolves only to public addresses", async () => {
    const lookup = scriptedLookup([a4("93.184.215.14"), a6("2606:2800:21f:cb07:6820:80da:af6b:8b2c")]);
    await expect(resolveAndCheck(url, { ...STRICT, lookup })).resolves.toEqual([
      "93.184.215.14",
      "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
    ]);
    expect(lookup.calls).toEqual(["hooks.example.com"]);
  });

  it("refuses a name whose lookup returns a private address, without echoing it", async () => {
    for (const answer of [
      [a4("10.0.0.7")],
      [a4("169.254.169.254")],
      [a6("::1")],
      [a6("fd12::1")],
      [a4("100.64.1.1")],
    ]) {
      const err = await apiErrorAsync(resolveAndCheck(url, { ...STRICT, lookup: scriptedLookup(answer) }));
      expect(err.code).toBe("url_not_allowed");
      expect(err.details).toEqual({ url: "o nome aponta para um endereço interno" });
      expect(JSON.stringify(err.toBody())).not.toContain(answer[0]!.address);
    }
  });

  it("refuses when ANY address is forbidden", async () => {
    const lookup = scriptedLookup([a4("93.184.215.14"), a4("127.0.0.1")]);
    expect((await apiErrorAsync(resolveAndCheck(url, { ...STRICT, lookup }))).code).toBe("url_not_allowed");
  });

  it("refuses names that resolve to nothing, in both settings", async () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    for (const lookup of [scriptedLookup([]), scriptedLookup(notFound)]) {
      for (const opts of [STRICT, OPEN]) {
        const err = await apiErrorAsync(resolveAndCheck(url, { ...opts, lookup }));
        expect(err.code).toBe("url_not_allowed");
        expect(err.details?.url).toMatch(/não resolve/);
      }
    }
  });

  it("checks literal IPs directly, without a lookup", async () => {
    const lookup = scriptedLookup(new Error("must not be called"));
    await expect(resolveAndCheck(new URL("http://8.8.8.8/"), { ...STRICT, lookup })).resolves.toEqual(["8.8.8.8"]);
    await expect(resolveAndCheck(new URL("http://[2606:4700::1]/"), { ...STRICT, lookup })).resolves.toEqual([
      "2606:4700::1",
    ]);
    const err = await apiErrorAsync(resolveAndCheck(new URL("http://[::ffff:7f00:1]/"), { ...STRICT, lookup }));
    expect(err.code).toBe("url_not_allowed");
    await expect(resolveAndCheck(new URL("http://127.0.0.1:9/"), { ...OPEN, lookup })).resolves.toEqual(["127.0.0.1"]);
    expect(lookup.calls).toEqual([]);
  });

  it("allowPrivate accepts private resolutions", async () => {
    const lookup = scriptedLookup([a4("127.0.0.1")]);
    await expect(resolveAndCheck(new URL("http://receiver.test:3000/"), { ...OPEN, lookup })).resolves.toEqual([
      "127.0.0.1",
    ]);
  });

  it("checkTargetUrl parses then resolves", async () => {
    const lookup = scriptedLookup([a4("192.168.0.10")]);
    expect((await apiErrorAsync(checkTargetUrl("https://nas.example.com/", { ...STRICT, lookup }))).code).toBe(
      "url_not_allowed",
    );
    expect((await apiErrorAsync(checkTargetUrl("https://x.example.com:8443/", { ...STRICT, lookup }))).code).toBe(
      "url_not_allowed",
    );
    expect(lookup.calls).toEqual(["nas.example.com"]); // the port refusal needs no lookup
    const ok = await checkTargetUrl("https://hooks.example.com/", {
      ...STRICT,
      lookup: scriptedLookup([a4("8.8.4.4")]),
    });
    expect(ok.hostname).toBe("hooks.example.com");
  });
});

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
