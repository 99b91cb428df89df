// Sending on official-gateway instances: every send route as the operator receives it (the mock's
// request log), the 24 h window, the operator's limits before any upload, its errors mapped with
// its code kept, acks with pricing, the queue and idempotency — end to end on the local mock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectJson } from "../support/e2e-helpers.ts";
import { type OfficialNumber, type OfficialRig, startOfficial, waitForEvent } from "../support/official.ts";

let r: OfficialRig;
let n: OfficialNumber;
const CUSTOMER = "5521988776655";
const CHAT = `${CUSTOMER}@c.us`;

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
/** A lossless WEBP header of `side`x`side` (0x2f, then width-1 and height-1 in 14 bits each). */
function webp(side: number): Buffer {
  const bits = Buffer.alloc(4);
  bits.writeUInt32LE(((side - 1) | ((side - 1) << 14)) >>> 0);
  return Buffer.concat([
    Buffer.from("RIFF"),
    Buffer.from([0x1a, 0, 0, 0]),
    Buffer.from("WEBPVP8L"),
    Buffer.from([0x0d, 0, 0, 0, 0x2f]),
    bits,
    Buffer.from([0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0]),
  ]);
}
const WEBP = webp(512);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(60, 1)]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from("ftypisom"), Buffer.alloc(64, 2)]);

type Req = { seq: number; method: string; path: string; query: Record<string, string>; body: Record<string, unknown> };

