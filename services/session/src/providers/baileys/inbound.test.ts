import { createHash, randomBytes } from "node:crypto";
import type { InboundMessage } from "@gw/contracts";
import {
  aesEncryptGCM,
  generateWAMessageContent,
  generateWAMessageFromContent,
  hmacSign,
  proto,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import { type InboundLookups, parseStoredMessage, storedForm, toInboundMessage } from "./inbound.ts";
import { openPaired, PAIRED_ME, type Paired, silentSuite } from "./paired-rig.ts";

/**
 * The mapping is tested on messages built with Baileys' own proto classes and sent through the
 * wire format (encode → decode), with the v7 key fields (`remoteJidAlt`, `participantAlt`,
 * `addressingMode`) set the way `decodeMessageNode` sets them. The wiring is tested on a real
 * Baileys socket (towards a silent local endpoint) whose event emitter plays the network.
 */

const ME = PAIRED_ME;
const ME_PN = "5511999999999@s.whatsapp.net";
const ME_LID = "123456789@lid";
const CONTACT_PN = "5511988887777@s.whatsapp.net";
const CONTACT_LID = "222233334444555@lid";
const MEMBER_PN = "5521977776666@s.whatsapp.net";
const MEMBER_LID = "333344445555666@lid";
const STRANGER_LID = "999988887777666@lid";
const GROUP = "120363000000000001@g.us";
const T = 1_790_000_000;

/** A received message as Baileys hands it over: proto content decoded from the wire, v7 key fields added. */
function wa(input: {
  key: WAMessageKey;
  message?: proto.IMessage | null;
  pushName?: string;
  messageTimestamp?: number;
  status?: proto.WebMessageInfo.Status;
  messageStubType?: proto.WebMessageInfo.StubType;
}): WAMessage {
  const { key, ...rest } = input;
  const info = proto.WebMessageInfo.fromObject({
    key: { remoteJid: key.remoteJid, fromMe: key.fromMe ?? false, id: key.id, participant: key.participant },
    messageTimestamp: T,
    ...rest,
  });
  const decoded = proto.WebMessageInfo.decode(proto.WebMessageInfo.encode(info).finish()) as WAMessage;
  decoded.key = { ...key, fromMe: key.fromMe ?? false };
  return decoded;
}

/** One-to-one from the contact, number-addressed (`remoteJidAlt` = its LID). */
const dmKey = (id: string, over: Partial<WAMessageKey> = {}): WAMessageKey => ({
  remoteJid: CONTACT_PN,
  remoteJidAlt: CONTACT_LID,
  addressingMode: "pn",
  fromMe: false,
  id,
  ...over,
});
/** A group message from a member, LID-addressed (`participantAlt` = the member's number). */
const groupKey = (id: string, over: Partial<WAMessageKey> = {}): WAMessageKey => ({
  remoteJid: GROUP,
  participant: MEMBER_LID,
  participantAlt: MEMBER_PN,
  addressingMode: "lid",
  fromMe: false,
  id,
  ...over,
});

function lookups(extra: Partial<InboundLookups> = {}, stored = new Map<string, WAMessage>()): InboundLookups {
  // Baileys' getPNForLID answers with the device suffix.
  const lidStore = new Map([[CONTACT_LID, "5511988887777:0@s.whatsapp.net"]]);
  return {
    me: ME,
    pnForLid: async (lid) => lidStore.get(lid) ?? null,
    loadMessage: async (id) => stored.get(id),
    ...extra,
  };
}

const map = async (msg: WAMessage, l: InboundLookups = lookups()) => {
  const out = await toInboundMessage(msg, l);
  expect(out).not.toBeNull();
  return out!;
};

const CONTACT_PARTY = { id: "5511988887777@c.us", phone: "5511988887777", lid: CONTACT_LID, pushName: "Bia" };
const MEMBER_PARTY = { id: "5521977776666@c.us", phone: "5521977776666", lid: MEMBER_LID, pushName: "Caio" };
const ME_PARTY = { id: "5511999999999@c.us", phone: "5511999999999", lid: ME_LID };

describe("Baileys inbound mapping: addressing", () => {
  it("one-to-one, number-addressed: the number as chat and sender, the LID alongside; raw is the WAMessage", async () => {
    const msg = wa({ key: dmKey("3A0000000000000000A1"), message: { conversation: "oi" }, pushName: "Bia" });
    expect(await map(msg)).toEqual({
      id: "3A0000000000000000A1",
      chatId: "5511988887777@c.us",
      chatLid: CONTACT_LID,
      chatName: "Bia",
      isGroup: false,
      fromMe: false,
      from: CONTACT_PARTY,
      timestamp: T,
      type: "text",
      text: "oi",
      media: null,
      quotedId: null,
      origin: null,
      referral: null,
      raw: msg,
      mediaData: null,
      content: { type: "text", text: "oi" },
    } satisfies InboundMessage);
  });

  it("one-to-one, LID-addressed: remoteJidAlt gives the number; else the LID store (device suffix stripped); else the LID", async () => {
    const withAlt = wa({
      key: dmKey("A1", {
        remoteJid: `${CONTACT_LID.split("@")[0]}:3@lid`,
        remoteJidAlt: CONTACT_PN,
        addressingMode: "lid",
      }),
      message: { conversation: "oi" },
      pushName: "Bia",
    });
    const a = await map(withAlt);
    expect([a.chatId, a.chatLid, a.from]).toEqual(["5511988887777@c.us", CONTACT_LID, CONTACT_PARTY]);

    const fromStore = wa({
      key: dmKey("A2", { remoteJid: CONTACT_LID, remoteJidAlt: undefined }),
      message: { conversation: "oi" },
      pushName: "Bia",
    });
    const b = await map(fromStore);
    expect([b.chatId, b.chatLid, b.from]).toEqual(["5511988887777@c.us", CONTACT_LID, CONTACT_PARTY]);

    const unknown = wa({
      key: dmKey("A3", { remoteJid: STRANGER_LID, remoteJidAlt: undefined }),
      message: { conversation: "oi" },
    });
    const c = await map(unknown);
    expect([c.chatId, c.chatLid, c.from]).toEqual([
      STRANGER_LID,
      STRANGER_LID,
      { id: STRANGER_LID, phone: null, lid: STRANGER_LID, pushName: null },
    ]);
    // a store that fails counts as "unknown"
    const failing = await map(
      unknown,
      lookups({
        pnForLid: async () => {
          throw new Error("redis down");
        },
      }),
    );
    expect(failing.chatId).toBe(STRANGER_LID);
  });

  it("number-addressed one-to-one without a LID: chatLid null", async () => {
    const m = await map(wa({ key: dmKey("A4", { remoteJidAlt: undefined }), message: { conversation: "oi" } }));
    expect([m.chatId, m.chatLid, m.from.lid, m.from.phone]).toEqual([
      "5511988887777@c.us",
      null,
      null,
      "5511988887777",
    ]);
  });

  it("groups: the group is the chat, the participant the sender (number from participantAlt or the LID store)", async () => {
    const m = await map(wa({ key: groupKey("G1"), message: { conversation: "bom dia" }, pushName: "Caio" }));
    expect(m).toMatchObject({
      chatId: GROUP,
      chatLid: null,
      chatName: null,
      isGroup: true,
      fromMe: false,
      from: MEMBER_PARTY,
      type: "text",
      text: "bom dia",
    });
    // number-addressed group message
    const pn = await map(
      wa({
        key: groupKey("G2", { participant: MEMBER_PN, participantAlt: MEMBER_LID, addressingMode: "pn" }),
        message: { conversation: "x" },
        pushName: "Caio",
      }),
    );
    expect(pn.from).toEqual(MEMBER_PARTY);
    const viaStore = await map(
      wa({
        key: groupKey("G3", { participant: CONTACT_LID, participantAlt: undefined }),
        message: { conversation: "x" },
      }),
    );
    expect(viaStore.from).toEqual({ ...CONTACT_PARTY, pushName: null });
    const unknown = await map(
      wa({
        key: groupKey("G4", { participant: STRANGER_LID, participantAlt: undefined }),
        message: { conversation: "x" },
      }),
    );
    expect(unknown.from).toEqual({ id: STRANGER_LID, phone: null, lid: STRANGER_LID, pushName: null });
    // the group's name comes from the lookup
    const named = await map(
      wa({ key: groupKey("G5"), message: { conversation: "x" } }),
      lookups({ chatName: async (c) => (c.isGroup && c.jid === GROUP ? "Equipe" : null) }),
    );
    expect(named.chatName).toBe("Equipe");
  });

  it("our copies from the phone: fromMe, from = the account, origin phone (device for web/desktop ids)", async () => {
    // LID-addressed copy: Baileys puts *our* number in remoteJidAlt (the sender's alternative).
    const copy = wa({
      key: dmKey("0123456789ABCDEF0123456789ABCDEF", {
        remoteJid: CONTACT_LID,
        remoteJidAlt: ME_PN,
        addressingMode: "lid",
        fromMe: true,
      }),
      message: { conversation: "enviado do celular" },
      pushName: "Ana",
      status: proto.WebMessageInfo.Status.SERVER_ACK,
    });
    const m = await map(copy);
    expect(m).toMatchObject({
      chatId: "5511988887777@c.us", // from the LID store, not our own alternative id
      chatLid: CONTACT_LID,
      chatName: null,
      fromMe: true,
      from: { ...ME_PARTY, pushName: "Ana" },
      origin: "phone",
      text: "enviado do celular",
    });
    const web = await map(
      wa({ key: dmKey("3EB0ABE67A4F05AADACA70", { fromMe: true }), message: { conversation: "x" } }),
    );
    expect(web.origin).toBe("device");
    expect(web.from).toEqual({ ...ME_PARTY, pushName: "Ana" }); // creds name when the copy has none
    const inGroup = await map(
      wa({
        key: groupKey("3A0000000000000000B1", { participant: ME_LID, participantAlt: ME_PN, fromMe: true }),
        message: { conversation: "x" },
      }),
    );
    expect(inGroup).toMatchObject({ chatId: GROUP, isGroup: true, fromMe: true, from: ME_PARTY, origin: "phone" });
  });

  it("channel posts: the channel is chat and sender", async () => {
    const m = await map(
      wa({
        key: { remoteJid: "120363111111111111@newsletter", fromMe: false, id: "101" },
        message: { conversation: "novidade" },
      }),
    );
    expect(m).toMatchObject({
      chatId: "120363111111111111@newsletter",
      chatLid: null,
      isGroup: false,
      from: { id: "120363111111111111@newsletter", phone: null, lid: null, pushName: null },
      text: "novidade",
    });
  });

  it("contact names: the lookup's name for one-to-one chats, else the sender's push name", async () => {
    const l = lookups({ chatName: async (c) => (c.pn === CONTACT_PN ? "Bia (agenda)" : null) });
    expect((await map(wa({ key: dmKey("N1"), message: { conversation: "x" }, pushName: "Bia" }), l)).chatName).toBe(
      "Bia (agenda)",
    );
    const copy = wa({ key: dmKey("N2", { fromMe: true }), message: { conversation: "x" } });
    expect((await map(copy, l)).chatName).toBe("Bia (agenda)");
    expect((await map(copy)).chatName).toBeNull();
  });
});

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

  it("other content is 'unknown'; status posts, own broadcast copies, stubs and bookkeeping-only messages are skipped", async () => {
    const event = await map(
      wa({ key: dmKey("U1"), message: { eventMessage: { name: "Reunião", startTime: T + 3600 } } }),
    );
    expect(event).toMatchObject({ type: "unknown", text: "Reunião" });

    const skipped: WAMessage[] = [
      wa({
        key: { remoteJid: "status@broadcast", participant: CONTACT_PN, fromMe: false, id: "S1" },
        message: { conversation: "status" },
      }),
      wa({ key: { remoteJid: "1700000000@broadcast", fromMe: true, id: "S2" }, message: { conversation: "lista" } }),
      // decryption failure stub: no content (Baileys retries; the content may follow under the same key)
      wa({ key: dmKey("S3"), messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT }),
      // group notice stub
      wa({ key: groupKey("S4"), messageStubType: proto.WebMessageInfo.StubType.GROUP_PARTICIPANT_ADD }),
      wa({
        key: dmKey("S5"),
        message: {
          senderKeyDistributionMessage: { groupId: GROUP, axolotlSenderKeyDistributionMessage: Buffer.from("k") },
        },
      }),
      wa({ key: dmKey("S6"), message: { messageContextInfo: { messageSecret: randomBytes(32) } } }),
      wa({
        key: dmKey("S7", { fromMe: true }),
        message: { protocolMessage: { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION } },
      }),
      wa({
        key: dmKey("S8"),
        message: {
          protocolMessage: { type: proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING, ephemeralExpiration: 86400 },
        },
      }),
      wa({ key: groupKey("S10"), message: { pinInChatMessage: { key: { id: "X" }, type: 1 } } }),
    ];
    for (const msg of skipped) expect(await toInboundMessage(msg, lookups()), msg.key.id ?? "").toBeNull();

    // someone else's broadcast-list message reaches us as their one-to-one chat
    const list = await map(
      wa({
        key: {
          remoteJid: "1700000000@broadcast",
          participant: CONTACT_PN,
          remoteJidAlt: CONTACT_LID,
          fromMe: false,
          id: "S11",
        },
        message: { conversation: "promo" },
      }),
    );
    expect([list.chatId, list.chatLid, list.isGroup]).toEqual(["5511988887777@c.us", CONTACT_LID, false]);
  });

  it("stored form: BufferJSON text back to proto content (bytes as Buffers, enums as numbers), key fields kept", () => {
    const msg = wa({
      key: dmKey("K1", { remoteJid: CONTACT_LID, remoteJidAlt: CONTACT_PN, addressingMode: "lid" }),
      message: {
        messageContextInfo: { messageSecret: Buffer.alloc(32, 7) },
        protocolMessage: { type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, key: { id: "X" } },
      },
    });
    const back = parseStoredMessage(storedForm(msg));
    expect(back.key).toEqual(msg.key);
    expect(Buffer.isBuffer(back.message?.messageContextInfo?.messageSecret)).toBe(true);
    expect(back.message?.messageContextInfo?.messageSecret).toEqual(Buffer.alloc(32, 7));
    expect(back.message?.protocolMessage?.type).toBe(proto.Message.ProtocolMessage.Type.MESSAGE_EDIT);
  });
});

