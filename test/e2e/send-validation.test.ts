// Every validation rule of the send routes (spec 4.4, 2.5, 7, 8) over real HTTP: the status, the
// error code and the `details` key that names the wrong field — and nothing reaches the network.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type ErrorPayload, expectError, expectJson } from "../support/e2e-helpers.ts";

// Numbers of this file: 5531962220xxx.
const a = { id: "", token: "", phone: "5531962220001" }; // paired, WORKING
const b = { phone: "5531962220002" }; // a virtual contact
const stopped = { id: "", token: "" }; // created, never started: STOPPED
const other = { id: "", token: "" }; // another instance (its token must not open `a`)

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const png = { data: PNG.toString("base64"), mimetype: "image/png" };

let c: Cluster;
let files: Server;
let filesUrl = "";

type Call = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
let call: Call;
const post = (route: string, json: unknown, headers: Record<string, string> = {}) =>
  call(`/messages/${route}`, { method: "POST", json, headers });

async function sentCount(phone = a.phone): Promise<number> {
  const res = await c.sim("GET", `/simnet/phones/${phone}/sent`);
  return ((await expectJson(res)) as { messages: unknown[] }).messages.length;
}

/** Expects 422 validation_error whose details name every given key (with the text, when given). */
async function expectInvalid(res: Response, details: Record<string, string | RegExp | null>): Promise<ErrorPayload> {
  const body = await expectError(res, 422, "validation_error");
  for (const [key, text] of Object.entries(details)) {
    expect(body.error.details, `details.${key} in ${JSON.stringify(body)}`).toHaveProperty([key]);
    const got = body.error.details?.[key] ?? "";
    if (typeof text === "string") expect(got).toBe(text);
    else if (text) expect(got).toMatch(text);
  }
  return body;
}

