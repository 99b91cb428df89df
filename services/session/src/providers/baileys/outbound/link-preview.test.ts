import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstLink, LinkPreviews, linkPreviewsFromEnv } from "./link-preview.ts";
import { decodeHtml, parsePreview } from "./link-preview-page.ts";

/**
 * Our link previews (link-preview.ts) on their own: the link found in a text, what a page says of
 * itself, and the guarded fetch against a local HTTP server. outbound.test.ts checks the previews
 * through Baileys' `generateWAMessage`, and that the default guard reaches no internal address.
 */

const BASE = new URL("https://loja.example/promo/verao");

describe("the first link of a text", () => {
  it("http(s) links as written, without the sentence's punctuation after them", () => {
    expect(firstLink("veja https://loja.example/promo")).toBe("https://loja.example/promo");
    expect(firstLink("veja https://loja.example/promo.")).toBe("https://loja.example/promo");
    expect(firstLink("Veja: http://a.example/x?y=1&z=2, e responda!")).toBe("http://a.example/x?y=1&z=2");
    expect(firstLink("(veja https://a.example/x)")).toBe("https://a.example/x");
    expect(firstLink("https://pt.wikipedia.org/wiki/Rio_(desambiguação)")).toBe(
      "https://pt.wikipedia.org/wiki/Rio_(desambiguação)",
    );
    expect(firstLink("*https://a.example/negrito*")).toBe("https://a.example/negrito");
    expect(firstLink("primeiro https://um.example depois https://dois.example")).toBe("https://um.example");
    expect(firstLink("HTTPS://A.EXAMPLE/X")).toBe("HTTPS://A.EXAMPLE/X");
  });

  it("no link: none (no scheme, other schemes, just the scheme)", () => {
    for (const text of [
      "olá",
      "loja.example/promo",
      "ftp://a.example/x",
      "mailto:a@b.example",
      "https://",
      "xhttps://a.b",
    ]) {
      expect(firstLink(text)).toBeUndefined();
    }
  });
});