async function requests(since = 0): Promise<Req[]> {
  const res = await r.ctl("GET", `/mock/numbers/${n.phoneNumberId}/requests?since=${since}`);
  return ((await res.json()) as { requests: Req[] }).requests;
}
async function lastSeq(): Promise<number> {
  return (await requests()).at(-1)?.seq ?? 0;
}
/** The `POST …/messages` bodies the operator received since `seq`. */
async function sent(since: number): Promise<Record<string, unknown>[]> {
  return (await requests(since)).filter((q) => q.method === "POST" && q.path.endsWith("/messages")).map((q) => q.body);
}
const send = (route: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  r.c.as(n.token)(`/v1/instances/${n.id}/messages/${route}`, { method: "POST", json, headers });

beforeAll(async () => {
  r = await startOfficial();
  n = await r.number();
});
afterAll(() => r?.close());

describe("the 24-hour window", () => {
  it("a free-form send before the customer wrote is refused before the operator is called; templates pass", async () => {
    const other = "5521977665544";
    const before = await lastSeq();
    const res = await send("text", { phone: other, text: "Olá" });
    const body = await expectError(res, 422, "network_rejected");
    expect(body.error.details?.chatId).toMatch(/24 h/);
    expect(body.error.message).toMatch(/template/);
    expect(await sent(before)).toEqual([]);
  });

  it("opens with the customer's message: a text then goes out as the operator's `text`", async () => {
    await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Oi, vocês entregam?" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === CHAT);
    const before = await lastSeq();
    const out = await expectJson(
      await send("text", { phone: CUSTOMER, text: "Entregamos, sim! https://loja.example" }),
      201,
    );
    expect(out).toMatchObject({ chatId: CHAT, status: "sent" });
    expect(String(out.id)).toMatch(new RegExp(`^true_${CHAT}_wamid\\.`));
    expect(await sent(before)).toEqual([
      {
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: CUSTOMER,
        type: "text",
        text: { body: "Entregamos, sim! https://loja.example", preview_url: false },
      },
    ]);
  });
});

describe("the window of a Brazilian mobile number, typed in the other form (ninth digit)", () => {
  it("a customer registered without the ninth digit is reached when typed with it: send, typing and seen", async () => {
    const registered = "551188887777"; // the operator's wa_id: no ninth digit
    const typed = "5511988887777";
    const { id: wamid } = await r.inbound(n, registered, { type: "text", text: { body: "sem o nono" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${registered}@c.us`);
    const before = await lastSeq();
    const out = await expectJson(await send("text", { phone: typed, text: "Recebido!" }), 201);
    // The operator answers the registered form; the chat is the customer's.
    expect(out).toMatchObject({ chatId: `${registered}@c.us`, status: "sent" });
    const api = r.c.as(n.token);
    await expectJson(await api(`/v1/instances/${n.id}/typing/start`, { method: "POST", json: { phone: typed } }));
    await expectJson(
      await api(`/v1/instances/${n.id}/messages/seen`, { method: "POST", json: { chatId: `${typed}@c.us` } }),
    );
    expect(await sent(before)).toEqual([
      expect.objectContaining({ to: typed, type: "text", text: { body: "Recebido!", preview_url: false } }),
      { messaging_product: "whatsapp", status: "read", message_id: wamid, typing_indicator: { type: "text" } },
      { messaging_product: "whatsapp", status: "read", message_id: wamid },
    ]);
  });

  it("and the other way round: registered with the ninth digit, typed without it", async () => {
    const registered = "5511977776666";
    const typed = "551177776666";
    await r.inbound(n, registered, { type: "text", text: { body: "com o nono" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${registered}@c.us`);
    const out = await expectJson(await send("text", { phone: typed, text: "Oi!" }), 201);
    expect(out).toMatchObject({ chatId: `${registered}@c.us` });
    // A number that is not a Brazilian mobile has one form only: still outside its window.
    await expectError(await send("text", { phone: "15551230000", text: "Oi!" }), 422, "network_rejected");
  });
});

describe("every send route, as the operator receives it", () => {
  beforeAll(async () => {
    // Every test below sends inside the window.
    await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Pode mandar" } });
  });

  it("text with linkPreview; link-preview as text with the operator's own preview", async () => {
    const before = await lastSeq();
    await expectJson(await send("text", { phone: CUSTOMER, text: "veja https://a.example", linkPreview: true }), 201);
    await expectJson(
      await send("link-preview", {
        phone: CUSTOMER,
        text: "Nosso catálogo",
        preview: { title: "Catálogo", description: "Tudo", url: "https://loja.example/c" },
      }),
      201,
    );
    const bodies = await sent(before);
    expect(bodies.map((b) => b.text)).toEqual([
      { body: "veja https://a.example", preview_url: true },
      { body: "Nosso catálogo\nhttps://loja.example/c", preview_url: true },
    ]);
  });

  it("image, document and sticker are uploaded once and sent by media id", async () => {
    const before = await lastSeq();
    await expectJson(
      await send("image", {
        phone: CUSTOMER,
        file: { data: PNG.toString("base64"), mimetype: "image/png" },
        caption: "Foto",
      }),
      201,
    );
    await expectJson(
      await send("image", { phone: CUSTOMER, file: { data: PNG.toString("base64"), mimetype: "image/png" } }),
      201,
    );
    await expectJson(
      await send("file", {
        phone: CUSTOMER,
        file: { data: PDF.toString("base64"), mimetype: "application/pdf", filename: "pedido.pdf" },
      }),
      201,
    );
    await expectJson(
      await send("sticker", { phone: CUSTOMER, file: { data: WEBP.toString("base64"), mimetype: "image/webp" } }),
      201,
    );
    const all = await requests(before);
    const uploads = all.filter((q) => q.path.endsWith("/media"));
    expect(uploads).toHaveLength(3); // the second image reuses the first one's media id
    const bodies = await sent(before);
    expect(bodies[0]).toMatchObject({ type: "image", image: { id: expect.any(String), caption: "Foto" } });
    expect((bodies[1]!.image as { id: string }).id).toBe((bodies[0]!.image as { id: string }).id);
    expect(bodies[2]).toMatchObject({ type: "document", document: { id: expect.any(String), filename: "pedido.pdf" } });
    expect(bodies[3]).toMatchObject({ type: "sticker", sticker: { id: expect.any(String) } });
  });

  it("the operator's types and sizes are checked before anything is uploaded", async () => {
    const before = await lastSeq();
    const webpImage = await send("image", {
      phone: CUSTOMER,
      file: { data: WEBP.toString("base64"), mimetype: "image/webp" },
    });
    expect((await expectError(webpImage, 422, "validation_error")).error.details?.file).toMatch(/JPG ou PNG/);
    const bigSticker = Buffer.concat([WEBP, Buffer.alloc(120 * 1024)]);
    const sticker = await send("sticker", {
      phone: CUSTOMER,
      file: { data: bigSticker.toString("base64"), mimetype: "image/webp" },
    });
    expect((await expectError(sticker, 422, "validation_error")).error.details?.file).toMatch(/100 KB/);
    const long = await send("text", { phone: CUSTOMER, text: "x".repeat(4097) });
    expect((await expectError(long, 422, "validation_error")).error.details?.text).toMatch(/4096/);
    // A sticker is a WEBP of 512x512.
    const small = await send("sticker", {
      phone: CUSTOMER,
      file: { data: webp(1).toString("base64"), mimetype: "image/webp" },
    });
    expect((await expectError(small, 422, "validation_error")).error.details?.file).toMatch(/512x512 \(recebida 1x1\)/);
    // Captions: the operator's 1,024 characters (the standard kind takes 4,096).
    const caption = "x".repeat(1025);
    for (const [route, file] of [
      ["image", { data: PNG.toString("base64"), mimetype: "image/png" }],
      ["video", { data: MP4.toString("base64"), mimetype: "video/mp4" }],
      ["file", { data: PDF.toString("base64"), mimetype: "application/pdf", filename: "a.pdf" }],
    ] as const) {
      const res = await send(route, {
        phone: CUSTOMER,
        file,
        caption,
        ...(route === "video" ? { convert: false } : {}),
      });
      expect((await expectError(res, 422, "validation_error")).error.details?.caption, route).toMatch(/1024/);
    }
    expect(await requests(before)).toEqual([]);
  });

  it("voice notes and videos as the operator receives them", async () => {
    const before = await lastSeq();
    await expectJson(
      await send("voice", {
        phone: CUSTOMER,
        file: { data: OGG.toString("base64"), mimetype: "audio/ogg; codecs=opus" },
        convert: false,
      }),
      201,
    );
    await expectJson(
      await send("video", {
        phone: CUSTOMER,
        file: { data: MP4.toString("base64"), mimetype: "video/mp4" },
        convert: false,
        caption: "Como chegar",
        asNote: true,
      }),
      201,
    );
    const uploads = (await requests(before)).filter((q) => q.path.endsWith("/media"));
    expect(uploads).toHaveLength(2);
    const [voice, video] = await sent(before);
    expect(voice).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: CUSTOMER,
      type: "audio",
      audio: { id: expect.any(String), voice: true },
    });
    // asNote does not exist on the operator: an ordinary video with its caption.
    expect(video).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: CUSTOMER,
      type: "video",
      video: { id: expect.any(String), caption: "Como chegar" },
    });
    const mediaOf = async (id: string) =>
      (await (
        await fetch(`${r.mockUrl}/v25.0/${id}`, { headers: { authorization: `Bearer ${n.accessToken}` } })
      ).json()) as {
        mime_type: string;
      };
    expect((await mediaOf((voice!.audio as { id: string }).id)).mime_type).toBe("audio/ogg");
    expect((await mediaOf((video!.video as { id: string }).id)).mime_type).toBe("video/mp4");
  });

  it("list, reply buttons, location and contact cards", async () => {
    const before = await lastSeq();
    const rows = [
      { title: "Pizza", rowId: "p1", description: "Grande" },
      { title: "Suco", rowId: "s1" },
    ];
    await expectJson(
      await send("list", {
        phone: CUSTOMER,
        message: {
          title: "Cardápio",
          description: "Escolha",
          button: "Ver",
          footer: "Rodapé",
          sections: [{ title: "Hoje", rows }],
        },
      }),
      201,
    );
    await expectJson(
      await send("buttons", {
        phone: CUSTOMER,
        text: "Confirma o pedido?",
        buttons: [
          { id: "yes", title: "Sim" },
          { id: "no", title: "Não" },
        ],
        header: { image: { data: PNG.toString("base64"), mimetype: "image/png" } },
        footer: "Loja",
      }),
      201,
    );
    await expectJson(
      await send("location", { phone: CUSTOMER, latitude: -23.5, longitude: -46.6, title: "Loja" }),
      201,
    );
    await expectJson(
      await send("contact-vcard", {
        phone: CUSTOMER,
        contacts: [{ fullName: "Ana Souza", phoneNumber: "+55 11 98888-7777", whatsappId: "5511988887777" }],
      }),
      201,
    );
    const [list, buttons, location, contacts] = await sent(before);
    expect(list).toMatchObject({
      type: "interactive",
      interactive: {
        type: "list",
        header: { type: "text", text: "Cardápio" },
        body: { text: "Escolha" },
        footer: { text: "Rodapé" },
        action: {
          button: "Ver",
          sections: [
            {
              title: "Hoje",
              rows: [
                { id: "p1", title: "Pizza", description: "Grande" },
                { id: "s1", title: "Suco" },
              ],
            },
          ],
        },
      },
    });
    expect(buttons).toMatchObject({
      type: "interactive",
      interactive: {
        type: "button",
        header: { type: "image", image: { id: expect.any(String) } },
        body: { text: "Confirma o pedido?" },
        footer: { text: "Loja" },
        action: {
          buttons: [
            { type: "reply", reply: { id: "yes", title: "Sim" } },
            { type: "reply", reply: { id: "no", title: "Não" } },
          ],
        },
      },
    });
    expect(location).toMatchObject({ type: "location", location: { latitude: -23.5, longitude: -46.6, name: "Loja" } });
    expect(contacts).toMatchObject({
      type: "contacts",
      contacts: [
        { name: { formatted_name: "Ana Souza" }, phones: [{ phone: "+55 11 98888-7777", wa_id: "5511988887777" }] },
      ],
    });
  });

  it("list limits: at most 10 rows in total", async () => {
    const rows = Array.from({ length: 6 }, (_, i) => ({ title: `L${i}`, rowId: `r${i}` }));
    const res = await send("list", {
      phone: CUSTOMER,
      message: {
        title: "T",
        button: "B",
        sections: [
          { title: "A", rows },
          { title: "B", rows },
        ],
      },
    });
    expect((await expectError(res, 422, "validation_error")).error.details?.["message.sections"]).toMatch(/10/);
  });

  it("a reaction to the customer's message, and a reply that quotes it", async () => {
    const { id: wamid } = await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Chegou!" } });
    const [event] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "Chegou!");
    const messageId = String(event!.payload.id);
    const before = await lastSeq();
    const reaction = await expectJson(
      await r.c.as(n.token)(`/v1/instances/${n.id}/messages/reaction`, {
        method: "PUT",
        json: { messageId, reaction: "👍" },
      }),
    );
    expect(reaction).toMatchObject({ chatId: CHAT, status: "ok" });
    await expectJson(await send("text", { phone: CUSTOMER, text: "Que bom!", reply_to: messageId }), 201);
    const [react, reply] = await sent(before);
    expect(react).toMatchObject({ type: "reaction", reaction: { message_id: wamid, emoji: "👍" } });
    expect(reply).toMatchObject({ context: { message_id: wamid }, text: { body: "Que bom!" } });
  });

  it("routes the kind lacks answer 501 before anything reaches the operator", async () => {
    const before = await lastSeq();
    await expectError(
      await send("poll", { phone: CUSTOMER, poll: { name: "q", options: ["a", "b"], multipleAnswers: false } }),
      501,
      "not_supported_by_provider",
    );
    const mention = await send("text", { phone: CUSTOMER, text: "oi", mentions: ["5511988887777"] });
    await expectError(mention, 501, "not_supported_by_provider");
    expect(await sent(before)).toEqual([]);
  });

  it("a group, a channel or a LID is refused before it is queued (the operator reaches customers only)", async () => {
    const before = await lastSeq();
    for (const chatId of ["120363012345678901@g.us", "120363098765432109@newsletter", "98765432101234@lid"]) {
      const queued = await send("text", { chatId, text: "oi" }, { "x-queue": "true" });
      const body = await expectError(queued, 422, "validation_error");
      expect(body.error.details?.chatId).toMatch(/gateway oficial/);
    }
    expect(await sent(before)).toEqual([]);
  });
});

