import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filenameFromDisposition, type LoadOptions, loadFile, normalizeMimetype } from "./load.ts";
import { sniffMimetype } from "./sniff.ts";

// Real HTTP against a local server on 127.0.0.1 (allowPrivate: true, as in development); one test
// checks that the same URL is refused with allowPrivate: false.

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const PDF = Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "latin1");

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;

const send =
  (body: Buffer | string, headers: Record<string, string | number> = {}, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const handler = routes.get(path) ?? send("not found", { "content-type": "text/plain" }, 404);
    handler(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  routes.set("/img.png", send(PNG, { "content-type": "image/png" }));
  routes.set("/text", send("olá", { "content-type": "Text/Plain; charset=utf-8" }));
  routes.set("/voice", send("OggS....", { "content-type": 'audio/ogg; codecs="opus"; rate=48000' }));
  routes.set("/octet/photo", send(JPEG, { "content-type": "application/octet-stream" }));
  routes.set("/untyped", send(PDF));
  routes.set("/mystery.bin", send(Buffer.from("just some bytes"), { "content-type": "application/octet-stream" }));
  routes.set("/empty", send(Buffer.alloc(0), { "content-type": "image/png" }));
  routes.set("/hang", () => {}); // never answers
  routes.set("/drip", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" });
    res.write(PNG); // headers and a first chunk, then nothing more
  });
  routes.set("/big-declared", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png", "content-length": 5000 });
    res.write(Buffer.alloc(100)); // the size is refused from the header; the rest never comes
  });
  routes.set("/big-stream", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" }); // chunked, no content-length
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= 1_000_000) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(Buffer.alloc(500));
      sent += 500;
    }, 1);
  });
  routes.set("/exact", send(Buffer.alloc(1000, 1), { "content-type": "image/png" }));
  routes.set(
    "/attachment",
    send(PDF, {
      "content-type": "application/pdf",
      "content-disposition": `attachment; filename="relatorio final.pdf"; filename*=UTF-8''relat%C3%B3rio%20final.pdf`,
    }),
  );
  routes.set(
    "/attachment-plain",
    send(PDF, {
      "content-type": "application/pdf",
      "content-disposition": 'attachment; filename="../../etc/nota.pdf"',
    }),
  );
  routes.set("/files/foto%20de%20perfil.jpg", send(JPEG, { "content-type": "image/jpeg" }));
  for (let n = 1; n <= 4; n++) routes.set(`/hop/${n}`, send("", { location: `/hop/${n - 1}` }, n % 2 ? 302 : 301));
  routes.set("/hop/0", send(PNG, { "content-type": "image/png" }));
  routes.set("/to-abs", (_req, res) => {
    res.writeHead(307, { location: `${base}/files/foto%20de%20perfil.jpg` });
    res.end();
  });
  routes.set("/to-file-scheme", send("", { location: "file:///etc/passwd" }, 302));
  routes.set("/to-credentials", (_req, res) => {
    res.writeHead(302, { location: `http://admin:secret@127.0.0.1:${(server.address() as AddressInfo).port}/img.png` });
    res.end();
  });
  routes.set("/redirect-no-location", send("", {}, 302));
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

