import type { OutboundContent } from "@gw/contracts";
import { proto, type WAMessage } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { CHAT, CHAT_JID, GROUP, map, media, picture, send } from "../test/outbound-rig.ts";
import { apiError } from "../test/testing.ts";
import { buildVCard, escapeVCardText } from "./vcard.ts";

/**
 * The content mapping (outbound.ts) through Baileys' own `generateWAMessage` (test/outbound-rig.ts):
 * texts, locations, contact cards, polls, events and our link previews. Media, the send's options
 * and the messages it names, and fetched link previews have tests of their own (outbound-*.test.ts).
 */

describe("outbound content through Baileys' generateWAMessage", () => {
  it("text: extendedTextMessage; messageId keeps our id; linkPreview false disables the automatic preview", async () => {
    const { out, msg, m } = await send(CHAT, { type: "text", text: "Olá" }, { id: "3EB0AAAABBBBCCCCDDDD01" });
    expect(out.jid).toBe(CHAT_JID);
    expect(msg.key).toMatchObject({ remoteJid: CHAT_JID, fromMe: true, id: "3EB0AAAABBBBCCCCDDDD01" });
    expect(m.extendedTextMessage?.text).toBe("Olá");
    const off = await map(CHAT, { type: "text", text: "veja https://example.com", linkPreview: false });
    expect(off.content).toEqual({ text: "veja https://example.com", linkPreview: null });
    // our full id format as `id`: the network id part is used
    const again = await map(
      CHAT,
      { type: "text", text: "x" },
      { id: "true_5511988887777@c.us_3EB0AAAABBBBCCCCDDDD01" },
    );
    expect(again.options.messageId).toBe("3EB0AAAABBBBCCCCDDDD01");
    expect((await apiError(map(CHAT, { type: "text", text: "x" }, { id: "a b" }))).details).toHaveProperty("id");
  });

  it("location: locationMessage with coordinates, name, address and url", async () => {
    const { m } = await send(CHAT, {
      type: "location",
      latitude: -23.5505,
      longitude: -46.6333,
      name: "Praça da Sé",
      address: "São Paulo, SP",
      url: "https://maps.example/se",
    });
    expect(m.locationMessage).toMatchObject({
      degreesLatitude: -23.5505,
      degreesLongitude: -46.6333,
      name: "Praça da Sé",
      address: "São Paulo, SP",
      url: "https://maps.example/se",
    });
  });

  it("contacts: one vCard as contactMessage, several as contactsArrayMessage; escaped; waid", async () => {
    const one = await send(CHAT, {
      type: "contacts",
      contacts: [{ fullName: "Silva; João, Jr.\nLinha", phoneNumber: "+55 11 98888-7777", organization: "ACME; Ltda" }],
    });
    const card = one.m.contactMessage!;
    expect(card.displayName).toBe("Silva; João, Jr.\nLinha");
    expect(card.vcard?.split("\n")).toEqual([
      "BEGIN:VCARD",
      "VERSION:3.0",
      "N:;Silva\\; João\\, Jr.\\nLinha;;;",
      "FN:Silva\\; João\\, Jr.\\nLinha",
      "ORG:ACME\\; Ltda;",
      "TEL;type=CELL;type=VOICE;waid=5511988887777:+55 11 98888-7777",
      "END:VCARD",
    ]);

    const many = await send(CHAT, {
      type: "contacts",
      contacts: [
        { fullName: "Ana", phoneNumber: "+55 11 97777-6666", whatsappId: "5511977776666@c.us" },
        { fullName: "Bia", phoneNumber: "0800 123" },
      ],
    });
    const arr = many.m.contactsArrayMessage!;
    expect(arr.displayName).toBe("2 contatos");
    expect(arr.contacts?.map((c) => c.displayName)).toEqual(["Ana", "Bia"]);
    expect(arr.contacts?.[0]?.vcard).toContain("TEL;type=CELL;type=VOICE;waid=5511977776666:+55 11 97777-6666");
    expect(arr.contacts?.[1]?.vcard).toContain("waid=0800123:0800 123");
    expect(escapeVCardText("a\\b")).toBe("a\\\\b");
    expect(buildVCard({ fullName: "X", phoneNumber: "1;2\r\n:3" })).toContain(
      "TEL;type=CELL;type=VOICE;waid=123:1 2 3",
    );
  });

  it("poll: single choice is pollCreationMessageV3 (1), multiple answers pollCreationMessage (0); secret set", async () => {
    const single = await send(GROUP, {
      type: "poll",
      name: "Almoço?",
      options: ["Sim", "Não"],
      multipleAnswers: false,
    });
    expect(single.m.pollCreationMessageV3).toMatchObject({
      name: "Almoço?",
      selectableOptionsCount: 1,
      options: [{ optionName: "Sim" }, { optionName: "Não" }],
    });
    expect(single.m.messageContextInfo?.messageSecret).toHaveLength(32);

    const multi = await send(CHAT, { type: "poll", name: "Sabores", options: ["A", "B", "C"], multipleAnswers: true });
    expect(multi.m.pollCreationMessageV3).toBeFalsy();
    expect(multi.m.pollCreationMessage).toMatchObject({ name: "Sabores", selectableOptionsCount: 0 });
    expect(multi.m.pollCreationMessage?.options).toHaveLength(3);

    // quoting works on polls; mentions and forwarded would be dropped by rc14, so they are refused
    const stored: WAMessage = {
      key: { remoteJid: CHAT_JID, fromMe: true, id: "3EB0CC" },
      message: { conversation: "q" },
    };
    const poll: OutboundContent = { type: "poll", name: "P", options: ["A", "B"], multipleAnswers: false };
    const quoted = await send(CHAT, poll, { quotedId: `true_${CHAT}_3EB0CC` }, { stored: [stored] });
    expect(quoted.m.pollCreationMessageV3?.contextInfo).toMatchObject({
      stanzaId: "3EB0CC",
      participant: "5511999999999@s.whatsapp.net",
    });
    expect((await apiError(map(CHAT, poll, { forwarded: true }))).details).toHaveProperty("forwarded");
    expect((await apiError(map(CHAT, poll, { mentions: [CHAT] }))).details).toHaveProperty("mentions");

    const dup = await apiError(map(CHAT, { type: "poll", name: "x", options: ["A", "A"], multipleAnswers: false }));
    expect(dup.details).toHaveProperty("poll.options");
    const options = Array.from({ length: 13 }, (_, i) => `op ${i}`);
    expect((await apiError(map(CHAT, { type: "poll", name: "x", options, multipleAnswers: true }))).code).toBe(
      "validation_error",
    );
  });

  it("poll_vote: 501 not_supported (the poll's secret lives in the stored poll message)", async () => {
    const err = await apiError(map(CHAT, { type: "poll_vote", pollId: "false_5511988887777@c.us_3A00", votes: ["A"] }));
    expect(err.code).toBe("not_supported");
    expect(err.status).toBe(501);
    expect(err.message).toMatch(/enquete/);
  });

  it("event: eventMessage with times in seconds, location and guests; secret set", async () => {
    const { m } = await send(GROUP, {
      type: "event",
      name: "Reunião",
      description: "pauta",
      startTime: 1_800_000_000,
      endTime: 1_800_003_600_000, // milliseconds are accepted too
      location: { name: "Sala 2" },
      extraGuestsAllowed: true,
    });
    expect(m.eventMessage).toMatchObject({
      name: "Reunião",
      description: "pauta",
      location: { name: "Sala 2" },
      extraGuestsAllowed: true,
      isCanceled: false,
    });
    expect(Number(m.eventMessage?.startTime)).toBe(1_800_000_000);
    expect(Number(m.eventMessage?.endTime)).toBe(1_800_003_600);
    expect(m.messageContextInfo?.messageSecret).toHaveLength(32);
    const backwards = await apiError(map(GROUP, { type: "event", name: "x", startTime: 20, endTime: 10 }));
    expect(backwards.details).toHaveProperty("event.endTime");
  });

  it("link_preview: text with our preview (title, description, matched text, JPEG thumbnail)", async () => {
    const png = await picture().png().toBuffer();
    const { m } = await send(CHAT, {
      type: "link_preview",
      text: "Confira https://loja.example/promo",
      preview: {
        title: "Promoção",
        description: "Só hoje",
        url: "https://loja.example/promo",
        image: media(png, "image/png"),
      },
    });
    const ext = m.extendedTextMessage!;
    expect(ext).toMatchObject({
      text: "Confira https://loja.example/promo",
      matchedText: "https://loja.example/promo",
      title: "Promoção",
      description: "Só hoje",
      previewType: proto.Message.ExtendedTextMessage.PreviewType.NONE,
    });
    const thumb = Buffer.from(ext.jpegThumbnail!);
    expect(thumb.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    const bad = await apiError(
      map(CHAT, {
        type: "link_preview",
        text: "x",
        preview: {
          title: "t",
          description: "d",
          url: "https://x.example",
          image: media(Buffer.from("no"), "image/png"),
        },
      }),
    );
    expect(bad.details).toHaveProperty("preview.image");
  });

  it("bad chat ids are 422 chatId", async () => {
    const err = await apiError(map("5511988887777", { type: "text", text: "x" }));
    expect(err.details).toHaveProperty("chatId");
  });
});