describe("templates", () => {
  it("simple parameters become the operator's components; an unapproved template is refused with its code", async () => {
    const stranger = "5521911112222"; // never wrote: only templates reach them
    const create = await r.c.as(n.token)(`/v1/instances/${n.id}/templates`, {
      method: "POST",
      json: {
        name: "pedido_enviado",
        language: "pt_BR",
        category: "UTILITY",
        components: [
          { type: "HEADER", format: "IMAGE" },
          { type: "BODY", text: "Olá {{1}}, seu pedido {{2}} saiu." },
          { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Parar" }] },
        ],
      },
    });
    const created = await expectJson<{ id: string; status: string; category: string }>(create, 201);
    expect(created).toEqual({ category: "UTILITY", id: expect.any(String), status: "ok" });
    const template = {
      name: "pedido_enviado",
      language: "pt_BR",
      header: { image: { data: PNG.toString("base64"), mimetype: "image/png" } },
      body: ["Ana", "8601"],
      buttons: [{ type: "quick_reply", payload: "STOP" }],
    };
    // Approval arrives as `template.status` (the mock approves shortly after).
    await waitForEvent(r.c, n.id, "template.status", (p) => p.name === "pedido_enviado" && p.status === "APPROVED");
    const before = await lastSeq();
    await expectJson(await send("template", { phone: stranger, template }), 201);
    const [body] = await sent(before);
    expect(body).toMatchObject({
      to: stranger,
      type: "template",
      template: {
        name: "pedido_enviado",
        language: { code: "pt_BR" },
        components: [
          { type: "header", parameters: [{ type: "image", image: { id: expect.any(String) } }] },
          {
            type: "body",
            parameters: [
              { type: "text", text: "Ana" },
              { type: "text", text: "8601" },
            ],
          },
          { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: "STOP" }] },
        ],
      },
    });
    const wrongCount = await send("template", { phone: stranger, template: { ...template, body: ["Ana"] } });
    expect((await expectError(wrongCount, 422, "validation_error")).error.details?.operatorCode).toBe("132000");
    const unknown = await send("template", { phone: stranger, template: { name: "nao_existe", language: "pt_BR" } });
    const refused = await expectError(unknown, 422, "validation_error");
    expect(refused.error.details).toMatchObject({ operatorCode: "132001", "template.name": expect.any(String) });
  });
});