const OPEN: LoadOptions = { allowPrivate: true, field: "file", maxBytes: 1000, timeoutMs: 2000 };

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe("loadFile: data (base64)", () => {
  it("decodes base64 with the given mimetype and filename", async () => {
    const file = await loadFile(
      { data: PNG.toString("base64"), mimetype: "image/png", filename: "a.png" },
      { ...OPEN, maxBytes: 1000 },
    );
    expect(file).toEqual({ data: PNG, mimetype: "image/png", filename: "a.png" });
  });

  it("accepts line-wrapped base64 and unpadded base64", async () => {
    const bytes = Buffer.from("x".repeat(100));
    const wrapped = bytes.toString("base64").replace(/.{76}/g, "$&\r\n");
    expect((await loadFile({ data: wrapped, mimetype: "text/plain" }, OPEN)).data).toEqual(bytes);
    const unpadded = Buffer.from("ab").toString("base64").replace(/=+$/, "");
    expect((await loadFile({ data: unpadded, mimetype: "text/plain" }, OPEN)).data.toString()).toBe("ab");
  });

  it("takes the mimetype from a data: URL prefix unless one is given", async () => {
    const b64 = JPEG.toString("base64");
    const fromUrl = await loadFile({ data: `data:image/jpeg;base64,${b64}` }, OPEN);
    expect(fromUrl).toEqual({ data: JPEG, mimetype: "image/jpeg" });
    const withCodecs = await loadFile({ data: `data:audio/ogg; codecs=opus;base64,${b64}` }, OPEN);
    expect(withCodecs.mimetype).toBe("audio/ogg; codecs=opus");
    const given = await loadFile({ data: `data:image/jpeg;base64,${b64}`, mimetype: "image/pjpeg" }, OPEN);
    expect(given.mimetype).toBe("image/pjpeg");
  });

  it.each([
    ["bad characters", "aGVsbG8$"],
    ["base64url alphabet", "aGV-bG8_"],
    ["impossible length", "aGVsb"],
    ["padding in the middle", "aG=sbG8="],
    ["too much padding", "aGVsbG8==="],
  ])("refuses invalid base64 (%s) with validation_error on file.data", async (_name, data) => {
    const err = await apiError(loadFile({ data, mimetype: "text/plain" }, OPEN));
    expect(err.code).toBe("validation_error");
    expect(err.status).toBe(422);
    expect(err.details?.["file.data"]).toMatch(/base64 inválido/);
  });

  it("refuses empty data and a data: URL without ;base64", async () => {
    for (const data of ["", "  \n", "data:image/png;base64,"]) {
      const err = await apiError(loadFile({ data, mimetype: "image/png" }, OPEN));
      expect(err.code).toBe("validation_error");
      expect(err.details?.["file.data"]).toMatch(/vazio/);
    }
    const err = await apiError(loadFile({ data: "data:text/plain,hello" }, OPEN));
    expect(err.details?.["file.data"]).toMatch(/base64/);
  });

  it("requires a mimetype with data and checks its shape", async () => {
    const missing = await apiError(loadFile({ data: PNG.toString("base64") }, OPEN));
    expect(missing.code).toBe("validation_error");
    expect(missing.details).toEqual({ "file.mimetype": expect.stringMatching(/obrigatório/) });
    const bad = await apiError(loadFile({ data: PNG.toString("base64"), mimetype: "png" }, OPEN));
    expect(bad.details?.["file.mimetype"]).toMatch(/tipo\/subtipo/);
  });

  it("refuses decoded data above maxBytes with payload_too_large", async () => {
    const err = await apiError(loadFile({ data: Buffer.alloc(1001).toString("base64"), mimetype: "image/png" }, OPEN));
    expect(err.code).toBe("payload_too_large");
    expect(err.status).toBe(413);
    expect(err.details?.["file.data"]).toMatch(/1000 bytes/);
    const atLimit = await loadFile({ data: Buffer.alloc(1000).toString("base64"), mimetype: "image/png" }, OPEN);
    expect(atLimit.data.length).toBe(1000);
  });

  it("names the request's field in details and asks for url or data when neither is given", async () => {
    const err = await apiError(loadFile({ data: "%%%", mimetype: "image/png" }, { ...OPEN, field: "preview.image" }));
    expect(Object.keys(err.details ?? {})).toEqual(["preview.image.data"]);
    const none = await apiError(loadFile({ mimetype: "image/png" }, OPEN));
    expect(none.code).toBe("validation_error");
    expect(none.details).toEqual({ file: "informe file.url ou file.data" });
  });
});