beforeAll(async () => {
  files = createServer((req, res) => {
    if (req.url === "/ok.png") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(PNG);
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;

  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [100] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  Object.assign(stopped, await c.createInstance());
  Object.assign(other, await c.createInstance());
  const res = await c.sim("POST", "/simnet/phones", { phone: b.phone, pushName: "Bia" });
  expect(res.status).toBeLessThan(300);
  call = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
}, 60_000);

afterAll(async () => {
  await c?.close();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
});

describe("the chat", () => {
  it("missing chatId → 422 with details.chatId 'informe o chatId' (also empty)", async () => {
    const before = await sentCount();
    await expectInvalid(await post("text", { text: "oi" }), { chatId: "informe o chatId" });
    await expectInvalid(await post("text", { chatId: "", text: "oi" }), { chatId: "informe o chatId" });
    await expectInvalid(await post("image", { file: png }), { chatId: "informe o chatId" });
    await expectInvalid(await post("location", { latitude: 1, longitude: 2, title: "x" }), {
      chatId: "informe o chatId",
    });
    expect(await sentCount()).toBe(before);
  });

  it("`phone` is an alias of chatId; digits, +/spaces/dashes and @c.us forms all work", async () => {
    for (const chat of [b.phone, `+55 (31) 96222-0002`, `${b.phone}@c.us`, `${b.phone}@s.whatsapp.net`]) {
      for (const field of ["phone", "chatId"]) {
        const out = await expectJson(await post("text", { [field]: chat, text: `via ${field}` }), 201);
        expect(out.chatId).toBe(`${b.phone}@c.us`);
      }
    }
  });

  // Regression: a blank `chatId` falls back to its alias `phone`.
  it("an empty chatId next to a phone uses the phone", async () => {
    const out = await expectJson(await post("text", { chatId: "", phone: b.phone, text: "pelo alias" }), 201);
    expect(out.chatId).toBe(`${b.phone}@c.us`);
  });

  it("an invalid chatId → 422 details.chatId", async () => {
    for (const chat of ["abc", "123", "5531@c.us", "x@example.com", "@g.us"]) {
      await expectInvalid(await post("text", { chatId: chat, text: "oi" }), { chatId: /chatId inválido/ });
    }
    await expectInvalid(await post("text", { phone: "not-a-number", text: "oi" }), { chatId: /chatId inválido/ });
    await expectInvalid(await post("text", { chatId: 5531962220002, text: "oi" }), { chatId: null });
  });
});

describe("delays and X-Queue", () => {
  it("delayMessage outside 0–60 or not a number → details.delayMessage", async () => {
    for (const v of [-1, 60.5, 61, 1000]) {
      await expectInvalid(await post("text", { phone: b.phone, text: "x", delayMessage: v }), {
        delayMessage: "delayMessage vai de 0 a 60 segundos",
      });
    }
    for (const v of ["5", true, null, [1], { s: 1 }]) {
      await expectInvalid(await post("text", { phone: b.phone, text: "x", delayMessage: v }), {
        delayMessage: null,
      });
    }
  });

  it("delayTyping outside 0–15 or not a number → details.delayTyping", async () => {
    for (const v of [-0.5, 15.1, 16]) {
      await expectInvalid(await post("text", { phone: b.phone, text: "x", delayTyping: v }), {
        delayTyping: "delayTyping vai de 0 a 15 segundos",
      });
    }
    await expectInvalid(await post("text", { phone: b.phone, text: "x", delayTyping: "3" }), { delayTyping: null });
    // Both wrong: both named.
    await expectInvalid(await post("text", { phone: b.phone, text: "x", delayMessage: 99, delayTyping: 99 }), {
      delayMessage: null,
      delayTyping: null,
    });
  });

  it("the bounds themselves are accepted (0 s → queued, 202)", async () => {
    const res = await post("text", { phone: b.phone, text: "limite", delayMessage: 0, delayTyping: 0 });
    const item = await expectJson(res, 202);
    expect(item.id).toMatch(/^qm_/);
  });

  it("a queued send is validated before it is queued (missing or invalid chat → 422, nothing queued)", async () => {
    const ids = async () =>
      ((await expectJson(await call("/queue?status=all&limit=100"))).data as { id: string }[]).map((i) => i.id);
    const before = await ids();
    await expectInvalid(await post("text", { text: "x", delayMessage: 0 }), { chatId: "informe o chatId" });
    await expectInvalid(await post("text", { chatId: "abc", text: "x" }, { "x-queue": "true" }), {
      chatId: /chatId inválido/,
    });
    await expectInvalid(
      await post("poll", { phone: b.phone, poll: { name: "Q", options: ["A"] } }, { "x-queue": "true" }),
      {
        options: null,
      },
    );
    expect(await ids()).toEqual(before);
  });

  it("a business-scoped id (@bsuid) is the official gateway's only: 422 queued or not, nothing queued or sent", async () => {
    const ids = async () =>
      ((await expectJson(await call("/queue?status=all&limit=100"))).data as { id: string }[]).map((i) => i.id);
    const before = await ids();
    const sentBefore = await sentCount();
    for (const headers of [{ "x-queue": "true" }, { "x-queue": "false" }]) {
      await expectInvalid(await post("text", { chatId: "a@bsuid", text: "x" }, headers), { chatId: /gateway oficial/ });
    }
    expect(await ids()).toEqual(before);
    expect(await sentCount()).toBe(sentBefore);
  });

  it("X-Queue: false with delayMessage or delayTyping → 422 naming the field", async () => {
    const before = await sentCount();
    await expectInvalid(await post("text", { phone: b.phone, text: "x", delayMessage: 5 }, { "x-queue": "false" }), {
      delayMessage: /X-Queue: false/,
    });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", delayTyping: 2 }, { "x-queue": "false" }), {
      delayTyping: /X-Queue: false/,
    });
    expect(await sentCount()).toBe(before);
  });

  it("an X-Queue value other than true/false → 422 details['X-Queue']", async () => {
    for (const v of ["yes", "1", "no", "truee"]) {
      await expectInvalid(await post("text", { phone: b.phone, text: "x" }, { "x-queue": v }), {
        "X-Queue": "use true ou false",
      });
    }
    // Case and spaces do not matter.
    const out = await expectJson(await post("text", { phone: b.phone, text: "x" }, { "x-queue": " FALSE " }), 201);
    expect(out.status).toBe("sent");
  });
});