describe("templates: named parameters and the operator's own components", () => {
  it("body as an object gives named parameters; components go as given", async () => {
    const create = await r.c.as(n.token)(`/v1/instances/${n.id}/templates`, {
      method: "POST",
      json: {
        name: "pedido_nomeado",
        language: "pt_BR",
        category: "UTILITY",
        parameter_format: "NAMED",
        components: [{ type: "BODY", text: "Olá {{first_name}}, seu pedido {{order_id}} saiu." }],
      },
    });
    await expectJson(create, 201);
    await waitForEvent(r.c, n.id, "template.status", (p) => p.name === "pedido_nomeado" && p.status === "APPROVED");
    const stranger = "5521911113333";
    const before = await lastSeq();
    await expectJson(
      await send("template", {
        phone: stranger,
        template: { name: "pedido_nomeado", language: "pt_BR", body: { first_name: "Ana", order_id: "8601" } },
      }),
      201,
    );
    const components = [
      {
        type: "body",
        parameters: [
          { type: "text", parameter_name: "first_name", text: "Bia" },
          { type: "text", parameter_name: "order_id", text: "77" },
        ],
      },
    ];
    await expectJson(
      await send("template", { phone: stranger, template: { name: "pedido_nomeado", language: "pt_BR", components } }),
      201,
    );
    const [named, raw] = await sent(before);
    expect(named!.template).toEqual({
      name: "pedido_nomeado",
      language: { code: "pt_BR" },
      components: [
        {
          type: "body",
          parameters: [
            { type: "text", parameter_name: "first_name", text: "Ana" },
            { type: "text", parameter_name: "order_id", text: "8601" },
          ],
        },
      ],
    });
    expect(raw!.template).toEqual({ name: "pedido_nomeado", language: { code: "pt_BR" }, components });
    // Both at once is ambiguous: refused before the operator is called.
    const both = await send("template", {
      phone: stranger,
      template: { name: "pedido_nomeado", language: "pt_BR", body: ["x"], components },
    });
    expect((await expectError(both, 422, "validation_error")).error.details).toHaveProperty("template.components");
  });
});