describe("loadFile: url", () => {
  it("downloads a file with its content type and the URL's last segment as filename", async () => {
    const file = await loadFile({ url: `${base}/img.png` }, OPEN);
    expect(file).toEqual({ data: PNG, mimetype: "image/png", filename: "img.png" });
  });

  it("is refused with url_not_allowed when private addresses are not allowed", async () => {
    const err = await apiError(loadFile({ url: `${base}/img.png` }, { ...OPEN, allowPrivate: false }));
    expect(err.code).toBe("url_not_allowed");
    expect(err.status).toBe(400);
    expect(Object.keys(err.details ?? {})).toEqual(["file.url"]);
    // A name that resolves to loopback is refused at connection time, named after the same field.
    const viaName = await apiError(
      loadFile(
        { url: "http://media.example/img.png" },
        { ...OPEN, allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] },
      ),
    );
    expect(viaName.code).toBe("url_not_allowed");
    expect(Object.keys(viaName.details ?? {})).toEqual(["file.url"]);
  });

  it("passes the guard's validation_error for a string that is not a URL", async () => {
    const err = await apiError(loadFile({ url: "not a url" }, OPEN));
    expect(err.code).toBe("validation_error");
    expect(Object.keys(err.details ?? {})).toEqual(["file.url"]);
  });

  it("answers validation_error when the server answers non-2xx", async () => {
    const err = await apiError(loadFile({ url: `${base}/missing.png` }, OPEN));
    expect(err.code).toBe("validation_error");
    expect(err.status).toBe(422);
    expect(err.details).toEqual({ "file.url": "o endereço respondeu 404" });
    const noLocation = await apiError(loadFile({ url: `${base}/redirect-no-location` }, OPEN));
    expect(noLocation.details).toEqual({ "file.url": "o endereço respondeu 302" });
  });

  it("answers validation_error for an empty body", async () => {
    const err = await apiError(loadFile({ url: `${base}/empty` }, OPEN));
    expect(err.details?.["file.url"]).toMatch(/sem conteúdo/);
  });

  it("times out on a server that never answers, and on one that stops mid-body", async () => {
    for (const path of ["/hang", "/drip"]) {
      const started = Date.now();
      const err = await apiError(loadFile({ url: `${base}${path}` }, { ...OPEN, timeoutMs: 300 }));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(err.code).toBe("validation_error");
      expect(err.details?.["file.url"]).toMatch(/^tempo esgotado ao baixar o arquivo/);
    }
  });

  it("reports names that do not resolve and refused connections", async () => {
    const noName = await apiError(
      loadFile({ url: "http://nowhere.example/x.png" }, { ...OPEN, lookup: async () => [] }),
    );
    expect(noName.code).toBe("validation_error");
    expect(noName.details?.["file.url"]).toBe("o nome nowhere.example não pôde ser resolvido");

    // The resolver refuses a name over DNS's limits outright (getaddrinfo EINVAL): the same answer, not "EINVAL".
    const tooLong = await apiError(
      loadFile(
        { url: "http://toolong.example/x.png" },
        {
          ...OPEN,
          lookup: async () => {
            throw Object.assign(new Error("getaddrinfo EINVAL toolong.example"), {
              code: "EINVAL",
              syscall: "getaddrinfo",
            });
          },
        },
      ),
    );
    expect(tooLong.code).toBe("validation_error");
    expect(tooLong.details?.["file.url"]).toBe("o nome toolong.example não pôde ser resolvido");

    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    const refused = await apiError(loadFile({ url: `http://127.0.0.1:${port}/x` }, OPEN));
    expect(refused.code).toBe("validation_error");
    expect(refused.details?.["file.url"]).toBe(`conexão recusada por 127.0.0.1:${port}`);
  });

  it("refuses a file above maxBytes from Content-Length, before reading it", async () => {
    const err = await apiError(loadFile({ url: `${base}/big-declared` }, OPEN));
    expect(err.code).toBe("payload_too_large");
    expect(err.status).toBe(413);
    expect(err.details?.["file.url"]).toMatch(/limite de 1000 bytes/);
  });

  it("stops reading a chunked body once it passes maxBytes", async () => {
    const err = await apiError(loadFile({ url: `${base}/big-stream` }, { ...OPEN, timeoutMs: 10_000 }));
    expect(err.code).toBe("payload_too_large");
    expect(Object.keys(err.details ?? {})).toEqual(["file.url"]);
    const exact = await loadFile({ url: `${base}/exact` }, OPEN);
    expect(exact.data.length).toBe(1000);
  });

  it("follows up to 3 redirects, relative or absolute", async () => {
    const three = await loadFile({ url: `${base}/hop/3` }, OPEN);
    expect(three.data).toEqual(PNG);
    const abs = await loadFile({ url: `${base}/to-abs` }, OPEN);
    expect(abs).toEqual({ data: JPEG, mimetype: "image/jpeg", filename: "foto de perfil.jpg" });
    const four = await apiError(loadFile({ url: `${base}/hop/4` }, OPEN));
    expect(four.code).toBe("validation_error");
    expect(four.details?.["file.url"]).toMatch(/redirecionamentos demais/);
  });

  it("applies the guard again to every redirect target", async () => {
    const scheme = await apiError(loadFile({ url: `${base}/to-file-scheme` }, OPEN));
    expect(scheme.code).toBe("url_not_allowed");
    expect(scheme.details?.["file.url"]).toMatch(/esquema file:/);
    const creds = await apiError(loadFile({ url: `${base}/to-credentials` }, OPEN));
    expect(creds.code).toBe("url_not_allowed");
    expect(creds.details?.["file.url"]).toMatch(/credenciais/);
  });

  it("keeps only the codecs parameter of the content type", async () => {
    expect((await loadFile({ url: `${base}/text` }, OPEN)).mimetype).toBe("text/plain");
    expect((await loadFile({ url: `${base}/voice` }, OPEN)).mimetype).toBe("audio/ogg; codecs=opus");
  });

  it("sniffs the type when the server gives none or application/octet-stream", async () => {
    expect((await loadFile({ url: `${base}/octet/photo` }, OPEN)).mimetype).toBe("image/jpeg");
    expect((await loadFile({ url: `${base}/untyped` }, OPEN)).mimetype).toBe("application/pdf");
    expect((await loadFile({ url: `${base}/mystery.bin` }, OPEN)).mimetype).toBe("application/octet-stream");
  });

  it("prefers the caller's mimetype", async () => {
    const file = await loadFile({ url: `${base}/octet/photo`, mimetype: "Image/JPEG; q=1" }, OPEN);
    expect(file.mimetype).toBe("image/jpeg");
    const err = await apiError(loadFile({ url: `${base}/img.png`, mimetype: "nonsense" }, OPEN));
    expect(Object.keys(err.details ?? {})).toEqual(["file.mimetype"]);
  });

  it("takes the filename from the caller, else Content-Disposition, else the URL", async () => {
    expect((await loadFile({ url: `${base}/attachment`, filename: "meu.pdf" }, OPEN)).filename).toBe("meu.pdf");
    expect((await loadFile({ url: `${base}/attachment` }, OPEN)).filename).toBe("relatório final.pdf");
    expect((await loadFile({ url: `${base}/attachment-plain` }, OPEN)).filename).toBe("nota.pdf");
    expect((await loadFile({ url: `${base}/files/foto%20de%20perfil.jpg?x=1` }, OPEN)).filename).toBe(
      "foto de perfil.jpg",
    );
    expect((await loadFile({ url: `${base}/octet/photo` }, OPEN)).filename).toBe("photo");
  });
});