describe("the file object (spec 2.5)", () => {
  it("both url and data, or neither → details.file", async () => {
    await expectInvalid(await post("image", { phone: b.phone, file: { ...png, url: `${filesUrl}/ok.png` } }), {
      file: "informe exatamente um de file.url ou file.data",
    });
    await expectInvalid(await post("image", { phone: b.phone, file: { mimetype: "image/png" } }), {
      file: "informe exatamente um de file.url ou file.data",
    });
    await expectInvalid(await post("image", { phone: b.phone }), { file: null });
    await expectInvalid(await post("image", { phone: b.phone, file: "https://example.com/a.png" }), { file: null });
  });

  it("data without mimetype → details['file.mimetype'] (a data: URL carries its own)", async () => {
    await expectInvalid(await post("image", { phone: b.phone, file: { data: png.data } }), {
      "file.mimetype": null,
    });
    const out = await expectJson(
      await post("image", { phone: b.phone, file: { data: `data:image/png;base64,${png.data}` } }),
      201,
    );
    expect(out.status).toBe("sent");
  });

  it("malformed mimetype → details['file.mimetype']", async () => {
    await expectInvalid(await post("image", { phone: b.phone, file: { data: png.data, mimetype: "imagem png" } }), {
      "file.mimetype": null,
    });
  });

  it("invalid base64 → details['file.data']", async () => {
    for (const data of ["@@@@", "abc$def", "aGVsbG8=aGVsbG8=", "a", "data:image/png,notbase64"]) {
      await expectInvalid(await post("image", { phone: b.phone, file: { data, mimetype: "image/png" } }), {
        "file.data": null,
      });
    }
    await expectInvalid(await post("image", { phone: b.phone, file: { data: "", mimetype: "image/png" } }), {
      data: null,
    });
  });

  it("a url that answers 404 → 422 details['file.url']", async () => {
    const body = await expectInvalid(
      await post("image", { phone: b.phone, file: { url: `${filesUrl}/missing.png` } }),
      {
        "file.url": /404/,
      },
    );
    expect(body.error.details?.["file.url"]).toContain("404");
  });

  it("a url that is no URL → 422 details['file.url']", async () => {
    await expectInvalid(await post("image", { phone: b.phone, file: { url: "not a url" } }), { "file.url": null });
  });

  it("a url with another scheme → 400 url_not_allowed", async () => {
    const body = await expectError(
      await post("image", { phone: b.phone, file: { url: "ftp://example.com/a.png" } }),
      400,
      "url_not_allowed",
    );
    expect(body.error.details).toHaveProperty(["file.url"]);
  });

  it("the media kind must fit the route", async () => {
    await expectInvalid(
      await post("image", { phone: b.phone, file: { data: png.data, mimetype: "application/pdf" } }),
      { file: /imagem/ },
    );
    await expectInvalid(
      await post("voice", { phone: b.phone, file: { data: png.data, mimetype: "image/png" }, convert: false }),
      { file: /áudio/ },
    );
    await expectInvalid(
      await post("video", { phone: b.phone, file: { data: png.data, mimetype: "image/png" }, convert: false }),
      { file: /vídeo/ },
    );
    // convert: true on something ffmpeg cannot read.
    const junk = Buffer.from("definitely not a media file").toString("base64");
    await expectInvalid(
      await post("voice", { phone: b.phone, file: { data: junk, mimetype: "audio/wav" }, convert: true }),
      { file: /converter/ },
    );
    await expectInvalid(
      await post("video", { phone: b.phone, file: { data: junk, mimetype: "video/mp4" }, convert: true }),
      { file: /converter/ },
    );
  });

  it("route-specific file rules: document needs filename; voice/video need convert", async () => {
    await expectInvalid(await post("file", { phone: b.phone, file: { data: png.data, mimetype: "application/pdf" } }), {
      filename: /filename/,
      "file.filename": null,
    });
    await expectInvalid(await post("voice", { phone: b.phone, file: png }), { convert: null });
    await expectInvalid(await post("video", { phone: b.phone, file: png, convert: "yes" }), { convert: null });
  });
});

