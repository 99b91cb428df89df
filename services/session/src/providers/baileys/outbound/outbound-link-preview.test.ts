import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OutboundContent } from "@gw/contracts";
import { proto } from "@whiskeysockets/baileys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAT, context, generate, picture } from "../test/outbound-rig.ts";
import { LinkPreviews } from "./link-preview.ts";
import { type OutboundContext, toBaileysContent } from "./outbound.ts";

/**
 * Texts with a link get our preview (link-preview.ts wired into the mapping's context, as
 * messaging.ts does), fetched through the URL guard from a local page; checked through Baileys'
 * own `generateWAMessage` (test/outbound-rig.ts).
 */

describe("texts with a link get our preview, fetched through the URL guard", () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  const PAGE = `<!doctype html><html><head><meta charset="utf-8">
    <title>Loja Centro</title>
    <meta property="og:title" content="Promoção de verão &amp; frete grátis">
    <meta property="og:description" content="Só hoje: 50% off em toda a loja">
    <meta property="og:image" content="/capa.png">
  </head><body><h1>Promoção</h1></body></html>`;

  beforeAll(async () => {
    const png = await picture().png().toBuffer();
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url?.startsWith("/promo")) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(PAGE);
      } else if (req.url === "/capa.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(png);
      } else {
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

  /** The mapping's context with previews (messaging.ts wires the process's, from WEBHOOK_ALLOW_PRIVATE). */
  const withPreviews = (previews: Pick<LinkPreviews, "preview">): OutboundContext => ({
    ...context().ctx,
    linkPreview: (text) => previews.preview(text),
  });
  async function sendWith(ctx: OutboundContext, content: OutboundContent) {
    const out = await toBaileysContent(CHAT, content, {}, ctx);
    return { out, m: (await generate(out)).message! };
  }

  it("title, description, matched text (the link as written) and a JPEG thumbnail of og:image", async () => {
    // Local receivers need private addresses allowed, as in tests and `make dev` (WEBHOOK_ALLOW_PRIVATE).
    const previews = new LinkPreviews({ allowPrivate: true });
    const link = `${base}/promo?utm=zap`;
    hits.length = 0;
    const { m } = await sendWith(withPreviews(previews), { type: "text", text: `Confira (${link}).` });
    expect(m.extendedTextMessage).toMatchObject({
      text: `Confira (${link}).`,
      matchedText: link,
      title: "Promoção de verão & frete grátis",
      description: "Só hoje: 50% off em toda a loja",
      previewType: proto.Message.ExtendedTextMessage.PreviewType.NONE,
    });
    // rc14's proto has no canonicalUrl any more: the card opens matchedText.
    const thumb = Buffer.from(m.extendedTextMessage!.jpegThumbnail!);
    expect(thumb.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    expect(hits).toEqual(["/promo?utm=zap", "/capa.png"]);
  });

  it("a link to an internal address under the default guard: no preview, and no request reaches it", async () => {
    hits.length = 0;
    const looked: string[] = [];
    const strict = new LinkPreviews({
      allowPrivate: false,
      lookup: async (host) => {
        looked.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    for (const link of [`${base}/promo`, "http://127.0.0.1/promo", "http://intranet.example/promo"]) {
      const text = `veja ${link}`;
      const { out, m } = await sendWith(withPreviews(strict), { type: "text", text });
      // null, not absent: Baileys' own fetcher (no guard) is not tried either
      expect(out.content).toEqual({ text, linkPreview: null });
      expect(m.extendedTextMessage?.text).toBe(text);
      expect(m.extendedTextMessage?.title ?? undefined).toBeUndefined();
      expect(m.extendedTextMessage?.matchedText ?? undefined).toBeUndefined();
    }
    expect(looked).toEqual(["intranet.example"]); // refused at connection time, by its address
    expect(hits).toEqual([]);
  });

  it("linkPreview: false asks for none; a failing preview never fails the send", async () => {
    let asked = 0;
    const text = `veja ${base}/promo`;
    const counting = {
      preview: async () => {
        asked++;
        return undefined;
      },
    };
    const off = await sendWith(withPreviews(counting), { type: "text", text, linkPreview: false });
    expect(off.out.content).toEqual({ text, linkPreview: null });
    expect(off.m.extendedTextMessage?.title ?? undefined).toBeUndefined();
    expect(asked).toBe(0);

    const broken = await sendWith(
      withPreviews({
        preview: async () => {
          throw new Error("preview exploded");
        },
      }),
      { type: "text", text },
    );
    expect(broken.out.content).toEqual({ text, linkPreview: null });
    expect(broken.m.extendedTextMessage?.text).toBe(text);
  });
});