// ── poll votes ───────────────────────────────────────────────────────────────

/** What the voter's client does (the inverse of Baileys' `decryptPollVote`), with Baileys' own primitives. */
function encryptVote(
  names: string[],
  ctx: { pollMsgId: string; pollCreatorJid: string; voterJid: string; secret: Uint8Array },
): proto.Message.IPollEncValue {
  const sign = Buffer.concat([
    Buffer.from(ctx.pollMsgId),
    Buffer.from(ctx.pollCreatorJid),
    Buffer.from(ctx.voterJid),
    Buffer.from("Poll Vote"),
    new Uint8Array([1]),
  ]);
  const key0 = hmacSign(ctx.secret, new Uint8Array(32), "sha256");
  const encKey = hmacSign(sign, key0, "sha256");
  const iv = randomBytes(12);
  const plain = proto.Message.PollVoteMessage.encode({
    selectedOptions: names.map((n) => createHash("sha256").update(n).digest()),
  }).finish();
  return {
    encPayload: aesEncryptGCM(plain, encKey, iv, Buffer.from(`${ctx.pollMsgId}\u0000${ctx.voterJid}`)),
    encIv: iv,
  };
}

const POLL_OPTIONS = ["Pizza", "Sushi", "Tacos"];

describe("Baileys inbound mapping: poll votes (decrypted here; rc14 does not)", () => {
  const secret = randomBytes(32);
  // Our own poll, as send() keeps it (generateWAMessageFromContent + storedForm).
  async function ourPoll(jid: string): Promise<WAMessage> {
    const content = await generateWAMessageContent(
      { poll: { name: "Almoço?", values: POLL_OPTIONS, selectableCount: 0, messageSecret: secret } },
      {} as never,
    );
    return parseStoredMessage(storedForm(generateWAMessageFromContent(jid, content, { userJid: ME.id })));
  }

  it("a member's vote in our group poll (LID-addressed): option names; PN and LID ids are both tried", async () => {
    const poll = await ourPoll(GROUP);
    const stored = new Map([[poll.key.id!, poll]]);
    // The member's client used the LID forms of both ids.
    const vote = encryptVote(["Sushi", "Tacos"], {
      pollMsgId: poll.key.id!,
      pollCreatorJid: ME_LID,
      voterJid: MEMBER_LID,
      secret,
    });
    const msg = wa({
      key: groupKey("PV1"),
      message: {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: GROUP, fromMe: true, id: poll.key.id },
          vote,
          senderTimestampMs: T * 1000,
        },
      },
      pushName: "Caio",
    });
    expect(await map(msg, lookups({}, stored))).toMatchObject({
      type: "poll_vote",
      targetId: poll.key.id,
      selectedOptions: ["Sushi", "Tacos"],
      from: MEMBER_PARTY,
      chatId: GROUP,
    });
  });

  it("a contact's vote in its own poll, number forms; a cleared vote is an empty selection", async () => {
    const pollKey = dmKey("3A00POLLFROMCONTACT0");
    const poll = wa({
      key: pollKey,
      message: {
        messageContextInfo: { messageSecret: secret },
        pollCreationMessageV3: {
          name: "Horário?",
          options: [{ optionName: "9h" }, { optionName: "10h" }],
          selectableOptionsCount: 1,
        },
      },
    });
    const stored = new Map([[pollKey.id!, parseStoredMessage(storedForm(poll))]]);
    const voteOf = (names: string[], id: string) =>
      wa({
        key: dmKey(id),
        message: {
          pollUpdateMessage: {
            pollCreationMessageKey: { remoteJid: CONTACT_PN, fromMe: false, id: pollKey.id },
            vote: encryptVote(names, {
              pollMsgId: pollKey.id!,
              pollCreatorJid: CONTACT_PN,
              voterJid: CONTACT_PN,
              secret,
            }),
          },
        },
      });
    expect((await map(voteOf(["10h"], "PV2"), lookups({}, stored))).selectedOptions).toEqual(["10h"]);
    expect((await map(voteOf([], "PV3"), lookups({}, stored))).selectedOptions).toEqual([]);
  });

  it("our own vote from the phone decrypts with our ids", async () => {
    const pollKey = groupKey("3A00POLLFROMMEMBER00");
    const poll = wa({
      key: pollKey,
      message: {
        messageContextInfo: { messageSecret: secret },
        pollCreationMessage: { name: "Dia?", options: [{ optionName: "Seg" }, { optionName: "Ter" }] },
      },
    });
    const stored = new Map([[pollKey.id!, parseStoredMessage(storedForm(poll))]]);
    const msg = wa({
      key: groupKey("PV4", { participant: ME_LID, participantAlt: ME_PN, fromMe: true }),
      message: {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: GROUP, fromMe: false, id: pollKey.id, participant: MEMBER_LID },
          vote: encryptVote(["Ter"], { pollMsgId: pollKey.id!, pollCreatorJid: MEMBER_PN, voterJid: ME_PN, secret }),
        },
      },
    });
    expect(await map(msg, lookups({}, stored))).toMatchObject({
      fromMe: true,
      selectedOptions: ["Ter"],
      origin: "phone",
    });
  });

  it("poll not stored, or a vote that does not verify: still reported, with no options", async () => {
    const reasons: string[] = [];
    const l = lookups({ onUndecrypted: (r) => reasons.push(r) });
    const vote = encryptVote(["Pizza"], { pollMsgId: "3EB0NOPE", pollCreatorJid: ME_PN, voterJid: CONTACT_PN, secret });
    const msg = wa({
      key: dmKey("PV5"),
      message: {
        pollUpdateMessage: { pollCreationMessageKey: { remoteJid: CONTACT_PN, fromMe: true, id: "3EB0NOPE" }, vote },
      },
    });
    expect(await map(msg, l)).toMatchObject({ type: "poll_vote", targetId: "3EB0NOPE", selectedOptions: [] });

    const poll = await ourPoll(CONTACT_PN);
    const forged = encryptVote(["Pizza"], {
      pollMsgId: poll.key.id!,
      pollCreatorJid: ME_PN,
      voterJid: CONTACT_PN,
      secret: randomBytes(32),
    });
    const m2 = wa({
      key: dmKey("PV6"),
      message: {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: CONTACT_PN, fromMe: true, id: poll.key.id },
          vote: forged,
        },
      },
    });
    expect(
      (await map(m2, lookups({ onUndecrypted: (r) => reasons.push(r) }, new Map([[poll.key.id!, poll]]))))
        .selectedOptions,
    ).toEqual([]);
    expect(reasons).toEqual(["original not stored", "no creator/responder id pair decrypts it"]);
  });
});