describe("re-engagement (131047): the gateway saw the customer's message, the operator counts otherwise", () => {
  /** A customer message the gateway receives but the mock's own 24 h clock does not count. */
  async function windowOnlyAtTheGateway(from: string, text: string) {
    await r.ctl("POST", "/mock/webhooks", {
      phoneNumberId: n.phoneNumberId,
      field: "messages",
      value: {
        messaging_product: "whatsapp",
        metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
        contacts: [{ profile: { name: "Cliente" }, wa_id: from }],
        messages: [
          {
            from,
            id: `wamid.reeng${from}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: "text",
            text: { body: text },
          },
        ],
      },
    });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === text);
  }

  it("answered at once (sync): 422 network_rejected on chatId with the operator's code", async () => {
    const from = "5521944440001";
    await windowOnlyAtTheGateway(from, "janela só no gateway 1");
    await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, { windowMode: "sync" });
    try {
      const res = await send("text", { phone: from, text: "fora da janela do operador" });
      const body = await expectError(res, 422, "network_rejected");
      expect(body.error.details).toMatchObject({ operatorCode: "131047", chatId: expect.stringMatching(/24 h/) });
      expect(body.error.details?.operatorMessage).toMatch(/24 hours/);
    } finally {
      await r.ctl("PATCH", `/mock/numbers/${n.phoneNumberId}`, { windowMode: "async" });
    }
  });

  it("reported later (async): accepted, then message.ack failed with code 131047", async () => {
    const from = "5521944440002";
    await windowOnlyAtTheGateway(from, "janela só no gateway 2");
    const out = await expectJson(await send("text", { phone: from, text: "aceito e depois recusado" }), 201);
    const [failed] = await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "failed");
    expect(failed!.payload.error).toMatchObject({ code: 131047, message: expect.stringMatching(/24 h/) });
    expect(failed!.payload.pricing).toBeUndefined();
  });
});

describe("the operator's errors", () => {
  it("map to the spec's codes with the operator's code and message in details", async () => {
    const cases: [number, number, string][] = [
      [130429, 429, "rate_limited"],
      [131056, 429, "rate_limited"],
      [368, 422, "network_rejected"],
      [131026, 422, "network_rejected"],
      [131000, 502, "network_error"],
      [131016, 503, "network_unavailable"],
    ];
    for (const [code, status, spec] of cases) {
      await r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/errors`, {
        op: "messages",
        code,
        details: `detalhe ${code}`,
      });
      const res = await send("text", { phone: CUSTOMER, text: `erro ${code}` });
      if (status === 429 || status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = await expectError(res, status, spec);
      expect(body.error.details?.operatorCode).toBe(String(code));
      expect(body.error.details?.operatorMessage).toContain(`detalhe ${code}`);
    }
  });
});

describe("events of our sends", () => {
  it("message.any at once, then the operator's acks with pricing (one sent ack, no other)", async () => {
    const out = await expectJson(await send("text", { phone: CUSTOMER, text: "Acompanhe" }), 201);
    const any = await waitForEvent(r.c, n.id, "message.any", (p) => p.id === out.id);
    expect(any[0]!.payload).toMatchObject({ fromMe: true, source: "api", status: "sent", chatPicture: null });
    expect((any[0]!.payload.from as { id: string }).id).toBe("");
    const acks = await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "read");
    expect(acks).toHaveLength(1);
    const mine = (await r.c.events(n.id, "message.ack")).filter((e) => e.payload.id === out.id);
    expect(mine.map((e) => e.payload.status)).toEqual(["sent", "delivered", "read"]);
    expect(mine[0]!.payload.pricing).toMatchObject({
      category: "service",
      type: "free_customer_service",
      pricingModel: "PMP",
    });
  });

  it("an asynchronous failure arrives as message.ack failed with the operator's code", async () => {
    const lost = "5521900001111";
    await r.ctl("PUT", `/mock/numbers/${n.phoneNumberId}/users/${lost}`, { onWhatsApp: false });
    await r.inbound(n, lost, { type: "text", text: { body: "oi" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${lost}@c.us`);
    const out = await expectJson(await send("text", { phone: lost, text: "Olá" }), 201);
    const [failed] = await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "failed");
    expect(failed!.payload.error).toMatchObject({ code: 131026, message: expect.any(String) });
  });
});

describe("played", () => {
  it("the first play of a voice note is message.ack played", async () => {
    const listener = "5521955550001";
    await r.ctl("PUT", `/mock/numbers/${n.phoneNumberId}/users/${listener}`, { autoStatus: false });
    await r.inbound(n, listener, { type: "text", text: { body: "manda um áudio" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "manda um áudio");
    const out = await expectJson(
      await send("voice", {
        phone: listener,
        file: { data: OGG.toString("base64"), mimetype: "audio/ogg" },
        convert: false,
      }),
      201,
    );
    const wamid = String(out.id).split("_")[2]!.replace(/-/g, "+").replace(/~/g, "/");
    for (const status of ["sent", "delivered", "played"]) {
      await r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/outbox/${encodeURIComponent(wamid)}/status`, { status });
    }
    await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "played");
    const acks = (await r.c.events(n.id, "message.ack")).filter((e) => e.payload.id === out.id);
    expect(acks.map((e) => e.payload.status)).toEqual(["sent", "delivered", "played"]);
    const stored = await expectJson<{ ackName: string }>(
      await r.c.as(n.token)(`/v1/instances/${n.id}/chats/${listener}@c.us/messages/${String(out.id)}`),
    );
    expect(stored.ackName).toBe("PLAYED");
  });
});

describe("free trial on an official instance", () => {
  it("the daily allowance is counted as on standard instances: 429 trial_limit_reached, nothing reaches the operator", async () => {
    const t = await r.number();
    const doc = await expectJson<{ instance: { billingStatus: string } }>(
      await r.c.admin("GET", `/v1/admin/instances/${t.id}`),
    );
    expect(doc.instance.billingStatus).toBe("trialing");
    await r.inbound(t, CUSTOMER, { type: "text", text: { body: "oi, teste" } });
    await waitForEvent(r.c, t.id, "message", (p) => p.text === "oi, teste");
    // Today's allowance used up but one (the counter the limiter keeps).
    const day = new Date().toISOString().slice(0, 10);
    await r.c.platform.redis.set(r.c.platform.keys.trialCount(t.id, day), "299", "EX", 172_800);
    const api = r.c.as(t.token);
    const seq = async () =>
      (
        (await (await r.ctl("GET", `/mock/numbers/${t.phoneNumberId}/requests`)).json()) as {
          requests: { seq: number }[];
        }
      ).requests.length;
    expect(
      (await api(`/v1/instances/${t.id}/messages/text`, { method: "POST", json: { phone: CUSTOMER, text: "300" } }))
        .status,
    ).toBe(201);
    const sentSoFar = await seq();
    const over = await api(`/v1/instances/${t.id}/messages/text`, {
      method: "POST",
      json: { phone: CUSTOMER, text: "301" },
    });
    await expectError(over, 429, "trial_limit_reached");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const template = await api(`/v1/instances/${t.id}/messages/template`, {
      method: "POST",
      json: { phone: CUSTOMER, template: { name: "qualquer", language: "pt_BR" } },
    });
    await expectError(template, 429, "trial_limit_reached");
    expect(await seq()).toBe(sentSoFar);
  });
});

describe("queue and idempotency", () => {
  it("a queued send waits out the operator's rate limit and is sent once", async () => {
    await r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/errors`, { op: "messages", code: 130429 });
    const before = await lastSeq();
    const queued = await expectJson<{ id: string }>(
      // No typing indicator first (it is an operator call too, and would meet the injected error).
      await send("text", { phone: CUSTOMER, text: "Na fila", delayTyping: 0 }, { "x-queue": "true" }),
      202,
    );
    const [done] = await waitForEvent(r.c, n.id, "queue.sent", (p) => p.id === queued.id, 30_000);
    expect(done).toBeDefined();
    const texts = (await sent(before)).filter((b) => (b.text as { body?: string })?.body === "Na fila");
    expect(texts).toHaveLength(2); // the refused attempt and the one that went out
  });

  it("the same Idempotency-Key answers the first answer and sends once", async () => {
    const before = await lastSeq();
    const key = { "idempotency-key": `pedido-${Date.now()}` };
    const a = await expectJson(await send("text", { phone: CUSTOMER, text: "Uma vez" }, key), 201);
    const b = await expectJson(await send("text", { phone: CUSTOMER, text: "Uma vez" }, key), 201);
    expect(b).toEqual(a);
    expect((await sent(before)).length).toBe(1);
  });
});

describe("typing and read receipts", () => {
  it("typing answers the customer's last message; seen marks the given one or the last", async () => {
    const { id: wamid } = await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Tem troco?" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "Tem troco?");
    const before = await lastSeq();
    const api = r.c.as(n.token);
    await expectJson(await api(`/v1/instances/${n.id}/typing/start`, { method: "POST", json: { phone: CUSTOMER } }));
    await expectJson(await api(`/v1/instances/${n.id}/typing/stop`, { method: "POST", json: { phone: CUSTOMER } }));
    await expectJson(await api(`/v1/instances/${n.id}/messages/seen`, { method: "POST", json: { chatId: CHAT } }));
    const bodies = await sent(before);
    expect(bodies).toEqual([
      { messaging_product: "whatsapp", status: "read", message_id: wamid, typing_indicator: { type: "text" } },
      { messaging_product: "whatsapp", status: "read", message_id: wamid },
    ]);
    const res = await api(`/v1/instances/${n.id}/typing/start`, { method: "POST", json: { phone: "5521933334444" } });
    await expectError(res, 422, "network_rejected");
  });
});
