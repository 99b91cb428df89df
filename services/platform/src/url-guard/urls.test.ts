import { describe, expect, it } from "vitest";
import { a4, a6, apiError, apiErrorAsync, OPEN, STRICT, scriptedLookup } from "../testing/url-guard.ts";
import { checkTargetUrl, parseTargetUrl, resolveAndCheck } from "./urls.ts";

// Tests never contact anything but 127.0.0.1: public addresses below are only ever returned by
// injected lookups that run where no connection follows (save-time checks) or are refused first.

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