/** What the responder's client does (the inverse of Baileys' `decryptEventResponse`). */
function encryptEventResponse(
  response: proto.Message.EventResponseMessage.EventResponseType,
  ctx: { eventMsgId: string; eventCreatorJid: string; responderJid: string; secret: Uint8Array },
): { encPayload: Uint8Array; encIv: Uint8Array } {
  const sign = Buffer.concat([
    Buffer.from(ctx.eventMsgId),
    Buffer.from(ctx.eventCreatorJid),
    Buffer.from(ctx.responderJid),
    Buffer.from("Event Response"),
    new Uint8Array([1]),
  ]);
  const key0 = hmacSign(ctx.secret, new Uint8Array(32), "sha256");
  const encKey = hmacSign(sign, key0, "sha256");
  const iv = randomBytes(12);
  const plain = proto.Message.EventResponseMessage.encode({ response, timestampMs: T * 1000 }).finish();
  return {
    encPayload: aesEncryptGCM(plain, encKey, iv, Buffer.from(`${ctx.eventMsgId}\u0000${ctx.responderJid}`)),
    encIv: iv,
  };
}

describe("Baileys inbound mapping: calendar event responses", () => {
  const secret = randomBytes(32);
  const { MAYBE, NOT_GOING } = proto.Message.EventResponseMessage.EventResponseType;

  it("a member's answer to our group event (LID forms): event_response with the answer's name", async () => {
    const content = await generateWAMessageContent(
      { event: { name: "Reunião", startDate: new Date((T + 3600) * 1000), messageSecret: secret } },
      {} as never,
    );
    const event = parseStoredMessage(storedForm(generateWAMessageFromContent(GROUP, content, { userJid: ME.id })));
    expect(event.message?.eventMessage?.name).toBe("Reunião");
    const stored = new Map([[event.key.id!, event]]);
    const answer = (id: string, response: proto.Message.EventResponseMessage.EventResponseType) =>
      wa({
        key: groupKey(id),
        message: {
          encEventResponseMessage: {
            // from the responder's perspective: the event is not theirs
            eventCreationMessageKey: { remoteJid: GROUP, fromMe: false, id: event.key.id, participant: ME_LID },
            ...encryptEventResponse(response, {
              eventMsgId: event.key.id!,
              eventCreatorJid: ME_LID,
              responderJid: MEMBER_LID,
              secret,
            }),
          },
        },
        pushName: "Caio",
      });
    expect(await map(answer("ER1", MAYBE), lookups({}, stored))).toMatchObject({
      type: "event_response",
      targetId: event.key.id,
      response: "maybe",
      text: null,
      from: MEMBER_PARTY,
      chatId: GROUP,
    });
    expect((await map(answer("ER2", NOT_GOING), lookups({}, stored))).response).toBe("not_going");
    // event not stored: still reported, without the answer
    expect(await map(answer("ER3", MAYBE), lookups())).toMatchObject({ type: "event_response", response: "" });
  });

  it("a contact's answer to our one-to-one event, number forms", async () => {
    const content = await generateWAMessageContent(
      { event: { name: "Visita", startDate: new Date((T + 7200) * 1000), messageSecret: secret } },
      {} as never,
    );
    const event = parseStoredMessage(storedForm(generateWAMessageFromContent(CONTACT_PN, content, { userJid: ME.id })));
    const msg = wa({
      key: dmKey("ER4"),
      message: {
        encEventResponseMessage: {
          eventCreationMessageKey: { remoteJid: ME_PN, fromMe: false, id: event.key.id },
          ...encryptEventResponse(proto.Message.EventResponseMessage.EventResponseType.GOING, {
            eventMsgId: event.key.id!,
            eventCreatorJid: ME_PN,
            responderJid: CONTACT_PN,
            secret,
          }),
        },
      },
    });
    expect(await map(msg, lookups({}, new Map([[event.key.id!, event]])))).toMatchObject({
      type: "event_response",
      response: "going",
    });
  });
});