describe("route bodies", () => {
  it("wrong types → 422 naming the field", async () => {
    await expectInvalid(await post("text", { phone: b.phone, text: 5 }), { text: null });
    await expectInvalid(await post("text", { phone: b.phone }), { text: null });
    await expectInvalid(await post("text", { phone: b.phone, text: "" }), { text: "informe o texto" });
    await expectInvalid(await post("text", { phone: b.phone, text: "x".repeat(65_537) }), { text: null });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", mentions: "5531962220002" }), {
      mentions: null,
    });
    await expectInvalid(await post("location", { phone: b.phone, latitude: "10", longitude: 1, title: "x" }), {
      latitude: null,
    });
    await expectInvalid(await post("poll", { phone: b.phone, poll: "Qual?" }), { poll: null });
  });

  it("wrong types of the optional flags → 422 naming the field", async () => {
    await expectInvalid(await post("text", { phone: b.phone, text: "x", linkPreview: "sim" }), { linkPreview: null });
    const video = { data: "AAAA", mimetype: "video/mp4" };
    await expectInvalid(await post("video", { phone: b.phone, file: video, asNote: "sim" }), { asNote: null });
    await expectInvalid(await post("video", { phone: b.phone, file: video, convert: 1 }), { convert: null });
    const vote = { phone: b.phone, pollMessageId: "3EB0AAAAAAAAAAAAAAAAAAAA", votes: ["a"] };
    await expectInvalid(await post("poll/vote", { ...vote, pollServerId: "7" }), { pollServerId: null });
    await expectInvalid(await post("poll/vote", { ...vote, pollServerId: 1.5 }), { pollServerId: null });
  });

  it("a route the instance kind lacks answers 501 before its body is validated (the capability table)", async () => {
    const section = { title: "Seção", rows: [{ title: "Linha", rowId: "r1" }] };
    const list = { title: "Menu", button: "Abrir", sections: [section] };
    // No body makes a missing route exist: the 501 comes first, whatever the body.
    await expectError(await post("list", { phone: b.phone }), 501, "not_supported");
    await expectError(await post("list", { phone: b.phone, message: { ...list, button: "" } }), 501, "not_supported");
    await expectError(await post("list", { phone: b.phone, message: list }), 501, "not_supported");
    await expectError(await post("template", { phone: b.phone }), 501, "official_api_only");
    await expectError(
      await post("template", { phone: b.phone, template: { name: "pedido", language: "pt_BR" } }),
      501,
      "official_api_only",
    );
    await expectError(await post("buttons", { phone: b.phone, text: "x", buttons: [] }), 501, "official_api_only");
  });

  it("ids: our own `id`, reply_to, mentions", async () => {
    await expectInvalid(await post("text", { phone: b.phone, text: "x", id: "has_underscore" }), { id: null });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", id: "abc" }), { id: null });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", reply_to: "not an id!" }), {
      reply_to: null,
    });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", mentions: ["ninguém"] }), {
      mentions: /menção inválida/,
    });
    await expectInvalid(await post("text", { phone: b.phone, text: "x", mentions: ["123@g.us"] }), {
      mentions: null,
    });
    // ["all"] is for groups only.
    await expectInvalid(await post("text", { phone: b.phone, text: "x", mentions: ["all"] }), { mentions: null });
  });

  it("poll: 2 to 12 distinct options, multipleAnswers required", async () => {
    const poll = (p: Record<string, unknown>) => post("poll", { phone: b.phone, poll: { name: "Q?", ...p } });
    await expectInvalid(await poll({ options: ["Só uma"], multipleAnswers: false }), {
      options: /2 a 12/,
      "poll.options": null,
    });
    await expectInvalid(await poll({ options: [], multipleAnswers: false }), { options: null });
    const thirteen = Array.from({ length: 13 }, (_, i) => `op${i}`);
    await expectInvalid(await poll({ options: thirteen, multipleAnswers: false }), { options: /2 a 12/ });
    await expectInvalid(await poll({ options: ["A", "A"], multipleAnswers: false }), { options: /diferentes/ });
    await expectInvalid(await poll({ options: ["A", "B"] }), { multipleAnswers: null });
  });

  it("poll/vote: an unknown bare poll id without chatId; options not in the poll", async () => {
    await expectInvalid(await post("poll/vote", { pollMessageId: "3EB0AAAAAAAAAAAAAAAAAAAA", votes: ["A"] }), {
      chatId: null,
    });
    await expectInvalid(await post("poll/vote", { pollMessageId: "x y", votes: ["A"] }), { pollMessageId: null });
    await expectInvalid(await post("poll/vote", { phone: b.phone, votes: ["A"] }), { pollMessageId: null });
    const poll = await expectJson(
      await post("poll", { phone: b.phone, poll: { name: "Q?", options: ["A", "B"], multipleAnswers: false } }),
      201,
    );
    const before = await sentCount();
    await expectError(await post("poll/vote", { pollMessageId: poll.id, votes: ["Z"] }), 422, "validation_error");
    await expectError(await post("poll/vote", { pollMessageId: poll.id, votes: ["A", "B"] }), 422, "validation_error");
    expect(await sentCount()).toBe(before);
  });

  // Regression: network refusals answer in Portuguese, with `details` naming the field (spec 7).
  it("network refusals answer in Portuguese and name the field", async () => {
    const poll = await expectJson(
      await post("poll", { phone: b.phone, poll: { name: "Q2?", options: ["A", "B"], multipleAnswers: false } }),
      201,
    );
    const english = /not options|is not on the network|unknown message|this poll/;
    const vote = await expectInvalid(await post("poll/vote", { pollMessageId: poll.id, votes: ["Z"] }), {
      votes: null,
    });
    expect(vote.error.message).not.toMatch(english);
    const nobody = await expectError(
      await post("text", { phone: "4930123456789", text: "x" }),
      422,
      "network_rejected",
    );
    expect(nobody.error.message).not.toMatch(english);
    expect(nobody.error.details).toHaveProperty(["chatId"]);
    const react = await expectError(
      await call("/messages/reaction", {
        method: "PUT",
        json: { chatId: b.phone, messageId: "3EB0DDDDDDDDDDDDDDDDDDDD", reaction: "👍" },
      }),
      422,
      "network_rejected",
    );
    expect(react.error.message).not.toMatch(english);
  });

  it("location: latitude -90..90, longitude -180..180, title required", async () => {
    const loc = (p: Record<string, unknown>) => post("location", { phone: b.phone, ...p });
    await expectInvalid(await loc({ latitude: 91, longitude: 0, title: "x" }), {
      latitude: "latitude vai de -90 a 90",
    });
    await expectInvalid(await loc({ latitude: -90.5, longitude: 0, title: "x" }), { latitude: null });
    await expectInvalid(await loc({ latitude: 0, longitude: 180.01, title: "x" }), {
      longitude: "longitude vai de -180 a 180",
    });
    await expectInvalid(await loc({ latitude: 0, longitude: 0 }), { title: null });
    await expectInvalid(await loc({ latitude: 0, longitude: 0, title: "" }), { title: "informe title" });
    await expectInvalid(await loc({ title: "x" }), { latitude: null, longitude: null });
  });

  it("contact-vcard: at least one contact, each with fullName and a phone number", async () => {
    await expectInvalid(await post("contact-vcard", { phone: b.phone, contacts: [] }), {
      contacts: "informe ao menos um contato",
    });
    await expectInvalid(await post("contact-vcard", { phone: b.phone }), { contacts: null });
    await expectInvalid(await post("contact-vcard", { phone: b.phone, contacts: [{ fullName: "Ana" }] }), {
      phoneNumber: null,
      "contacts.0.phoneNumber": null,
    });
    await expectInvalid(
      await post("contact-vcard", { phone: b.phone, contacts: [{ fullName: "Ana", phoneNumber: "ligue já" }] }),
      { phoneNumber: "phoneNumber inválido" },
    );
  });

  it("event: name and startTime required; endTime not before startTime", async () => {
    await expectInvalid(await post("event", { phone: b.phone, event: { name: "Reunião" } }), {
      startTime: null,
      "event.startTime": null,
    });
    await expectInvalid(await post("event", { phone: b.phone, event: { startTime: 1_900_000_000 } }), {
      name: null,
    });
    await expectInvalid(
      await post("event", { phone: b.phone, event: { name: "R", startTime: 1_900_000_000, endTime: 1_800_000_000 } }),
      { "event.endTime": null },
    );
    await expectInvalid(await post("event", { phone: b.phone }), { event: null });
  });

  it("link-preview: preview with title, description and url", async () => {
    await expectInvalid(await post("link-preview", { phone: b.phone, text: "x" }), { preview: null });
    await expectInvalid(
      await post("link-preview", { phone: b.phone, text: "x", preview: { title: "t", description: "d" } }),
      { url: null, "preview.url": null },
    );
  });

  it("forward of an unknown message → 422 details.messageId", async () => {
    await expectInvalid(await post("forward", { phone: b.phone, messageId: "3EB0BBBBBBBBBBBBBBBBBBBB" }), {
      messageId: /não encontrada/,
    });
    await expectInvalid(
      await post("forward", { phone: b.phone, messageId: `true_${b.phone}@c.us_3EB0CCCCCCCCCCCCCCCCCCCC` }),
      { messageId: /não encontrada/ },
    );
    await expectInvalid(await post("forward", { phone: b.phone }), { messageId: null });
  });

  it("seen: nothing named is a no-op; a bare id needs its chat", async () => {
    const seen = (json: unknown) => call("/messages/seen", { method: "POST", json });
    expect(await expectJson(await seen({}))).toEqual({});
    await expectInvalid(await seen({ messageIds: ["3EB0FFFFFFFFFFFFFFFFFFFF"] }), { chatId: "informe o chatId" });
    await expectInvalid(await seen({ messageIds: "3EB0FFFFFFFFFFFFFFFFFFFF" }), { messageIds: null });
    await expectInvalid(await seen({ chatId: b.phone, messageIds: ["not an id!"] }), { messageIds: null });
  });

  // Regression: a malformed `messageId` is reported under its own field, not `messageIds`.
  it("seen: a malformed messageId is reported under details.messageId", async () => {
    await expectInvalid(
      await call("/messages/seen", { method: "POST", json: { chatId: b.phone, messageId: "not an id!" } }),
      { messageId: null },
    );
  });

  it("seen: in a group, participant completes a bare id the instance has not stored", async () => {
    const group = await expectJson<{ id: string }>(
      await c.sim("POST", "/simnet/groups", { subject: "Recibos", participants: [a.phone, b.phone] }),
      201,
    );
    const seen = (json: unknown) => call("/messages/seen", { method: "POST", json });
    const bare = "3EB0ABCDEFABCDEFABCDEF01";
    // A group receipt names the sender: without it the bare id cannot be read.
    await expectInvalid(await seen({ chatId: group.id, messageId: bare }), { messageIds: null });
    await expectInvalid(await seen({ chatId: group.id, messageId: bare, participant: "nobody" }), {
      participant: "participante inválido",
    });
    expect(await expectJson(await seen({ chatId: group.id, messageId: bare, participant: b.phone }))).toEqual({});
  });

  it("reaction: messageId and reaction required; an unknown bare id needs its chat", async () => {
    const react = (json: unknown) => call("/messages/reaction", { method: "PUT", json });
    await expectInvalid(await react({ reaction: "👍" }), { messageId: null });
    await expectInvalid(await react({ messageId: "3EB0DDDDDDDDDDDDDDDDDDDD" }), { reaction: null });
    await expectInvalid(await react({ messageId: "3EB0DDDDDDDDDDDDDDDDDDDD", reaction: "👍" }), { chatId: null });
    // A chat given, but the network knows no such message.
    await expectError(
      await react({ chatId: b.phone, messageId: "3EB0DDDDDDDDDDDDDDDDDDDD", reaction: "👍" }),
      422,
      "network_rejected",
    );
  });
});

