// Every send route of spec 4.4 end to end: real HTTP on the gateway → session pod → simnet, and
// what the contact's number actually received (simnet's sent list and the contact's inbox), plus
// the `message.any` / `message.ack` events the sends produce.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";
import { wav } from "../support/media.ts";

let c: Cluster;
// Numbers of this file: 5531961110xxx.
const a = { id: "", token: "", phone: "5531961110001" }; // the instance under test
const b = { phone: "5531961110002" }; // a virtual contact (no device): receives at once, keeps an inbox
const d = { phone: "5531961110003" }; // a virtual contact that reads on its own (autoRead)
const e = { phone: "5531961110004" }; // another virtual contact
const OLD = "553186118888"; // registered without the ninth digit

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const WEBP = Buffer.concat([
  Buffer.from("RIFF"),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from("WEBPVP8L"),
  Buffer.from([0x0d, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0]),
]);

/** Media made once with ffmpeg: an Ogg/Opus voice note, an AVI and an MP4 video. */
const media: Record<"ogg" | "avi" | "mp4", Buffer> = {
  ogg: Buffer.alloc(0),
  avi: Buffer.alloc(0),
  mp4: Buffer.alloc(0),
};
function ffmpeg(args: string[], out: string): Buffer {
  const r = spawnSync("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args, out]);
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(" ")}: ${r.stderr}`);
  return readFileSync(out);
}

// A local HTTP server for `file.url` (the test env allows private addresses: WEBHOOK_ALLOW_PRIVATE).
let files: Server;
let filesUrl = "";

let call: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
const post = (route: string, json: unknown, headers: Record<string, string> = {}) =>
  call(`/messages/${route}`, { method: "POST", json, headers });

type Sent = {
  seq: number;
  id: string;
  chatId: string;
  groupId: string | null;
  status: string;
  receipts: Record<string, string>;
  message: Record<string, any>;
  quotedId: string | null;
  mentions: string[] | null;
  forwarded: boolean;
};

/** The network id inside an API message id `{fromMe}_{chatId}_{id}`. */
const networkId = (apiId: string) => apiId.split("_")[2]!;

async function sentList(phone: string): Promise<Sent[]> {
  const res = await c.sim("GET", `/simnet/phones/${phone}/sent`);
  return ((await expectJson(res)) as { messages: Sent[] }).messages;
}

/** What `a` sent under this API id, as simnet recorded it. */
async function sentAs(apiId: string): Promise<Sent> {
  const found = (await sentList(a.phone)).filter((m) => m.id === networkId(apiId));
  expect(found, `simnet sent list of ${a.phone} has ${apiId} once`).toHaveLength(1);
  return found[0]!;
}

async function inboxOf(phone: string): Promise<Record<string, any>[]> {
  const res = await c.sim("GET", `/simnet/phones/${phone}/inbox`);
  return ((await expectJson(res)) as { messages: Record<string, any>[] }).messages;
}

/** Sends and expects 201 with the spec 2.6 answer for this chat. */
async function send(route: string, body: Record<string, unknown>, chatId = `${b.phone}@c.us`) {
  const res = await post(route, body);
  const out = await expectJson<{ chatId: string; id: string; status: string }>(res, 201);
  expect(out).toMatchObject({ chatId, status: "sent" });
  expect(out.id).toMatch(new RegExp(`^true_${chatId.replace(/\./g, "\\.")}_[A-Za-z0-9-]+$`));
  return out;
}

/** Spec 2.11 `payload.type` values. */
const SPEC_TYPES = [
  "text",
  "image",
  "video",
  "audio",
  "voice",
  "document",
  "sticker",
  "location",
  "contact",
  "poll",
  "button_reply",
  "list_reply",
  "reaction",
  "unknown",
];

/** The `message.any` of a sent message (published before the send answers). */
async function anyEventOf(apiId: string): Promise<Record<string, any>> {
  const events = await until(async () => {
    const all = await c.events(a.id, "message.any");
    const mine = all.filter((ev) => ev.payload.id === apiId);
    return mine.length > 0 ? mine : null;
  }, `message.any of ${apiId}`);
  expect(events).toHaveLength(1);
  const p = events[0]!.payload as Record<string, any>;
  expect(p).toMatchObject({ id: apiId, fromMe: true, source: "api", status: "sent" });
  expect(p.from).toMatchObject({ id: `${a.phone}@c.us`, phone: a.phone });
  expect(SPEC_TYPES).toContain(p.type);
  return p;
}

async function ackStatuses(apiId: string): Promise<string[]> {
  const acks = await c.events(a.id, "message.ack");
  return acks.filter((ev) => ev.payload.id === apiId).map((ev) => ev.payload.status as string);
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "send-routes-"));
  try {
    media.ogg = ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "libopus"], join(dir, "v.ogg"));
    const src = ["-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10"];
    media.avi = ffmpeg([...src, "-c:v", "mpeg4"], join(dir, "v.avi"));
    media.mp4 = ffmpeg([...src, "-c:v", "libx264", "-pix_fmt", "yuv420p"], join(dir, "v.mp4"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  files = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/pics/photo.png") {
      res.writeHead(200, { "content-type": "image/png", "content-length": PNG.length });
      res.end(PNG);
    } else if (path === "/pics/untyped") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(PNG);
    } else if (path === "/docs/relatorio-anual.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(PDF);
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;

  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  for (const [phone, extra] of [
    [b.phone, { pushName: "Bia" }],
    [d.phone, { pushName: "Duda", autoRead: true }],
    [e.phone, { pushName: "Edu" }],
    [OLD, { pushName: "Antigo" }],
  ] as const) {
    const res = await c.sim("POST", "/simnet/phones", { phone, ...extra });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
  }
  call = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
}, 60_000);

afterAll(async () => {
  await c?.close();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
});

describe("text", () => {
  it("arrives as sent; the client's `id` is the network id; message.any says what was sent", async () => {
    const out = await send("text", { chatId: b.phone, text: "olá, Bia", id: "routes-text-0001" });
    expect(out.id).toBe(`true_${b.phone}@c.us_routes-text-0001`);
    const sent = await sentAs(out.id);
    expect(sent.message).toEqual({ type: "text", text: "olá, Bia" });
    expect(sent.chatId).toBe(`${b.phone}@c.us`);
    expect(sent.quotedId).toBeNull();
    expect(sent.forwarded).toBe(false);
    const got = (await inboxOf(b.phone)).find((m) => m.id === "routes-text-0001");
    expect(got).toMatchObject({
      chatId: `${a.phone}@c.us`,
      fromMe: false,
      from: { id: `${a.phone}@c.us`, phone: a.phone },
      message: { type: "text", text: "olá, Bia" },
    });
    const ev = await anyEventOf(out.id);
    expect(ev).toMatchObject({ chatId: `${b.phone}@c.us`, isGroup: false, type: "text", text: "olá, Bia" });
    expect(ev.quotedId).toBeNull();
  });

  // Regression: a retry the network answers with its first result is not saved or announced again.
  it("a retry with the same client id sends once and announces once", async () => {
    const one = await send("text", { phone: b.phone, text: "uma vez", id: "routes-retry-0001" });
    const two = await send("text", { phone: b.phone, text: "uma vez", id: "routes-retry-0001" });
    expect(two.id).toBe(one.id);
    expect((await sentList(a.phone)).filter((m) => m.id === "routes-retry-0001")).toHaveLength(1);
    const events = (await c.events(a.id, "message.any")).filter((ev) => ev.payload.id === one.id);
    expect(events).toHaveLength(1);
  });

  it("reusing a client id with other content is refused and does not replace the stored message", async () => {
    const first = await send("text", { phone: b.phone, text: "original", id: "routes-reuse-0001" });
    const res = await post("image", {
      phone: b.phone,
      id: "routes-reuse-0001",
      file: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    expect((await expectError(res, 422, "validation_error")).error.details).toHaveProperty("id");
    const fwd = await send("forward", { phone: e.phone, messageId: first.id }, `${e.phone}@c.us`);
    expect((await sentAs(fwd.id)).message).toMatchObject({ type: "text", text: "original" });
  });

  it("mentions and reply_to (by API id and by bare network id) reach the contact as network ids", async () => {
    const first = await send("text", { phone: b.phone, text: "primeira" });
    const reply = await send("text", {
      phone: b.phone,
      text: "respondendo, @Duda",
      reply_to: first.id,
      mentions: [d.phone, `${e.phone}@c.us`],
    });
    const sent = await sentAs(reply.id);
    expect(sent.quotedId).toBe(networkId(first.id));
    expect(sent.mentions).toEqual([`${d.phone}@c.us`, `${e.phone}@c.us`]);
    const got = (await inboxOf(b.phone)).find((m) => m.id === networkId(reply.id));
    expect(got).toMatchObject({ quotedId: networkId(first.id), mentions: [`${d.phone}@c.us`, `${e.phone}@c.us`] });
    const ev = await anyEventOf(reply.id);
    expect(ev.quotedId).toBe(first.id);
    expect(ev.mentions).toEqual([`${d.phone}@c.us`, `${e.phone}@c.us`]);

    const bare = await send("text", { phone: b.phone, text: "de novo", reply_to: networkId(first.id) });
    expect((await sentAs(bare.id)).quotedId).toBe(networkId(first.id));
    expect((await anyEventOf(bare.id)).quotedId).toBe(first.id);
  });

  it("a reply to a message the contact sent quotes the contact's network id", async () => {
    const res = await c.sim("POST", `/simnet/phones/${b.phone}/send`, {
      to: a.phone,
      message: { type: "text", text: "pergunta da Bia" },
    });
    const incoming = await expectJson<{ id: string }>(res, 201);
    const reply = await send("text", {
      chatId: `${b.phone}@c.us`,
      text: "resposta",
      reply_to: `false_${b.phone}@c.us_${incoming.id}`,
    });
    expect((await sentAs(reply.id)).quotedId).toBe(incoming.id);
    expect((await anyEventOf(reply.id)).quotedId).toBe(`false_${b.phone}@c.us_${incoming.id}`);
    // By its bare network id, once the pod has kept what it received.
    await until(
      async () =>
        (await c.events(a.id, "message")).some((ev) => ev.payload.id === `false_${b.phone}@c.us_${incoming.id}`),
      "the incoming message event",
    );
    const bare = await send("text", { phone: b.phone, text: "de novo", reply_to: incoming.id });
    expect((await sentAs(bare.id)).quotedId).toBe(incoming.id);
    expect((await anyEventOf(bare.id)).quotedId).toBe(`false_${b.phone}@c.us_${incoming.id}`);
  });
});

describe("media", () => {
  it("image by file.data: bytes, mimetype and caption intact", async () => {
    const out = await send("image", {
      phone: b.phone,
      file: { data: PNG.toString("base64"), mimetype: "image/png" },
      caption: "foto",
    });
    const sent = await sentAs(out.id);
    expect(sent.message).toMatchObject({ type: "image", caption: "foto", media: { mimetype: "image/png" } });
    expect(Buffer.from(sent.message.media.data, "base64")).toEqual(PNG);
    const got = (await inboxOf(b.phone)).find((m) => m.id === sent.id);
    expect(Buffer.from(got?.message.media.data, "base64")).toEqual(PNG);
    const ev = await anyEventOf(out.id);
    expect(ev).toMatchObject({ type: "image", text: "foto", media: { mimetype: "image/png" } });
    expect(JSON.stringify(ev.raw)).not.toContain(PNG.toString("base64")); // bytes stay out of events
  });

  it("image by file.url: downloaded bytes and the served content type", async () => {
    const out = await send("image", { phone: b.phone, file: { url: `${filesUrl}/pics/photo.png` } });
    const sent = await sentAs(out.id);
    expect(sent.message.media.mimetype).toBe("image/png");
    expect(Buffer.from(sent.message.media.data, "base64")).toEqual(PNG);
    expect((await anyEventOf(out.id)).type).toBe("image");
    // A server that does not say what it serves: the type is read from the bytes.
    const untyped = await send("image", { phone: b.phone, file: { url: `${filesUrl}/pics/untyped` } });
    expect((await sentAs(untyped.id)).message.media.mimetype).toBe("image/png");
  });

  it("file (document) by data and by url: the filename is kept", async () => {
    const byData = await send("file", {
      phone: b.phone,
      file: { data: PDF.toString("base64"), mimetype: "application/pdf", filename: "relatório final.pdf" },
      caption: "segue",
    });
    const s1 = await sentAs(byData.id);
    expect(s1.message).toMatchObject({
      type: "document",
      caption: "segue",
      media: { mimetype: "application/pdf", filename: "relatório final.pdf" },
    });
    expect(Buffer.from(s1.message.media.data, "base64")).toEqual(PDF);
    expect(await anyEventOf(byData.id)).toMatchObject({
      type: "document",
      media: { mimetype: "application/pdf", filename: "relatório final.pdf" },
    });

    const byUrl = await send("file", {
      phone: b.phone,
      file: { url: `${filesUrl}/docs/relatorio-anual.pdf`, filename: "anual.pdf" },
    });
    const s2 = await sentAs(byUrl.id);
    expect(s2.message.media).toMatchObject({ mimetype: "application/pdf", filename: "anual.pdf" });
    expect(Buffer.from(s2.message.media.data, "base64")).toEqual(PDF);
  });

  it("voice with convert: true turns a WAV into Ogg/Opus with its duration", async () => {
    const out = await send("voice", {
      phone: b.phone,
      file: { data: wav(1.5).toString("base64"), mimetype: "audio/wav" },
      convert: true,
    });
    const sent = await sentAs(out.id);
    expect(sent.message.type).toBe("voice");
    expect(sent.message.media.mimetype).toBe("audio/ogg; codecs=opus");
    const bytes = Buffer.from(sent.message.media.data, "base64");
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(bytes.includes(Buffer.from("OpusHead"))).toBe(true);
    expect(sent.message.seconds).toBeGreaterThanOrEqual(1);
    expect(await anyEventOf(out.id)).toMatchObject({
      type: "voice",
      media: { mimetype: "audio/ogg; codecs=opus" },
    });
  });

  it("voice with convert: false sends the Ogg file as it is", async () => {
    const out = await send("voice", {
      phone: b.phone,
      file: { data: media.ogg.toString("base64"), mimetype: "audio/ogg" },
      convert: false,
    });
    const sent = await sentAs(out.id);
    expect(sent.message).toMatchObject({ type: "voice", media: { mimetype: "audio/ogg" } });
    expect(Buffer.from(sent.message.media.data, "base64")).toEqual(media.ogg);
  });

  it("voice acks go on to played once the contact listens", async () => {
    const out = await send(
      "voice",
      {
        phone: d.phone,
        file: { data: media.ogg.toString("base64"), mimetype: "audio/ogg; codecs=opus" },
        convert: false,
      },
      `${d.phone}@c.us`,
    );
    await until(async () => (await ackStatuses(out.id)).includes("played"), "played ack");
    expect(await ackStatuses(out.id)).toEqual(["sent", "delivered", "read", "played"]);
  });

  it("video with convert: true becomes MP4 (H.264); asNote and caption are carried", async () => {
    const out = await send("video", {
      phone: b.phone,
      file: { data: media.avi.toString("base64"), mimetype: "video/x-msvideo", filename: "clip.avi" },
      convert: true,
      asNote: true,
      caption: "vídeo redondo",
    });
    const sent = await sentAs(out.id);
    expect(sent.message).toMatchObject({
      type: "video",
      asNote: true,
      caption: "vídeo redondo",
      media: { mimetype: "video/mp4", filename: "clip.mp4" },
    });
    const bytes = Buffer.from(sent.message.media.data, "base64");
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(bytes.includes(Buffer.from("avc1"))).toBe(true);
    expect(await anyEventOf(out.id)).toMatchObject({ type: "video", text: "vídeo redondo" });
  }, 60_000);

  it("video with convert: false sends the MP4 as it is (no asNote unless asked)", async () => {
    const out = await send("video", {
      phone: b.phone,
      file: { data: media.mp4.toString("base64"), mimetype: "video/mp4" },
      convert: false,
    });
    const sent = await sentAs(out.id);
    expect(sent.message.type).toBe("video");
    expect(sent.message.asNote).toBeUndefined();
    expect(Buffer.from(sent.message.media.data, "base64")).toEqual(media.mp4);
  });

  it("sticker: image/webp goes through; any other type is 422", async () => {
    const out = await send("sticker", {
      phone: b.phone,
      file: { data: WEBP.toString("base64"), mimetype: "image/webp" },
    });
    const sent = await sentAs(out.id);
    expect(sent.message).toMatchObject({ type: "sticker", media: { mimetype: "image/webp" } });
    expect(Buffer.from(sent.message.media.data, "base64")).toEqual(WEBP);
    expect((await anyEventOf(out.id)).type).toBe("sticker");

    const before = (await sentList(a.phone)).length;
    const bad = await expectError(
      await post("sticker", { phone: b.phone, file: { data: PNG.toString("base64"), mimetype: "image/png" } }),
      422,
      "validation_error",
    );
    expect(bad.error.details?.file).toMatch(/WEBP/);
    expect(await sentList(a.phone)).toHaveLength(before);
  });

  it("link-preview: text, preview fields and its image", async () => {
    const out = await send("link-preview", {
      phone: b.phone,
      text: "veja https://example.com/artigo",
      preview: {
        title: "Artigo",
        description: "Um artigo",
        url: "https://example.com/artigo",
        image: { data: PNG.toString("base64"), mimetype: "image/png" },
      },
    });
    const sent = await sentAs(out.id);
    expect(sent.message).toMatchObject({
      type: "link_preview",
      text: "veja https://example.com/artigo",
      preview: { title: "Artigo", description: "Um artigo", url: "https://example.com/artigo" },
    });
    expect(sent.message.preview.image.mimetype).toBe("image/png");
    expect(Buffer.from(sent.message.preview.image.data, "base64")).toEqual(PNG);
    expect(await anyEventOf(out.id)).toMatchObject({ type: "text", text: "veja https://example.com/artigo" });
  });
});

describe("structured messages", () => {
  it("poll, and votes on our own poll and on the contact's", async () => {
    const poll = await send("poll", {
      phone: b.phone,
      poll: { name: "Cor favorita?", options: ["Azul", "Verde", "Roxo"], multipleAnswers: false },
    });
    const sent = await sentAs(poll.id);
    expect(sent.message).toEqual({
      type: "poll",
      name: "Cor favorita?",
      options: ["Azul", "Verde", "Roxo"],
      multipleAnswers: false,
    });
    expect(await anyEventOf(poll.id)).toMatchObject({ type: "poll", text: "Cor favorita?" });

    // Our own poll, named by its API id: the chat comes from the id.
    const res = await post("poll/vote", { pollMessageId: poll.id, votes: [["Verde"]] });
    const vote = await expectJson(res, 201);
    expect(vote).toMatchObject({ chatId: `${b.phone}@c.us`, status: "sent" });
    expect((await sentAs(vote.id)).message).toEqual({
      type: "poll_vote",
      pollId: networkId(poll.id),
      votes: ["Verde"],
    });

    // The contact's poll (a multiple-answer one), named by the id we received it under.
    const theirs = await expectJson<{ id: string }>(
      await c.sim("POST", `/simnet/phones/${b.phone}/send`, {
        to: a.phone,
        message: { type: "poll", name: "Dias?", options: ["Seg", "Ter", "Qua"], multipleAnswers: true },
      }),
      201,
    );
    const res2 = await post("poll/vote", {
      pollMessageId: `false_${b.phone}@c.us_${theirs.id}`,
      votes: ["Seg", "Qua"],
    });
    const vote2 = await expectJson(res2, 201);
    expect(vote2).toMatchObject({ chatId: `${b.phone}@c.us`, status: "sent" });
    expect((await sentAs(vote2.id)).message).toEqual({ type: "poll_vote", pollId: theirs.id, votes: ["Seg", "Qua"] });
  });

  // Regression: a vote's answer keeps `success: true` (the extended schema is listed first in the union).
  it("poll/vote answers success: true (spec 4.4) along with the send response", async () => {
    const poll = await send("poll", {
      phone: b.phone,
      poll: { name: "Sim ou não?", options: ["Sim", "Não"], multipleAnswers: false },
    });
    const vote = await expectJson(await post("poll/vote", { pollMessageId: poll.id, votes: ["Sim"] }), 201);
    expect(vote).toMatchObject({ success: true, chatId: `${b.phone}@c.us`, status: "sent" });
  });

  it("location: title becomes the name", async () => {
    const out = await send("location", {
      phone: b.phone,
      latitude: -19.9167,
      longitude: -43.9345,
      title: "Praça da Liberdade",
      address: "Belo Horizonte, MG",
    });
    expect((await sentAs(out.id)).message).toEqual({
      type: "location",
      latitude: -19.9167,
      longitude: -43.9345,
      name: "Praça da Liberdade",
      address: "Belo Horizonte, MG",
    });
    expect(await anyEventOf(out.id)).toMatchObject({ type: "location", text: "Praça da Liberdade" });
  });

  it("contact-vcard: the contacts as given", async () => {
    const contacts = [
      { fullName: "Ana Souza", phoneNumber: "+55 31 98888-0000", organization: "ACME", whatsappId: "5531988880000" },
      { fullName: "Rui", phoneNumber: "5531977776666" },
    ];
    const out = await send("contact-vcard", { phone: b.phone, contacts });
    expect((await sentAs(out.id)).message).toEqual({ type: "contacts", contacts });
    expect((await anyEventOf(out.id)).type).toBe("contact");
  });

  it("event: every field reaches the contact", async () => {
    const event = {
      name: "Reunião",
      startTime: 1_893_456_000,
      endTime: 1_893_459_600,
      description: "Planejamento",
      extraGuestsAllowed: true,
      location: { name: "Sala 2" },
    };
    const out = await send("event", { phone: b.phone, event });
    expect((await sentAs(out.id)).message).toEqual({ type: "event", ...event });
    const got = (await inboxOf(b.phone)).find((m) => m.id === networkId(out.id));
    expect(got?.message).toEqual({ type: "event", ...event });
    expect(await anyEventOf(out.id)).toMatchObject({ text: "Reunião" });
  });

  it("forward: the same content to another chat, marked forwarded", async () => {
    const original = await send("text", { phone: b.phone, text: "vale repassar" });
    const fwd = await send("forward", { phone: e.phone, messageId: original.id }, `${e.phone}@c.us`);
    const sent = await sentAs(fwd.id);
    expect(sent.message).toEqual({ type: "text", text: "vale repassar" });
    expect(sent.forwarded).toBe(true);
    const got = (await inboxOf(e.phone)).find((m) => m.id === sent.id);
    expect(got).toMatchObject({ forwarded: true, message: { type: "text", text: "vale repassar" } });
    expect(await anyEventOf(fwd.id)).toMatchObject({ type: "text", text: "vale repassar", forwarded: true });

    // Media too, by bare network id.
    const image = await send("image", {
      phone: b.phone,
      file: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    const fwd2 = await send("forward", { phone: e.phone, messageId: networkId(image.id) }, `${e.phone}@c.us`);
    const sent2 = await sentAs(fwd2.id);
    expect(sent2.forwarded).toBe(true);
    expect(Buffer.from(sent2.message.media.data, "base64")).toEqual(PNG);

    // A message the contact sent us.
    const incoming = await expectJson<{ id: string }>(
      await c.sim("POST", `/simnet/phones/${b.phone}/send`, {
        to: a.phone,
        message: { type: "location", latitude: 1.5, longitude: -2.5, name: "Aqui" },
      }),
      201,
    );
    const apiId = `false_${b.phone}@c.us_${incoming.id}`;
    await until(async () => (await c.events(a.id, "message")).some((ev) => ev.payload.id === apiId), "incoming");
    const fwd3 = await send("forward", { phone: e.phone, messageId: apiId }, `${e.phone}@c.us`);
    const sent3 = await sentAs(fwd3.id);
    expect(sent3.message).toEqual({ type: "location", latitude: 1.5, longitude: -2.5, name: "Aqui" });
    expect(sent3.forwarded).toBe(true);
  });

  it("list → 501 not_supported and template → 501 official_api_only on a standard instance", async () => {
    const before = (await sentList(a.phone)).length;
    await expectError(
      await post("list", {
        phone: b.phone,
        message: {
          title: "Menu",
          button: "Abrir",
          sections: [{ title: "Pratos", rows: [{ title: "Feijoada", rowId: "f1" }] }],
        },
      }),
      501,
      "not_supported",
    );
    await expectError(
      await post("template", { phone: b.phone, template: { name: "boas_vindas", language: "pt_BR" } }),
      501,
      "official_api_only",
    );
    // Not through the queue either.
    const list = {
      phone: b.phone,
      message: { title: "M", button: "B", sections: [{ title: "S", rows: [{ title: "R", rowId: "r" }] }] },
    };
    await expectError(await post("list", list, { "x-queue": "true" }), 501, "not_supported");
    await expectError(
      await post("template", { phone: b.phone, template: { name: "t", language: "pt_BR" } }, { "x-queue": "true" }),
      501,
      "official_api_only",
    );
    expect(await sentList(a.phone)).toHaveLength(before);
  });
});

describe("reactions and read receipts", () => {
  it("PUT /messages/reaction answers {chatId, id, status: ok}; simnet records it; empty removes", async () => {
    const target = await send("text", { phone: b.phone, text: "reaja aqui" });
    const res = await call("/messages/reaction", { method: "PUT", json: { messageId: target.id, reaction: "👍" } });
    const out = await expectJson(res, 200);
    expect(Object.keys(out).sort()).toEqual(["chatId", "id", "status"]);
    expect(out).toMatchObject({ chatId: `${b.phone}@c.us`, status: "ok" });
    expect(out.id).toMatch(new RegExp(`^true_${b.phone}@c\\.us_[A-Za-z0-9-]+$`));
    expect((await sentAs(out.id)).message).toEqual({ type: "reaction", targetId: networkId(target.id), emoji: "👍" });
    const got = (await inboxOf(b.phone)).find((m) => m.id === networkId(out.id));
    expect(got?.message).toEqual({ type: "reaction", targetId: networkId(target.id), emoji: "👍" });
    const reactions = await c.events(a.id, "message.reaction");
    expect(reactions.find((ev) => ev.payload.id === out.id)?.payload).toMatchObject({
      messageId: target.id,
      emoji: "👍",
      fromMe: true,
    });

    // By bare network id, removing it.
    const res2 = await call("/messages/reaction", {
      method: "PUT",
      json: { messageId: networkId(target.id), reaction: "" },
    });
    const out2 = await expectJson(res2, 200);
    expect(out2).toMatchObject({ chatId: `${b.phone}@c.us`, status: "ok" });
    expect((await sentAs(out2.id)).message).toEqual({ type: "reaction", targetId: networkId(target.id), emoji: "" });
  });

  it("POST /messages/seen marks what the contact sent as read", async () => {
    const m1 = await expectJson<{ id: string }>(
      await c.sim("POST", `/simnet/phones/${b.phone}/send`, { to: a.phone, message: { type: "text", text: "leu?" } }),
      201,
    );
    const m2 = await expectJson<{ id: string }>(
      await c.sim("POST", `/simnet/phones/${b.phone}/send`, {
        to: a.phone,
        message: { type: "text", text: "e esta?" },
      }),
      201,
    );
    const receipt = async (id: string) =>
      (await sentList(b.phone)).find((m) => m.id === id)?.receipts[a.phone] ?? "missing";
    await until(async () => (await receipt(m1.id)) === "delivered", "delivery to a's device");
    expect(await receipt(m2.id)).not.toBe("read");

    const res = await call("/messages/seen", {
      method: "POST",
      json: { messageId: `false_${b.phone}@c.us_${m1.id}` },
    });
    expect(await expectJson(res, 200)).toEqual({});
    expect(await receipt(m1.id)).toBe("read");
    expect(await receipt(m2.id)).not.toBe("read");
    await until(async () => (await sentList(b.phone)).find((m) => m.id === m1.id)?.status === "read", "b sees read");

    // Bare ids with their chat.
    const res2 = await call("/messages/seen", { method: "POST", json: { chatId: b.phone, messageIds: [m2.id] } });
    expect(await expectJson(res2, 200)).toEqual({});
    expect(await receipt(m2.id)).toBe("read");
  });
});

describe("events", () => {
  it("message.any of a sent message names the chat: the contact's name once seen, a group's subject", async () => {
    // The contact's profile name becomes known when it writes (no address book on simnet).
    await c.sim("POST", `/simnet/phones/${b.phone}/send`, { to: a.phone, message: { type: "text", text: "oi" } });
    await until(async () => (await c.events(a.id, "message")).some((ev) => ev.payload.chatName === "Bia"), "b writes");
    const out = await send("text", { phone: b.phone, text: "com nome" });
    expect(await anyEventOf(out.id)).toMatchObject({ chatName: "Bia", chatId: `${b.phone}@c.us` });
    const group = await expectJson<{ id: string }>(
      await c.sim("POST", "/simnet/groups", { subject: "Nomeado", participants: [a.phone, b.phone] }),
      201,
    );
    const g = await send("text", { chatId: group.id, text: "olá grupo" }, group.id);
    expect(await anyEventOf(g.id)).toMatchObject({ chatName: "Nomeado", isGroup: true });
  });

  it("message.ack goes sent → delivered → read with the send response's id (contact reads on its own)", async () => {
    const out = await send("text", { phone: d.phone, text: "autoRead" }, `${d.phone}@c.us`);
    await until(async () => (await ackStatuses(out.id)).includes("read"), "read ack");
    expect(await ackStatuses(out.id)).toEqual(["sent", "delivered", "read"]);
    const acks = (await c.events(a.id, "message.ack")).filter((ev) => ev.payload.id === out.id);
    for (const ack of acks) {
      expect(ack.payload.chatId).toBe(`${d.phone}@c.us`);
      expect(typeof ack.payload.timestamp).toBe("number");
    }
  });

  it("`sent` is announced with the send, right after its message.any, and once", async () => {
    const out = await send("text", { phone: e.phone, text: "sent uma vez" }, `${e.phone}@c.us`);
    // The answer waits for the recording: both events are there already, in this order.
    const mine = (await c.events(a.id))
      .filter((ev) => ev.payload.id === out.id)
      .map((ev) => `${ev.event}:${String(ev.payload.status)}`);
    expect(mine.slice(0, 2)).toEqual(["message.any:sent", "message.ack:sent"]);
    const sentAck = (await c.events(a.id, "message.ack")).find((ev) => ev.payload.id === out.id)!;
    expect(sentAck.payload).toMatchObject({ chatId: `${e.phone}@c.us`, status: "sent" });
    // simnet accepted it at once (its answer to the send; no ack frame for it) and reports
    // `delivered` one ack step (20 ms) later.
    await until(async () => (await ackStatuses(out.id)).includes("delivered"), "delivered ack");
    expect(await ackStatuses(out.id)).toEqual(["sent", "delivered"]);
    const reported = await expectJson<{ messages: { id: string; acks: { status: string }[] }[] }>(
      await c.sim("GET", `/simnet/phones/${a.phone}/sent?limit=20`),
    );
    expect(reported.messages.find((m) => m.id === networkId(out.id))?.acks.map((x) => x.status)).toEqual([
      "sent",
      "delivered",
    ]);
  });

  it("message.ack read after the contact reads it (simnet control API)", async () => {
    const out = await send("text", { phone: e.phone, text: "leia depois" }, `${e.phone}@c.us`);
    await until(async () => (await ackStatuses(out.id)).includes("delivered"), "delivered ack");
    expect(await ackStatuses(out.id)).toEqual(["sent", "delivered"]);
    const read = await c.sim("POST", `/simnet/phones/${e.phone}/read`, { ids: [networkId(out.id)] });
    expect(await expectJson(read)).toEqual({ read: 1 });
    await until(async () => (await ackStatuses(out.id)).includes("read"), "read ack");
    expect(await ackStatuses(out.id)).toEqual(["sent", "delivered", "read"]);
  });
});

describe("chats", () => {
  it('group: mentions ["all"] lists every participant', async () => {
    const res = await c.sim("POST", "/simnet/groups", {
      subject: "Time",
      participants: [a.phone, b.phone, d.phone, e.phone],
    });
    const group = await expectJson<{ id: string }>(res, 201);
    const out = await send("text", { chatId: group.id, text: "@todos bom dia", mentions: ["all"] }, group.id);
    const sent = await sentAs(out.id);
    expect(sent.groupId).toBe(group.id);
    const everyone = [a.phone, b.phone, d.phone, e.phone].map((p) => `${p}@c.us`);
    expect([...(sent.mentions ?? [])].sort()).toEqual([...everyone].sort());
    for (const p of [b.phone, d.phone, e.phone]) {
      const got = (await inboxOf(p)).find((m) => m.id === sent.id);
      expect(got).toMatchObject({ chatId: group.id, isGroup: true, message: { type: "text", text: "@todos bom dia" } });
      expect([...(got?.mentions ?? [])].sort()).toEqual([...everyone].sort());
    }
    expect(await anyEventOf(out.id)).toMatchObject({ chatId: group.id, isGroup: true, type: "text" });
  });

  it("ninth digit: a number registered without it is reached with it, and answered as registered", async () => {
    const out = await send("text", { phone: "5531986118888", text: "nono dígito" }, `${OLD}@c.us`);
    const sent = await sentAs(out.id);
    expect(sent.chatId).toBe(`${OLD}@c.us`);
    expect((await inboxOf(OLD)).some((m) => m.id === sent.id)).toBe(true);
    expect((await anyEventOf(out.id)).chatId).toBe(`${OLD}@c.us`);
    // And the other way round: a number registered with the ninth digit, asked without it.
    const back = await send("text", { phone: "553161110002", text: "sem o nono" }, `${b.phone}@c.us`);
    expect((await sentAs(back.id)).chatId).toBe(`${b.phone}@c.us`);
  });

  it("a group this number is not in, or one where only admins send → 422 network_rejected", async () => {
    const outside = await expectJson<{ id: string }>(
      await c.sim("POST", "/simnet/groups", { subject: "Fora", participants: [b.phone, d.phone] }),
      201,
    );
    await expectError(await post("text", { chatId: outside.id, text: "posso?" }), 422, "network_rejected");
    const announce = await expectJson<{ id: string }>(
      await c.sim("POST", "/simnet/groups", {
        subject: "Avisos",
        participants: [b.phone, a.phone],
        admins: [b.phone],
        onlyAdminsCanSend: true,
      }),
      201,
    );
    await expectError(await post("text", { chatId: announce.id, text: "posso?" }), 422, "network_rejected");
  });

  it("a send to a known contact's @lid is announced (response, message.any, message.ack) under its @c.us id", async () => {
    // The number check reveals b's lid: the instance learns the pair.
    const found = await expectJson<{ lid: string }>(await call(`/contacts/check-exists?phone=${b.phone}`), 200);
    expect(found.lid).toMatch(/@lid$/);
    const out = await send("text", { chatId: found.lid, text: "pelo lid" });
    expect(out.chatId).toBe(`${b.phone}@c.us`);
    expect(await anyEventOf(out.id)).toMatchObject({ chatId: `${b.phone}@c.us`, chatLid: found.lid });
    await until(async () => (await ackStatuses(out.id)).includes("delivered"), "ack by number");
  });

  it("a number with no account → 422 network_rejected, nothing sent", async () => {
    const before = (await sentList(a.phone)).length;
    // A Brazilian mobile (refused by the number check) and another country's number (refused by the network).
    for (const phone of ["5531961119999", "4930123456789"]) {
      await expectError(await post("text", { phone, text: "alguém aí?" }), 422, "network_rejected");
    }
    expect(await sentList(a.phone)).toHaveLength(before);
  });
});