describe("helpers", () => {
  it("normalizeMimetype", () => {
    expect(normalizeMimetype("IMAGE/PNG")).toBe("image/png");
    expect(normalizeMimetype("text/html; charset=UTF-8")).toBe("text/html");
    expect(normalizeMimetype('video/mp4; codecs="avc1.42E01E, mp4a.40.2"')).toBe(
      "video/mp4; codecs=avc1.42E01E, mp4a.40.2",
    );
    expect(normalizeMimetype("png")).toBeUndefined();
    expect(normalizeMimetype("")).toBeUndefined();
  });

  it("filenameFromDisposition", () => {
    expect(filenameFromDisposition("inline")).toBeUndefined();
    expect(filenameFromDisposition("attachment; filename=plain.txt")).toBe("plain.txt");
    expect(filenameFromDisposition('attachment; filename="a \\"b\\".txt"')).toBe('a "b".txt');
    expect(filenameFromDisposition("attachment; filename*=iso-8859-1'pt'caf%E9.txt")).toBe("café.txt");
    expect(filenameFromDisposition('attachment; filename=".."')).toBeUndefined();
  });

  it("sniffMimetype", () => {
    const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`ftyp${brand}`)]);
    const riff = (kind: string) => Buffer.from(`RIFF\0\0\0\0${kind}`, "latin1");
    expect(sniffMimetype(JPEG)).toBe("image/jpeg");
    expect(sniffMimetype(PNG)).toBe("image/png");
    expect(sniffMimetype(Buffer.from("GIF89a..."))).toBe("image/gif");
    expect(sniffMimetype(riff("WEBPVP8 "))).toBe("image/webp");
    expect(sniffMimetype(riff("WAVEfmt "))).toBe("audio/wav");
    expect(sniffMimetype(ftyp("isom"))).toBe("video/mp4");
    expect(sniffMimetype(ftyp("3gp4"))).toBe("video/3gpp");
    expect(sniffMimetype(ftyp("M4A "))).toBe("audio/mp4");
    expect(sniffMimetype(ftyp("qt  "))).toBe("video/quicktime");
    const opus = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(24), Buffer.from([19]), Buffer.from("OpusHead")]);
    expect(sniffMimetype(opus)).toBe("audio/ogg; codecs=opus");
    expect(sniffMimetype(Buffer.from("OggS\0\x02rest-of-vorbis", "latin1"))).toBe("audio/ogg");
    expect(sniffMimetype(Buffer.from("ID3\x04\0\0", "latin1"))).toBe("audio/mpeg");
    expect(sniffMimetype(Buffer.from([0xff, 0xfb, 0x90, 0x64]))).toBe("audio/mpeg");
    expect(sniffMimetype(Buffer.from([0xff, 0xf1, 0x50, 0x80]))).toBe("audio/aac");
    expect(sniffMimetype(PDF)).toBe("application/pdf");
    expect(sniffMimetype(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, ...Buffer.from("webm")]))).toBe(
      "video/webm",
    );
    expect(sniffMimetype(Buffer.from("PK\x03\x04", "latin1"))).toBe("application/zip");
    expect(sniffMimetype(Buffer.from("hello"))).toBeUndefined();
    expect(sniffMimetype(Buffer.alloc(0))).toBeUndefined();
  });
});