// ── wiring in the session ────────────────────────────────────────────────────

const suite = silentSuite();

interface Wired extends Paired {
  messages(): InboundMessage[];
}

/** A paired session on a real socket, connection open; events are emitted on the socket as Baileys would. */
async function wired(): Promise<Wired> {
  const paired = await openPaired(suite, { connectTimeoutMs: 5_000 });
  return { ...paired, messages: () => paired.events.flatMap((e) => (e.type === "message" ? [e.message] : [])) };
}

/** Events go through the session's queue: wait until it has nothing left. */
async function settle(w: Wired, count: number) {
  await vi.waitFor(() => expect(w.events.filter((e) => e.type === "message" || e.type === "ack").length).toBe(count));
  await new Promise((r) => setTimeout(r, 30));
}

describe("Baileys session: inbound events", () => {
  it("notify and append (offline backlog) are reported once each, kept in their own form", async () => {
    const w = await wired();
    const live = wa({ key: dmKey("3A00LIVE000000000001"), message: { conversation: "oi" }, pushName: "Bia" });
    const offline = wa({
      key: groupKey("3A00OFFLINE000000001"),
      message: { conversation: "enquanto fora" },
      pushName: "Caio",
    });
    w.sock.ev.emit("messages.upsert", { messages: [live], type: "notify" });
    w.sock.ev.emit("messages.upsert", { messages: [offline], type: "append" });
    // the same message again (offline replay, placeholder resend)
    w.sock.ev.emit("messages.upsert", { messages: [live], type: "append" });
    await settle(w, 2);
    const got = w.messages();
    expect(got.map((m) => [m.id, m.chatId, m.from.id, m.text])).toEqual([
      ["3A00LIVE000000000001", "5511988887777@c.us", "5511988887777@c.us", "oi"],
      ["3A00OFFLINE000000001", GROUP, "5521977776666@c.us", "enquanto fora"],
    ]);
    expect(got[0]!.raw).toBe(live);
    expect(parseStoredMessage(w.raw.get("3A00LIVE000000000001")!).key).toEqual(live.key);
  });

  it("a decryption stub is not reported; its content, arriving later under the same key, is", async () => {
    const w = await wired();
    const key = dmKey("3A00STUB000000000001");
    w.sock.ev.emit("messages.upsert", {
      messages: [wa({ key, messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT })],
      type: "notify",
    });
    w.sock.ev.emit("messages.upsert", {
      messages: [wa({ key, message: { conversation: "agora sim" } })],
      type: "notify",
      requestId: "r1",
    });
    await settle(w, 1);
    expect(w.messages().map((m) => m.text)).toEqual(["agora sim"]);
  });

  it("our API sends echoed back by Baileys are not reported (the manager announces them)", async () => {
    const w = await wired();
    vi.spyOn(w.sock, "sendMessage").mockImplementation(async (jid, content) => {
      const full = generateWAMessageFromContent(jid, await generateWAMessageContent(content as never, {} as never), {
        userJid: ME.id,
      });
      // what emitOwnEvents does after the relay
      process.nextTick(() => w.sock.ev.emit("messages.upsert", { messages: [full], type: "append" }));
      return full;
    });
    const sent = await w.session.send("5511988887777@c.us", { type: "text", text: "da API" });
    await settle(w, 0); // the echo has had its tick (and 30 ms more)
    // Neither the echo nor a `sent` ack: the manager announces the message and its `sent` itself.
    expect(w.events.filter((e) => e.type === "ack")).toEqual([]);
    expect(w.messages()).toEqual([]);
    expect(w.raw.has(sent.id)).toBe(true);
    // The echo, even once its status moved on, stays ours.
    const again = parseStoredMessage(w.raw.get(sent.id)!);
    again.status = proto.WebMessageInfo.Status.DELIVERY_ACK;
    w.sock.ev.emit("messages.upsert", { messages: [again], type: "append" });
    await new Promise((r) => setTimeout(r, 50));
    expect(w.messages()).toEqual([]);
  });

  it("poll vote end to end: the poll is kept when it arrives, the vote is decrypted from the kept form", async () => {
    const w = await wired();
    const secret = randomBytes(32);
    const pollKey = groupKey("3A00POLL000000000001");
    w.sock.ev.emit("messages.upsert", {
      messages: [
        wa({
          key: pollKey,
          message: {
            messageContextInfo: { messageSecret: secret },
            pollCreationMessage: { name: "Almoço?", options: POLL_OPTIONS.map((optionName) => ({ optionName })) },
          },
          pushName: "Caio",
        }),
      ],
      type: "notify",
    });
    const vote = wa({
      key: dmKey("3A00VOTE000000000001", { remoteJid: GROUP, remoteJidAlt: undefined, participant: CONTACT_LID }),
      message: {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: GROUP, fromMe: false, id: pollKey.id, participant: MEMBER_LID },
          vote: encryptVote(["Pizza"], {
            pollMsgId: pollKey.id!,
            pollCreatorJid: MEMBER_LID,
            voterJid: CONTACT_LID,
            secret,
          }),
        },
      },
    });
    w.sock.ev.emit("messages.upsert", { messages: [vote], type: "notify" });
    await settle(w, 2);
    expect(w.messages().map((m) => [m.type, m.text ?? m.selectedOptions])).toEqual([
      ["poll", "Almoço?"],
      ["poll_vote", ["Pizza"]],
    ]);
    expect(w.messages()[1]!.from.id).toBe(CONTACT_LID); // no number known for it in this session's store
  });

  it("reactions, edits and revocations: from their own upsert, the derived events only fill gaps", async () => {
    const w = await wired();
    const target: WAMessageKey = { remoteJid: CONTACT_PN, fromMe: true, id: "3EB0TARGET00000000000A" };
    const reactionMsg = wa({
      key: dmKey("3A00REACT00000000001"),
      message: { reactionMessage: { key: target, text: "❤️" } },
    });
    w.sock.ev.emit("messages.upsert", { messages: [reactionMsg], type: "notify" });
    // what processMessage derives from it
    w.sock.ev.emit("messages.reaction", [{ key: target, reaction: { key: reactionMsg.key, text: "❤️" } }]);
    // a reaction only known from the derived event
    w.sock.ev.emit("messages.reaction", [
      { key: target, reaction: { key: dmKey("3A00REACT00000000002"), text: "", senderTimestampMs: T * 1000 } },
    ]);

    const editMsg = wa({
      key: dmKey("3A00EDIT000000000001"),
      message: {
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
          key: { remoteJid: CONTACT_PN, fromMe: false, id: "3A00ORIGINAL00000001" },
          editedMessage: { conversation: "novo" },
          timestampMs: (T + 5) * 1000,
        },
      },
    });
    w.sock.ev.emit("messages.upsert", { messages: [editMsg], type: "notify" });
    w.sock.ev.emit("messages.update", [
      {
        key: { ...editMsg.key, id: "3A00ORIGINAL00000001" },
        update: { message: { editedMessage: { message: { conversation: "novo" } } }, messageTimestamp: T + 5 },
      },
    ]);
    const revokeMsg = wa({
      key: dmKey("3A00REVOKE0000000001"),
      message: {
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.REVOKE,
          key: { remoteJid: CONTACT_PN, id: "3A00ORIGINAL00000002" },
        },
      },
    });
    w.sock.ev.emit("messages.upsert", { messages: [revokeMsg], type: "notify" });
    w.sock.ev.emit("messages.update", [
      {
        key: { ...revokeMsg.key, id: "3A00ORIGINAL00000002" },
        update: { message: null, messageStubType: proto.WebMessageInfo.StubType.REVOKE, key: revokeMsg.key },
      },
    ]);
    // an edit only known from messages.update
    w.sock.ev.emit("messages.update", [
      {
        key: dmKey("3A00ORIGINAL00000003"),
        update: { message: { editedMessage: { message: { conversation: "outro" } } }, messageTimestamp: T + 9 },
      },
    ]);
    await settle(w, 5);
    expect(w.messages().map((m) => [m.type, m.id, m.targetId, m.emoji ?? m.text])).toEqual([
      ["reaction", "3A00REACT00000000001", target.id, "❤️"],
      ["reaction", "3A00REACT00000000002", target.id, ""],
      ["edit", "3A00EDIT000000000001", "3A00ORIGINAL00000001", "novo"],
      ["revoke", "3A00REVOKE0000000001", "3A00ORIGINAL00000002", null],
      ["edit", "3A00ORIGINAL00000003", "3A00ORIGINAL00000003", "outro"],
    ]);
  });

  it("acks: the chat's number even when the receipt names the LID; failures carry the network's code and its cause", async () => {
    const w = await wired();
    await w.sock.signalRepository.lidMapping.storeLIDPNMappings([{ lid: CONTACT_LID, pn: CONTACT_PN }]);
    w.sock.ev.emit("messages.update", [
      {
        key: { remoteJid: CONTACT_LID, fromMe: true, id: "3EB0A1" },
        update: { status: proto.WebMessageInfo.Status.DELIVERY_ACK, messageTimestamp: T + 1 },
      },
      {
        key: { remoteJid: CONTACT_PN, fromMe: true, id: "3EB0A1" },
        update: { status: proto.WebMessageInfo.Status.READ, messageTimestamp: T + 2 },
      },
      {
        key: { remoteJid: STRANGER_LID, fromMe: true, id: "3EB0A2" },
        update: { status: proto.WebMessageInfo.Status.PLAYED },
      },
      {
        key: { remoteJid: "5511977775555@s.whatsapp.net", fromMe: true, id: "3EB0A3" },
        update: {
          status: proto.WebMessageInfo.Status.ERROR,
          messageStubParameters: ["463", "Your account has been restricted"],
        },
      },
      // not ours, or "sent" (reported by send itself): nothing
      {
        key: { remoteJid: CONTACT_PN, fromMe: false, id: "3A0B" },
        update: { status: proto.WebMessageInfo.Status.READ },
      },
      {
        key: { remoteJid: CONTACT_PN, fromMe: true, id: "3EB0A4" },
        update: { status: proto.WebMessageInfo.Status.SERVER_ACK },
      },
    ]);
    await settle(w, 4);
    const acks = w.events.flatMap((e) => (e.type === "ack" ? [e] : []));
    expect(acks.map(({ id, chatId, status, error }) => ({ id, chatId, status, error }))).toEqual([
      { id: "3EB0A1", chatId: "5511988887777@c.us", status: "delivered", error: undefined },
      { id: "3EB0A1", chatId: "5511988887777@c.us", status: "read", error: undefined },
      { id: "3EB0A2", chatId: STRANGER_LID, status: "played", error: undefined },
      {
        id: "3EB0A3",
        chatId: "5511977775555@c.us",
        status: "failed",
        // Not a send of ours this session: no other address is tried; the code and its cause reach the client.
        error: {
          code: "network_rejected",
          networkCode: 463,
          message: expect.stringMatching(/^A rede recusou a mensagem \(erro 463\)/),
        },
      },
    ]);
    expect(acks.slice(0, 2).map((a) => a.timestamp)).toEqual([T + 1, T + 2]);
  });

  it("chat names: group subjects from groups.update, contact names from contacts events (our copies too)", async () => {
    const w = await wired();
    w.sock.ev.emit("groups.update", [{ id: GROUP, subject: "Equipe Centro" }]);
    w.sock.ev.emit("contacts.upsert", [{ id: CONTACT_LID, phoneNumber: CONTACT_PN, name: "Bia Souza" }]);
    w.sock.ev.emit("messages.upsert", {
      messages: [
        wa({ key: groupKey("3A00NAME000000000001"), message: { conversation: "x" }, pushName: "Caio" }),
        wa({ key: dmKey("3A00NAME000000000002", { fromMe: true }), message: { conversation: "y" } }),
      ],
      type: "notify",
    });
    await settle(w, 2);
    expect(w.messages().map((m) => m.chatName)).toEqual(["Equipe Centro", "Bia Souza"]);
  });
});