describe("what a page says of itself", () => {
  it("Open Graph first, then Twitter cards, then <title> and the description meta", () => {
    const html = `<!doctype html><html><head>
      <title>Título da aba</title>
      <meta name="description" content="descrição comum">
      <meta property="og:title" content="Promoção &amp; ofertas">
      <meta content='Só hoje: 50&#37; off' property='og:description'>
      <meta name="twitter:title" content="no twitter">
      <meta property="og:image" content="/img/capa.png?v=1&amp;w=2">
    </head><body>x</body></html>`;
    expect(parsePreview(html, BASE)).toEqual({
      title: "Promoção & ofertas",
      description: "Só hoje: 50% off",
      image: "https://loja.example/img/capa.png?v=1&w=2",
    });
    const fallback = `<title>
        Loja &ndash; Ver&atilde;o   2026 </title><META NAME=description CONTENT="Frete&nbsp;grátis">
      <meta name="twitter:image" content="//cdn.example/t.jpg">`;
    expect(parsePreview(fallback, BASE)).toEqual({
      title: "Loja – Verão 2026",
      description: "Frete grátis", // &nbsp; is a space like any other
      image: "https://cdn.example/t.jpg",
    });
  });

  it("no title: no preview; comments, scripts, styles and svg titles are not the page's", () => {
    expect(parsePreview("<html><head><meta property='og:description' content='x'></head></html>", BASE)).toBe(
      undefined,
    );
    const html = `<head><!-- <meta property="og:title" content="comentário"> -->
      <script>document.write('<meta property="og:title" content="script">')</script>
      <style>/* <title>estilo</title> */</style>
      <svg><title>ícone</title></svg>
      <title>A página</title></head>`;
    expect(parsePreview(html, BASE)).toEqual({ title: "A página" });
  });

  it("only http(s) images; long texts are clipped", () => {
    const long = "á".repeat(2000);
    const html = `<meta property="og:title" content="${long}"><meta property="og:description" content="${long}">
      <meta property="og:image" content="javascript:alert(1)"><meta property="og:image:url" content="data:image/png;base64,AA">`;
    const p = parsePreview(html, BASE)!;
    expect(Array.from(p.title)).toHaveLength(256);
    expect(p.title.endsWith("…")).toBe(true);
    expect(Array.from(p.description!)).toHaveLength(512);
    expect(p.image).toBeUndefined();
  });

  it("the page's charset: header, else <meta charset>, else UTF-8", () => {
    const latin1 = Buffer.from('<meta charset="iso-8859-1"><title>Promoção</title>', "latin1");
    expect(parsePreview(decodeHtml(latin1), BASE)?.title).toBe("Promoção");
    expect(
      parsePreview(decodeHtml(Buffer.from("<title>Promoção</title>", "latin1"), "windows-1252"), BASE)?.title,
    ).toBe("Promoção");
    expect(parsePreview(decodeHtml(Buffer.from("<title>Promoção</title>"), "no-such-charset"), BASE)?.title).toBe(
      "Promoção",
    );
  });

  it("hostile markup is scanned in linear time", () => {
    const size = 512 * 1024;
    for (const unit of ["<meta ", '<meta "', "<meta content='", "<!--", "<script>", "<title>", "&#x", "<"]) {
      const html = unit.repeat(Math.ceil(size / unit.length));
      const started = performance.now();
      parsePreview(html, BASE);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

// ── the guarded fetch ───────────────────────────────────────────────────────

type Route = (req: IncomingMessage, res: ServerResponse) => void;

describe("fetching the page and its image", () => {
  let server: Server;
  let base: string;
  let png: Buffer;
  const hits: string[] = [];
  const routes = new Map<string, Route>();
  const html = (body: string, type = "text/html; charset=utf-8"): Route => {
    return (_req, res) => {
      res.writeHead(200, { "content-type": type });
      res.end(body);
    };
  };

  beforeAll(async () => {
    // sharp is Baileys' (peer) dependency, not ours: load it from where Baileys resolves it.
    const requireHere = createRequire(import.meta.url);
    const sharp = createRequire(requireHere.resolve("@whiskeysockets/baileys"))("sharp") as (i: unknown) => {
      png(): { toBuffer(): Promise<Buffer> };
    };
    png = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 0, g: 90, b: 200 } } })
      .png()
      .toBuffer();
    routes.set("/page", html(`<title>Página</title><meta property="og:image" content="/img.png">`));
    routes.set("/img.png", (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(png);
    });
    routes.set("/r1", (_req, res) => {
      res.writeHead(302, { location: "/r2" });
      res.end();
    });
    routes.set("/r2", (_req, res) => {
      res.writeHead(301, { location: `${base}/page` });
      res.end();
    });
    routes.set("/loop", (_req, res) => {
      res.writeHead(302, { location: "/loop" });
      res.end();
    });
    routes.set("/pdf", html("<title>não é html</title>", "application/pdf"));
    routes.set("/404", (_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<title>Não encontrada</title>");
    });
    routes.set("/big-image", html(`<title>Imagem grande</title><meta property="og:image" content="/img.png">`));
    routes.set("/svg", html(`<title>SVG</title><meta property="og:image" content="/logo.svg">`));
    routes.set("/logo.svg", html("<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"));
    routes.set("/huge", (_req, res) => {
      // The head comes first; the rest would be megabytes the preview never needs.
      res.writeHead(200, { "content-type": "text/html" });
      res.write(`<html><head><title>Enorme</title></head><body>`);
      const block = "x".repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 200 && res.write(block)) sent++;
        if (sent < 200) res.once("drain", more);
        else res.end("</body></html>");
      };
      more();
      res.on("error", () => {});
    });
    routes.set("/slow", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<html><head>");
      // never ends
    });
    let counter = 0;
    routes.set("/counter", (_req, res) => {
      counter++;
      html(`<title>Visita ${counter}</title>`)(_req, res);
    });
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      const route = routes.get(req.url ?? "");
      if (route) route(req, res);
      else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // Local receivers: tests allow private addresses, as `make dev` does (WEBHOOK_ALLOW_PRIVATE).
  const local = (o: Partial<ConstructorParameters<typeof LinkPreviews>[0]> = {}) =>
    new LinkPreviews({ allowPrivate: true, ...o });

  it("the page's title and a 192 px JPEG thumbnail of its image", async () => {
    const info = await local().preview(`veja ${base}/page`);
    expect(info).toMatchObject({ title: "Página", "matched-text": `${base}/page`, "canonical-url": `${base}/page` });
    expect(info?.description).toBeUndefined();
    const thumb = info!.jpegThumbnail!;
    expect(thumb.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
  });

  it("redirects: followed up to 3 (the card keeps the link as written); a loop gets none", async () => {
    const info = await local().preview(`${base}/r1`);
    expect(info).toMatchObject({ title: "Página", "matched-text": `${base}/r1`, "canonical-url": `${base}/page` });
    hits.length = 0;
    expect(await local().preview(`${base}/loop`)).toBeUndefined();
    expect(hits).toEqual(["/loop", "/loop", "/loop", "/loop"]);
  });

  it("no preview for other types, error statuses, unknown pages", async () => {
    const previews = local();
    expect(await previews.preview(`${base}/pdf`)).toBeUndefined();
    expect(await previews.preview(`${base}/404`)).toBeUndefined();
    expect(await previews.preview(`${base}/nothing-here`)).toBeUndefined();
  });

  it("an image too large, or not a raster image, leaves the preview without a thumbnail", async () => {
    const small = await local({ maxImageBytes: 100 }).preview(`${base}/big-image`);
    expect(small).toMatchObject({ title: "Imagem grande" });
    expect(small?.jpegThumbnail).toBeUndefined();
    const svg = await local().preview(`${base}/svg`);
    expect(svg).toMatchObject({ title: "SVG" });
    expect(svg?.jpegThumbnail).toBeUndefined();
  });

  it("reading stops at </head> or the size cap; a page that never ends stops at the deadline", async () => {
    expect(await local().preview(`${base}/huge`)).toMatchObject({ title: "Enorme" });
    expect(await local({ maxPageBytes: 20 }).preview(`${base}/huge`)).toBeUndefined(); // `<title>Enorm`: cut
    const started = Date.now();
    expect(await local({ timeoutMs: 300 }).preview(`${base}/slow`)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a link's preview is kept a while (one fetch for many sends); a failure is tried again later", async () => {
    const previews = local({ cacheTtlMs: 60_000 });
    const a = await Promise.all([1, 2, 3].map(() => previews.preview(`${base}/counter`)));
    expect(a.map((i) => i?.title)).toEqual(["Visita 1", "Visita 1", "Visita 1"]);
    expect((await previews.preview(`oi ${base}/counter!`))?.title).toBe("Visita 1");
    expect((await local({ cacheTtlMs: 0 }).preview(`${base}/counter`))?.title).toBe("Visita 2");

    const failing = local({ failureTtlMs: 0, timeoutMs: 200 });
    expect(await failing.preview(`${base}/slow`)).toBeUndefined();
    hits.length = 0;
    expect(await failing.preview(`${base}/slow`)).toBeUndefined();
    expect(hits).toEqual(["/slow"]);
  });

  it("the default guard refuses internal addresses by literal, by name and by port: nothing is requested", async () => {
    hits.length = 0;
    const looked: string[] = [];
    const strict = new LinkPreviews({
      allowPrivate: false,
      lookup: async (host) => {
        looked.push(host);
        return [{ address: host === "meta.example" ? "169.254.169.254" : "10.0.0.7", family: 4 }];
      },
    });
    for (const link of [
      `${base}/page`,
      "http://127.0.0.1/page",
      "http://localhost/page",
      "http://[::1]/page",
      "http://2130706433/page",
      "http://intranet.example/page",
      "https://meta.example/latest/meta-data",
    ]) {
      expect(await strict.preview(`veja ${link}`)).toBeUndefined();
    }
    expect(looked).toEqual(["intranet.example", "meta.example"]);
    expect(hits).toEqual([]);
  });

  it("the process's previews follow WEBHOOK_ALLOW_PRIVATE: off unless true/1/yes", async () => {
    hits.length = 0;
    expect(await linkPreviewsFromEnv({}).preview(`${base}/page`)).toBeUndefined();
    expect(await linkPreviewsFromEnv({ WEBHOOK_ALLOW_PRIVATE: "false" }).preview(`${base}/page`)).toBeUndefined();
    expect(hits).toEqual([]);
    expect(linkPreviewsFromEnv({ WEBHOOK_ALLOW_PRIVATE: "1" })).toBe(
      linkPreviewsFromEnv({ WEBHOOK_ALLOW_PRIVATE: "true" }),
    );
    expect(await linkPreviewsFromEnv({ WEBHOOK_ALLOW_PRIVATE: "true" }).preview(`${base}/page`)).toMatchObject({
      title: "Página",
    });
  });
});
