import { randomBytes } from "node:crypto";
import type { InboundMessage } from "@gw/contracts";
import { proto } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { CONTACT_LID, CONTACT_PN, dmKey, MEMBER_PN, map, STRANGER_LID, T, wa } from "../test/inbound-messages.ts";

/**
 * The mapping's content (inbound-content.ts, through inbound.ts' `toInboundMessage`): each kind
 * of received content as the contract's fields. Messages are built as Baileys hands them over
 * (test/inbound-messages.ts); what is skipped and the stored form are in inbound.test.ts.
 */

describe("Baileys inbound mapping: content", () => {
  it("extended text: quote, mentions (numbers when known), forwarded, click-to-WhatsApp ad referral", async () => {
    const m = await map(
      wa({
        key: dmKey("T1"),
        message: {
          extendedTextMessage: {
            text: "vi o anúncio @222233334444555 @5521977776666",
            contextInfo: {
              stanzaId: "3A00000000000000QUOT",
              participant: CONTACT_PN,
              quotedMessage: { conversation: "antes" },
              mentionedJid: [CONTACT_LID, MEMBER_PN, STRANGER_LID],
              isForwarded: true,
              forwardingScore: 2,
              externalAdReply: {
                title: "Promoção",
                body: "Só hoje",
                mediaType: proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE,
                sourceType: "ad",
                sourceId: "120210000000000",
                sourceUrl: "https://fb.me/abc",
                ctwaClid: "ARAkLkA",
              },
            },
          },
        },
        pushName: "Bia",
      }),
    );
    expect(m).toMatchObject({
      type: "text",
      text: "vi o anúncio @222233334444555 @5521977776666",
      quotedId: "3A00000000000000QUOT",
      mentions: ["5511988887777@c.us", "5521977776666@c.us", STRANGER_LID],
      forwarded: true,
      referral: {
        sourceType: "ad",
        sourceId: "120210000000000",
        sourceUrl: "https://fb.me/abc",
        headline: "Promoção",
        body: "Só hoje",
        mediaType: "image",
        clickId: "ARAkLkA",
      },
      content: { type: "text", text: "vi o anúncio @222233334444555 @5521977776666" },
    });
    // a link preview's externalAdReply-less context is no referral
    const plain = await map(
      wa({ key: dmKey("T2"), message: { extendedTextMessage: { text: "https://x.y", matchedText: "https://x.y" } } }),
    );
    expect([plain.referral, plain.quotedId, plain.mentions, plain.forwarded]).toEqual([
      null,
      null,
      undefined,
      undefined,
    ]);
  });

  it("media: image, video (gif, round note), audio, voice, document (with caption wrapper), sticker; never downloaded", async () => {
    const cases: [proto.IMessage, Partial<InboundMessage>][] = [
      [
        { imageMessage: { mimetype: "image/jpeg", caption: "foto", contextInfo: { stanzaId: "Q1" } } },
        { type: "image", text: "foto", media: { mimetype: "image/jpeg", filename: null }, quotedId: "Q1" },
      ],
      [
        { videoMessage: { mimetype: "video/mp4", caption: "gif", gifPlayback: true } },
        { type: "video", text: "gif", media: { mimetype: "video/mp4", filename: null } },
      ],
      [
        { ptvMessage: { mimetype: "video/mp4" } },
        { type: "video", text: null, media: { mimetype: "video/mp4", filename: null } },
      ],
      [
        { audioMessage: { mimetype: "audio/mp4", seconds: 3 } },
        { type: "audio", media: { mimetype: "audio/mp4", filename: null } },
      ],
      [
        { audioMessage: { mimetype: "audio/ogg; codecs=opus", ptt: true } },
        { type: "voice", text: null, media: { mimetype: "audio/ogg; codecs=opus", filename: null } },
      ],
      [
        { documentMessage: { mimetype: "application/pdf", fileName: "nota.pdf" } },
        { type: "document", text: null, media: { mimetype: "application/pdf", filename: "nota.pdf" } },
      ],
      [
        {
          documentWithCaptionMessage: {
            message: { documentMessage: { mimetype: "application/pdf", fileName: "nota.pdf", caption: "segue" } },
          },
        },
        { type: "document", text: "segue", media: { mimetype: "application/pdf", filename: "nota.pdf" } },
      ],
      [
        { stickerMessage: { mimetype: "image/webp", isAnimated: true } },
        { type: "sticker", media: { mimetype: "image/webp", filename: null } },
      ],
      [
        { lottieStickerMessage: { message: { stickerMessage: { mimetype: "application/was" } } } },
        { type: "sticker", media: { mimetype: "application/was", filename: null } },
      ],
      // wrappers: view once, disappearing
      [
        {
          viewOnceMessageV2: {
            message: { imageMessage: { mimetype: "image/jpeg", caption: "uma vez", viewOnce: true } },
          },
        },
        { type: "image", text: "uma vez" },
      ],
      [
        {
          ephemeralMessage: { message: { extendedTextMessage: { text: "some", contextInfo: { expiration: 86400 } } } },
        },
        { type: "text", text: "some" },
      ],
    ];
    for (const [message, expected] of cases) {
      const m = await map(wa({ key: dmKey("M1"), message }));
      expect(m, JSON.stringify(message)).toMatchObject({ ...expected, mediaData: null });
      if (m.media) expect(m.content).toBeUndefined(); // media content needs the bytes
    }
  });

  it("location and live location; contact cards (one, several)", async () => {
    const loc = await map(
      wa({
        key: dmKey("L1"),
        message: {
          locationMessage: {
            degreesLatitude: -23.55,
            degreesLongitude: -46.63,
            name: "Loja",
            address: "Av. Paulista, 1000",
          },
        },
      }),
    );
    expect(loc).toMatchObject({
      type: "location",
      text: "Loja",
      content: { type: "location", latitude: -23.55, longitude: -46.63, name: "Loja", address: "Av. Paulista, 1000" },
    });
    const live = await map(
      wa({
        key: dmKey("L2"),
        message: { liveLocationMessage: { degreesLatitude: 1.5, degreesLongitude: 2.5, caption: "a caminho" } },
      }),
    );
    expect(live).toMatchObject({
      type: "location",
      text: "a caminho",
      content: { type: "location", latitude: 1.5, longitude: 2.5 },
    });

    const vcard = (name: string, digits: string) =>
      `BEGIN:VCARD\nVERSION:3.0\nN:;${name};;;\nFN:${name}\nORG:Loja\\, Centro;\nTEL;type=CELL;type=VOICE;waid=${digits}:+${digits}\nEND:VCARD`;
    const one = await map(
      wa({
        key: dmKey("C1"),
        message: { contactMessage: { displayName: "Dani", vcard: vcard("Dani", "5511977775555") } },
      }),
    );
    expect(one).toMatchObject({
      type: "contact",
      text: "Dani",
      content: {
        type: "contacts",
        contacts: [
          {
            fullName: "Dani",
            phoneNumber: "+5511977775555",
            organization: "Loja, Centro",
            whatsappId: "5511977775555@c.us",
          },
        ],
      },
    });
    const many = await map(
      wa({
        key: dmKey("C2"),
        message: {
          contactsArrayMessage: {
            displayName: "2 contatos",
            contacts: [
              { displayName: "Dani", vcard: vcard("Dani", "5511977775555") },
              { displayName: "Edu", vcard: vcard("Edu", "5511966664444") },
            ],
          },
        },
      }),
    );
    expect(many.type).toBe("contact");
    expect(many.text).toBe("2 contatos");
    expect(many.content).toMatchObject({ type: "contacts", contacts: [{ fullName: "Dani" }, { fullName: "Edu" }] });
  });

  it("polls: creation V1, V2, V3 (single choice) as type poll with the question as text", async () => {
    const options = [{ optionName: "Sim" }, { optionName: "Não" }];
    for (const [field, count, multiple] of [
      ["pollCreationMessage", 0, true],
      ["pollCreationMessageV2", 2, true],
      ["pollCreationMessageV3", 1, false],
    ] as const) {
      const m = await map(
        wa({
          key: dmKey(`P${field}`),
          message: {
            messageContextInfo: { messageSecret: randomBytes(32) },
            [field]: { name: "Vamos?", options, selectableOptionsCount: count },
          },
        }),
      );
      expect(m, field).toMatchObject({
        type: "poll",
        text: "Vamos?",
        content: { type: "poll", name: "Vamos?", options: ["Sim", "Não"], multipleAnswers: multiple },
      });
    }
  });

  it("reactions (empty text = removed), revocations, edits (protocol message, edited wrapper)", async () => {
    const target = { remoteJid: CONTACT_PN, fromMe: true, id: "3EB0TARGET00000000000A" };
    const react = await map(
      wa({ key: dmKey("R1"), message: { reactionMessage: { key: target, text: "👍", senderTimestampMs: T * 1000 } } }),
    );
    expect(react).toMatchObject({
      type: "reaction",
      targetId: target.id,
      emoji: "👍",
      text: null,
      from: { id: "5511988887777@c.us" },
    });
    const removed = await map(wa({ key: dmKey("R2"), message: { reactionMessage: { key: target, text: "" } } }));
    expect(removed).toMatchObject({ type: "reaction", targetId: target.id, emoji: "" });

    const revoke = await map(
      wa({
        key: dmKey("V1"),
        message: {
          protocolMessage: {
            type: proto.Message.ProtocolMessage.Type.REVOKE,
            key: { ...target, fromMe: false, id: "3A00ORIGINAL" },
          },
        },
      }),
    );
    expect(revoke).toMatchObject({ type: "revoke", targetId: "3A00ORIGINAL", text: null });

    const edit = await map(
      wa({
        key: dmKey("E1"),
        messageTimestamp: T + 60,
        message: {
          editedMessage: {
            message: {
              protocolMessage: {
                type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
                key: { remoteJid: CONTACT_PN, fromMe: false, id: "3A00ORIGINAL" },
                editedMessage: { extendedTextMessage: { text: "corrigido" } },
                timestampMs: (T + 30) * 1000,
              },
            },
          },
        },
      }),
    );
    expect(edit).toMatchObject({
      id: "E1",
      type: "edit",
      targetId: "3A00ORIGINAL",
      text: "corrigido",
      timestamp: T + 30,
    });
    const captionEdit = await map(
      wa({
        key: dmKey("E2"),
        message: {
          protocolMessage: {
            type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
            key: { id: "3A00IMAGE" },
            editedMessage: { imageMessage: { caption: "nova legenda" } },
          },
        },
      }),
    );
    expect(captionEdit).toMatchObject({ type: "edit", targetId: "3A00IMAGE", text: "nova legenda", timestamp: T });
  });

  it("button and list replies", async () => {
    const buttons = await map(
      wa({
        key: dmKey("B1"),
        message: {
          buttonsResponseMessage: {
            selectedButtonId: "btn-1",
            selectedDisplayText: "Quero",
            type: proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT,
            contextInfo: { stanzaId: "3EB0BUTTONS" },
          },
        },
      }),
    );
    expect(buttons).toMatchObject({ type: "button_reply", text: "Quero", quotedId: "3EB0BUTTONS" });
    const template = await map(
      wa({
        key: dmKey("B2"),
        message: { templateButtonReplyMessage: { selectedId: "t-1", selectedDisplayText: "Sim", selectedIndex: 0 } },
      }),
    );
    expect(template).toMatchObject({ type: "button_reply", text: "Sim" });
    const list = await map(
      wa({
        key: dmKey("B3"),
        message: {
          listResponseMessage: {
            title: "Plano anual",
            listType: proto.Message.ListResponseMessage.ListType.SINGLE_SELECT,
            singleSelectReply: { selectedRowId: "row-2" },
            contextInfo: { stanzaId: "3EB0LIST" },
          },
        },
      }),
    );
    expect(list).toMatchObject({ type: "list_reply", text: "Plano anual", quotedId: "3EB0LIST" });
  });
});