describe("the instance and the request", () => {
  it("an instance that is not WORKING → 422 instance_not_connected", async () => {
    const s = (path: string, init?: RequestInit & { json?: unknown }) =>
      c.as(stopped.token)(`/v1/instances/${stopped.id}${path}`, init);
    const body = await expectError(
      await s("/messages/text", { method: "POST", json: { phone: b.phone, text: "oi" } }),
      422,
      "instance_not_connected",
    );
    expect(body.error.details?.connectionStatus).toMatch(/STOPPED/);
    await expectError(
      await s("/messages/image", { method: "POST", json: { phone: b.phone, file: png } }),
      422,
      "instance_not_connected",
    );
    await expectError(
      await s("/messages/reaction", { method: "PUT", json: { chatId: b.phone, messageId: "3EB0EEEE", reaction: "x" } }),
      422,
      "instance_not_connected",
    );
    await expectError(
      await s("/messages/seen", { method: "POST", json: { chatId: b.phone, messageId: "3EB0EEEE" } }),
      422,
      "instance_not_connected",
    );
  });

  it("a JSON body above 1 MiB on /messages/text → 413; a 2 MB file.data on /messages/image is accepted", async () => {
    await expectError(await post("text", { phone: b.phone, text: "x".repeat(1_100_000) }), 413, "payload_too_large");
    const big = Buffer.alloc(1_500_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
    const data = big.toString("base64");
    expect(data.length).toBeGreaterThan(1_900_000);
    const out = await expectJson(await post("image", { phone: b.phone, file: { data, mimetype: "image/jpeg" } }), 201);
    const sent = (await expectJson(await c.sim("GET", `/simnet/phones/${a.phone}/sent`))) as {
      messages: { id: string; message: { media: { data: string } } }[];
    };
    const got = sent.messages.find((m) => m.id === out.id.split("_")[2]);
    expect(Buffer.from(got?.message.media.data ?? "", "base64").equals(big)).toBe(true);
    // The 1 MiB limit still holds for JSON routes that carry no file.
    await expectError(
      await post("poll", { phone: b.phone, poll: { name: "x".repeat(1_100_000), options: ["a", "b"] } }),
      413,
      "payload_too_large",
    );
  });

  it("tokens: another instance's → 401 invalid_token; none → 401 missing_token; Bearer works", async () => {
    const path = `/v1/instances/${a.id}/messages/text`;
    const json = { phone: b.phone, text: "de quem?" };
    const before = await sentCount();
    await expectError(await c.as(other.token)(path, { method: "POST", json }), 401, "invalid_token");
    await expectError(await c.request(path, { method: "POST", json }), 401, "missing_token");
    await expectError(
      await c.request(path, { method: "POST", json, headers: { "x-instance-token": "gwt_nope" } }),
      401,
      "invalid_token",
    );
    expect(await sentCount()).toBe(before);
    const ok = await c.request(path, { method: "POST", json, headers: { authorization: `Bearer ${a.token}` } });
    expect((await expectJson(ok, 201)).status).toBe("sent");
  });

  it("a body that is not a JSON object → 400 bad_request", async () => {
    await expectError(await post("text", [{ phone: b.phone, text: "x" }]), 400, "bad_request");
    await expectError(await post("text", "texto"), 400, "bad_request");
    await expectError(await post("text", 42), 400, "bad_request");
    await expectError(
      await call("/messages/text", {
        method: "POST",
        body: JSON.stringify({ phone: b.phone, text: "x" }),
        headers: { "content-type": "text/plain" },
      }),
      400,
      "bad_request",
    );
    await expectError(
      await call("/messages/text", {
        method: "POST",
        body: '{"phone": "1", "text": ',
        headers: { "content-type": "application/json" },
      }),
      400,
      "bad_request",
    );
  });
});

describe("with private addresses forbidden (WEBHOOK_ALLOW_PRIVATE=false)", () => {
  let strict: Cluster;
  const s = { id: "", token: "", phone: "5531962220101" };
  let sPost: (route: string, json: unknown) => Promise<Response>;

  beforeAll(async () => {
    strict = await startCluster({
      simnet: { ackDelayMs: 20 },
      env: {
        WEBHOOK_ALLOW_PRIVATE: "false",
        MEDIA_MAX_BYTES: "1000",
        RATE_LIMIT_PER_SECOND: "1000",
        RATE_LIMIT_BURST: "1000",
      },
    });
    Object.assign(s, await strict.createInstance());
    await strict.as(s.token)(`/v1/instances/${s.id}/start`, { method: "POST" });
    await strict.pair(s.id, s.phone);
    await strict.sim("POST", "/simnet/phones", { phone: b.phone });
    sPost = (route, json) => strict.as(s.token)(`/v1/instances/${s.id}/messages/${route}`, { method: "POST", json });
  }, 60_000);
  afterAll(() => strict?.close());

  it("file.url to an internal address or another port → 400 url_not_allowed", async () => {
    for (const url of [
      `${filesUrl}/ok.png`, // 127.0.0.1 on a high port
      "http://127.0.0.1/ok.png",
      "http://localhost/ok.png",
      "http://10.0.0.1/a.png",
      "http://192.168.1.1/a.png",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/a.png",
      "https://example.com:8443/a.png",
    ]) {
      const body = await expectError(await sPost("image", { phone: b.phone, file: { url } }), 400, "url_not_allowed");
      expect(body.error.details, url).toHaveProperty(["file.url"]);
    }
    // The preview image of link-preview is guarded too, under its own field.
    const body = await expectError(
      await sPost("link-preview", {
        phone: b.phone,
        text: "x",
        preview: { title: "t", description: "d", url: "https://example.com", image: { url: `${filesUrl}/ok.png` } },
      }),
      400,
      "url_not_allowed",
    );
    expect(body.error.details).toHaveProperty(["preview.image.url"]);
    const sent = (await expectJson(await strict.sim("GET", `/simnet/phones/${s.phone}/sent`))) as {
      messages: unknown[];
    };
    expect(sent.messages).toHaveLength(0);
  });

  it("decoded file.data above MEDIA_MAX_BYTES → 413 payload_too_large", async () => {
    const body = await expectError(
      await sPost("image", {
        phone: b.phone,
        file: { data: Buffer.alloc(1001, 1).toString("base64"), mimetype: "image/png" },
      }),
      413,
      "payload_too_large",
    );
    expect(body.error.details).toHaveProperty(["file.data"]);
    const ok = await sPost("image", {
      phone: b.phone,
      file: { data: Buffer.alloc(1000, 1).toString("base64"), mimetype: "image/png" },
    });
    expect((await expectJson(ok, 201)).status).toBe("sent");
  });
});
