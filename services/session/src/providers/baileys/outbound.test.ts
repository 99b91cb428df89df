import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { ApiError, type OutboundContent, type OutboundMedia, type SendOptions } from "@gw/contracts";
import {
  aesDecryptWithIV,
  assertNodeErrorFree,
  type BinaryNode,
  DisconnectReason,
  generateWAMessage,
  getMediaKeys,
  hmacSign,
  type MediaType,
  promiseTimeout,
  proto,
  type WAMediaUploadFunction,
  type WAMessage,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapNetworkError } from "./errors.ts";
import { brazilianAlternative, formatMessageId, parseMessageId, toChatId, toJid } from "./jids.ts";
import { LinkPreviews } from "./link-preview.ts";
import { type BaileysOutbound, isAnimatedWebp, type OutboundContext, toBaileysContent } from "./outbound.ts";
import { Boom } from "./testing.ts";
import { buildVCard, escapeVCardText } from "./vcard.ts";

/**
 * The mapping checked the only way that counts: what it produces goes through Baileys' own
 * `generateWAMessage` (the function `sendMessage` calls before relaying), with a local function
 * standing in for the network's media server, and the resulting `proto.Message` is inspected.
 * Media uploads are decrypted back with the media key Baileys put in the message.
 */

const ME = { id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" };
const CONTACT = "5511988887777";
const CHAT = `${CONTACT}@c.us`;
const CHAT_JID = `${CONTACT}@s.whatsapp.net`;
const GROUP = "120363012345678901@g.us";

// sharp is Baileys' (peer) dependency, not ours: load it from where Baileys resolves it.
interface SharpImage {
  jpeg(): SharpImage;
  png(): SharpImage;
  webp(): SharpImage;
  toBuffer(): Promise<Buffer>;
}
type SharpFactory = (input: {
  create: { width: number; height: number; channels: 3; background: { r: number; g: number; b: number } };
}) => SharpImage;
const requireHere = createRequire(import.meta.url);
const sharp = createRequire(requireHere.resolve("@whiskeysockets/baileys"))("sharp") as SharpFactory;
const picture = () => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } });

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest();
const b64 = (b: Buffer) => b.toString("base64");
const media = (bytes: Buffer, mimetype: string, filename?: string): OutboundMedia => ({
  data: b64(bytes),
  mimetype,
  ...(filename ? { filename } : {}),
});

/** The network's media server: keeps the encrypted upload, answers its url and direct path. */
const uploads = new Map<string, Buffer>();
const upload: WAMediaUploadFunction = async (encFilePath, { fileEncSha256B64, mediaType }) => {
  const enc = await readFile(encFilePath);
  expect(b64(sha256(enc))).toBe(fileEncSha256B64);
  const name = fileEncSha256B64.replace(/[^A-Za-z0-9]/g, "");
  uploads.set(name, enc);
  return { mediaUrl: `https://media.test/${mediaType}/${name}`, directPath: `/v/t62.${mediaType}/${name}` };
};

/** What a recipient does with the message: fetch by direct path, check the MAC, decrypt. */
async function downloadBack(
  m: { directPath?: string | null; mediaKey?: Uint8Array | null },
  type: MediaType,
): Promise<Buffer> {
  const enc = uploads.get(m.directPath?.split("/").pop() ?? "");
  if (!enc) throw new Error("not uploaded");
  const { cipherKey, iv, macKey } = await getMediaKeys(m.mediaKey, type);
  const body = enc.subarray(0, -10);
  const mac = hmacSign(Buffer.concat([iv, body]), macKey!, "sha256").subarray(0, 10);
  expect(mac.equals(enc.subarray(-10))).toBe(true);
  return aesDecryptWithIV(body, cipherKey, iv);
}

interface Lookups {
  stored?: WAMessage[];
  participants?: Record<string, string[]>;
}

function context(l: Lookups = {}) {
  const asked: WAMessageKey[] = [];
  const groupsAsked: string[] = [];
  const ctx: OutboundContext = {
    me: ME,
    async loadMessage(key) {
      asked.push(key);
      return l.stored?.find((m) => m.key.id === key.id && m.key.remoteJid === key.remoteJid);
    },
    async groupParticipants(jid) {
      groupsAsked.push(jid);
      const p = l.participants?.[jid];
      if (!p) throw new Error(`unexpected group lookup ${jid}`);
      return p;
    },
  };
  return { ctx, asked, groupsAsked };
}

async function map(chatId: string, content: OutboundContent, options: SendOptions = {}, l: Lookups = {}) {
  return toBaileysContent(chatId, content, options, context(l).ctx);
}

/** Baileys' own message generation, as `sendMessage` calls it (reference §5). */
async function generate(out: BaileysOutbound): Promise<WAMessage> {
  return generateWAMessage(out.jid, out.content, { upload, userJid: ME.id, ...out.options });
}

async function send(chatId: string, content: OutboundContent, options: SendOptions = {}, l: Lookups = {}) {
  const out = await map(chatId, content, options, l);
  const msg = await generate(out);
  return { out, msg, m: msg.message! };
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

// ── chat ids and message ids ─────────────────────────────────────────────────

describe("chat ids and message ids", () => {
  it("chat ids become Baileys JIDs and back", () => {
    expect(toJid("5511988887777@c.us")).toBe("5511988887777@s.whatsapp.net");
    expect(toJid("123456789012345@lid")).toBe("123456789012345@lid");
    expect(toJid(GROUP)).toBe(GROUP);
    expect(toJid("551199999999-1600000000@g.us")).toBe("551199999999-1600000000@g.us");
    expect(toJid("120363123456789012@newsletter")).toBe("120363123456789012@newsletter");
    for (const bad of ["5511988887777", "abc@c.us", "status@broadcast", "", "5511@c.us"]) expect(toJid(bad)).toBeNull();
    expect(toChatId("5511988887777:3@s.whatsapp.net")).toBe("5511988887777@c.us");
    expect(toChatId("123456789012345:7@lid")).toBe("123456789012345@lid");
    expect(toChatId(GROUP)).toBe(GROUP);
  });

  it("our id format round-trips for 1:1, LID and group messages with participant", () => {
    const cases: [string, WAMessageKey][] = [
      [
        "false_5511988887777@c.us_3A1B2C3D4E5F60718293",
        { remoteJid: "5511988887777@s.whatsapp.net", fromMe: false, id: "3A1B2C3D4E5F60718293" },
      ],
      [
        "true_5511988887777@c.us_3EB01856367ED49704407F",
        { remoteJid: "5511988887777@s.whatsapp.net", fromMe: true, id: "3EB01856367ED49704407F" },
      ],
      ["true_123456789012345@lid_ABCDEF0123", { remoteJid: "123456789012345@lid", fromMe: true, id: "ABCDEF0123" }],
      [
        `false_${GROUP}_0A1B2C3D4E5F60718293A4B5C6D7E8F9_5511977776666@c.us`,
        {
          remoteJid: GROUP,
          fromMe: false,
          id: "0A1B2C3D4E5F60718293A4B5C6D7E8F9",
          participant: "5511977776666@s.whatsapp.net",
        },
      ],
      [
        `false_${GROUP}_3A99_222233334444555@lid`,
        { remoteJid: GROUP, fromMe: false, id: "3A99", participant: "222233334444555@lid" },
      ],
    ];
    for (const [id, key] of cases) {
      expect(parseMessageId(id)).toEqual(key);
      expect(formatMessageId(key)).toBe(id);
    }
    for (const bad of ["3EB0ABC", "maybe_5511988887777@c.us_ABC", "true_foo_ABC", "true_5511988887777@c.us_A-B"]) {
      expect(parseMessageId(bad)).toBeUndefined();
    }
  });

  it("Brazilian ninth digit: the other form of mobile numbers only", () => {
    expect(brazilianAlternative("5511988887777")).toBe("551188887777");
    expect(brazilianAlternative("551188887777")).toBe("5511988887777");
    expect(brazilianAlternative("551133334444")).toBeNull(); // landline
    expect(brazilianAlternative("5511933334444")).toBeNull(); // 9 + landline-like: no old form
    expect(brazilianAlternative("14155550100")).toBeNull();
    expect(brazilianAlternative("5511")).toBeNull();
  });
});

// ── content, through Baileys ────────────────────────────────────────────────

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

  it("mentions become JIDs in contextInfo.mentionedJid; 'all' resolves the group's participants minus us", async () => {
    const { m } = await send(CHAT, { type: "text", text: "oi @5511977776666" }, { mentions: ["5511977776666@c.us"] });
    expect(m.extendedTextMessage?.contextInfo?.mentionedJid).toEqual(["5511977776666@s.whatsapp.net"]);

    const l: Lookups = {
      participants: {
        [GROUP]: [
          "5511999999999@s.whatsapp.net",
          "5511988887777@s.whatsapp.net",
          "222233334444555@lid",
          "123456789@lid",
        ],
      },
    };
    const all = await send(GROUP, { type: "text", text: "atenção" }, { mentions: ["all", "5511988887777@c.us"] }, l);
    expect(all.m.extendedTextMessage?.contextInfo?.mentionedJid).toEqual([
      "5511988887777@s.whatsapp.net",
      "222233334444555@lid",
    ]);
    expect(all.msg.participant).toBe(ME.id); // Baileys marks our group messages with our JID

    expect((await apiError(map(CHAT, { type: "text", text: "x" }, { mentions: ["all"] }))).details).toEqual({
      mentions: '"all" só vale em grupos',
    });
    expect((await apiError(map(CHAT, { type: "text", text: "x" }, { mentions: ["fulano"] }))).code).toBe(
      "validation_error",
    );
  });

  it("image: uploaded encrypted, decrypts back; sha256, mimetype, caption, sharp thumbnail and size", async () => {
    const bytes = await picture().jpeg().toBuffer();
    const { m } = await send(CHAT, { type: "image", media: media(bytes, "image/jpeg"), caption: "foto" });
    const img = m.imageMessage!;
    expect(img).toMatchObject({ mimetype: "image/jpeg", caption: "foto", width: 64, height: 48 });
    expect(Buffer.from(img.fileSha256!).equals(sha256(bytes))).toBe(true);
    expect(Number(img.fileLength)).toBe(bytes.length);
    expect(img.url).toMatch(/^https:\/\/media\.test\/image\//);
    expect(img.mediaKey).toHaveLength(32);
    expect(img.jpegThumbnail?.length).toBeGreaterThan(0);
    expect((await downloadBack(img, "image")).equals(bytes)).toBe(true);
    const empty = await apiError(map(CHAT, { type: "image", media: media(Buffer.alloc(0), "image/jpeg") }));
    expect(empty.details).toHaveProperty("file");
  });

  it("video: videoMessage with caption; asNote becomes a round note (ptvMessage)", async () => {
    const bytes = Buffer.concat([Buffer.from("\0\0\0\x18ftypmp42"), Buffer.alloc(200, 7)]);
    const v = await send(CHAT, { type: "video", media: media(bytes, "video/mp4"), caption: "vídeo" });
    expect(v.m.videoMessage).toMatchObject({ mimetype: "video/mp4", caption: "vídeo" });
    expect((await downloadBack(v.m.videoMessage!, "video")).equals(bytes)).toBe(true);

    const note = await send(CHAT, { type: "video", media: media(bytes, "video/mp4"), asNote: true });
    expect(note.m.videoMessage).toBeFalsy();
    expect(note.m.ptvMessage?.mimetype).toBe("video/mp4");
    expect((await downloadBack(note.m.ptvMessage!, "video")).equals(bytes)).toBe(true);
    const captioned = await apiError(
      map(CHAT, { type: "video", media: media(bytes, "video/mp4"), asNote: true, caption: "x" }),
    );
    expect(captioned.details).toHaveProperty("caption");
  });

  it("audio is a file (ptt false); voice is a voice note (ptt true) with its duration", async () => {
    const bytes = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 3)]);
    const audio = await send(CHAT, { type: "audio", media: media(bytes, "audio/mpeg") });
    expect(audio.m.audioMessage).toMatchObject({ mimetype: "audio/mpeg", ptt: false });
    const voice = await send(CHAT, { type: "voice", media: media(bytes, "audio/ogg"), seconds: 7 });
    expect(voice.m.audioMessage).toMatchObject({ mimetype: "audio/ogg; codecs=opus", ptt: true, seconds: 7 });
    expect((await downloadBack(voice.m.audioMessage!, "audio")).equals(bytes)).toBe(true);
  });

  it("document: fileName, mimetype and caption", async () => {
    const bytes = Buffer.from("%PDF-1.4\n%fake\n");
    const { m } = await send(CHAT, {
      type: "document",
      media: media(bytes, "application/pdf", "Relatório 2026.pdf"),
      caption: "segue",
    });
    expect(m.documentMessage).toMatchObject({
      fileName: "Relatório 2026.pdf",
      mimetype: "application/pdf",
      caption: "segue",
    });
    expect((await downloadBack(m.documentMessage!, "document")).equals(bytes)).toBe(true);
  });

  it("sticker: WebP as stickerMessage; the animation flag read from the VP8X header", async () => {
    const still = await picture().webp().toBuffer();
    const { m } = await send(CHAT, { type: "sticker", media: media(still, "image/webp") });
    expect(m.stickerMessage).toMatchObject({ mimetype: "image/webp", isAnimated: false });
    expect((await downloadBack(m.stickerMessage!, "sticker")).equals(still)).toBe(true);

    const header = Buffer.alloc(30);
    header.write("RIFF", 0, "latin1");
    header.write("WEBPVP8X", 8, "latin1");
    header[20] = 0x02;
    expect(isAnimatedWebp(header)).toBe(true);
    const animated = await send(CHAT, { type: "sticker", media: media(header, "image/webp") });
    expect(animated.m.stickerMessage?.isAnimated).toBe(true);
    const png = await picture().png().toBuffer();
    const notWebp = await apiError(map(CHAT, { type: "sticker", media: media(png, "image/webp") }));
    expect(notWebp.details).toEqual({ file: "figurinhas precisam ser WebP" });
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

  it("reaction: reactionMessage with the target key from our id (group sender as participant)", async () => {
    const id = `false_${GROUP}_3A1B2C3D4E5F60718293_5511977776666@c.us`;
    const { m } = await send(GROUP, { type: "reaction", targetId: id, emoji: "👍" });
    expect(m.reactionMessage?.text).toBe("👍");
    expect(m.reactionMessage?.key).toMatchObject({
      remoteJid: GROUP,
      fromMe: false,
      id: "3A1B2C3D4E5F60718293",
      participant: "5511977776666@s.whatsapp.net",
    });
    expect(Number(m.reactionMessage?.senderTimestampMs)).toBeGreaterThan(0);

    const removal = await send(CHAT, { type: "reaction", targetId: `true_${CHAT}_3EB0AB`, emoji: "" });
    expect(removal.m.reactionMessage).toMatchObject({ text: "", key: { fromMe: true, id: "3EB0AB" } });

    // a bare id: only a stored message says who sent it
    const bare = await apiError(map(CHAT, { type: "reaction", targetId: "3A1B2C", emoji: "👍" }));
    expect(bare.details).toHaveProperty("messageId");
    const stored: WAMessage = {
      key: { remoteJid: CHAT_JID, fromMe: false, id: "3A1B2C" },
      message: { conversation: "oi" },
    };
    const known = await send(CHAT, { type: "reaction", targetId: "3A1B2C", emoji: "❤️" }, {}, { stored: [stored] });
    expect(known.m.reactionMessage?.key).toMatchObject({ remoteJid: CHAT_JID, fromMe: false, id: "3A1B2C" });
    // group message from someone else without participant
    const noParticipant = await apiError(
      map(GROUP, { type: "reaction", targetId: `false_${GROUP}_3A1B`, emoji: "👍" }),
    );
    expect(noParticipant.details).toHaveProperty("messageId");
    expect((await apiError(map(CHAT, { type: "reaction", targetId: id, emoji: "👍" }, { quotedId: id }))).code).toBe(
      "validation_error",
    );
  });

  it("edit: protocolMessage MESSAGE_EDIT with the key and the new text (own messages only)", async () => {
    const { m } = await send(
      GROUP,
      { type: "edit", targetId: `true_${GROUP}_3EB0ABCDEF`, text: "corrigido @5511977776666" },
      { mentions: ["5511977776666@c.us"] },
    );
    const pm = m.protocolMessage!;
    expect(pm.type).toBe(proto.Message.ProtocolMessage.Type.MESSAGE_EDIT);
    expect(pm.key).toMatchObject({ remoteJid: GROUP, fromMe: true, id: "3EB0ABCDEF" });
    expect(pm.editedMessage?.extendedTextMessage?.text).toBe("corrigido @5511977776666");
    expect(pm.editedMessage?.extendedTextMessage?.contextInfo?.mentionedJid).toEqual(["5511977776666@s.whatsapp.net"]);
    // a bare id can only be ours
    const bare = await send(CHAT, { type: "edit", targetId: "3EB0FFFF", text: "novo" });
    expect(bare.m.protocolMessage?.key).toMatchObject({ remoteJid: CHAT_JID, fromMe: true, id: "3EB0FFFF" });
    const others = await apiError(map(CHAT, { type: "edit", targetId: `false_${CHAT}_3A00`, text: "x" }));
    expect(others.details?.messageId).toMatch(/editar/);
  });

  it("revoke: protocolMessage REVOKE; others' messages only in groups (admin delete)", async () => {
    const own = await send(CHAT, { type: "revoke", targetId: `true_${CHAT}_3EB0ABCDEF` });
    expect(own.m.protocolMessage?.type).toBe(proto.Message.ProtocolMessage.Type.REVOKE);
    expect(own.m.protocolMessage?.key).toMatchObject({ remoteJid: CHAT_JID, fromMe: true, id: "3EB0ABCDEF" });
    const admin = await send(GROUP, { type: "revoke", targetId: `false_${GROUP}_3A77_222233334444555@lid` });
    expect(admin.m.protocolMessage?.key).toMatchObject({
      remoteJid: GROUP,
      fromMe: false,
      id: "3A77",
      participant: "222233334444555@lid",
    });
    expect((await apiError(map(CHAT, { type: "revoke", targetId: `false_${CHAT}_3A00` }))).code).toBe(
      "validation_error",
    );
    expect(
      (await apiError(map(CHAT, { type: "revoke", targetId: `true_${CHAT}_3A00` }, { forwarded: true }))).code,
    ).toBe("validation_error");
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

  it("quoting: the stored message is quoted (stanzaId, participant, quotedMessage); unknown → 422 reply_to", async () => {
    const stored: WAMessage[] = [
      {
        key: { remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" },
        message: { conversation: "pergunta" },
      },
      {
        key: { remoteJid: GROUP, fromMe: false, id: "3A0000000000000000CD", participant: "222233334444555@lid" },
        message: { extendedTextMessage: { text: "no grupo" } },
      },
    ];
    const { ctx, asked } = context({ stored });
    const out = await toBaileysContent(
      CHAT,
      { type: "text", text: "resposta" },
      { quotedId: `false_${CHAT}_3A0000000000000000AB` },
      ctx,
    );
    expect(asked).toEqual([{ remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" }]);
    const m = (await generate(out)).message!;
    expect(m.extendedTextMessage?.contextInfo).toMatchObject({
      stanzaId: "3A0000000000000000AB",
      participant: CHAT_JID,
      quotedMessage: { conversation: "pergunta" },
    });

    // in a group, with a bare id and forwarded: the stored key's sender is the participant
    const img = await picture().jpeg().toBuffer();
    const g = await send(
      GROUP,
      { type: "image", media: media(img, "image/jpeg") },
      { quotedId: "3A0000000000000000CD", forwarded: true },
      { stored },
    );
    expect(g.m.imageMessage?.contextInfo).toMatchObject({
      stanzaId: "3A0000000000000000CD",
      participant: "222233334444555@lid",
      quotedMessage: { extendedTextMessage: { text: "no grupo" } },
      isForwarded: true,
      forwardingScore: 1,
    });

    const unknown = await apiError(map(CHAT, { type: "text", text: "x" }, { quotedId: `false_${CHAT}_3A99` }));
    expect(unknown.code).toBe("validation_error");
    expect(unknown.details).toEqual({ reply_to: "mensagem não encontrada" });
    expect((await apiError(map(CHAT, { type: "text", text: "x" }, { quotedId: "not an id" }))).details).toHaveProperty(
      "reply_to",
    );
  });

  it("forwarded: contextInfo.isForwarded on a location (no text involved)", async () => {
    const { m } = await send(CHAT, { type: "location", latitude: 1, longitude: 2 }, { forwarded: true });
    expect(m.locationMessage?.contextInfo).toMatchObject({ isForwarded: true, forwardingScore: 1 });
  });

  it("bad chat ids are 422 chatId", async () => {
    const err = await apiError(map("5511988887777", { type: "text", text: "x" }));
    expect(err.details).toHaveProperty("chatId");
  });
});

// ── what Baileys' optional add-ons would do: voice waveforms, link previews ──

/** A voice note as the gateway converts them (OGG/Opus, mono, 48 kHz, 32 kb/s): a tone rising from silence. */
function voiceNote(seconds: number): Buffer {
  const args = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`];
  args.push("-af", `volume='min(1,t/${seconds})':eval=frame`, "-ac", "1", "-ar", "48000");
  args.push("-c:a", "libopus", "-b:a", "32k", "-f", "ogg", "pipe:1");
  return execFileSync("ffmpeg", args, { maxBuffer: 16 * 1024 * 1024 });
}

const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("voice notes carry a waveform (audio-decode, Baileys' optional peer, patched)", () => {
  it("64 samples, 0–100, drawn from the audio: with the duration given (converted notes) and without", async () => {
    const bytes = voiceNote(3);
    for (const seconds of [3, undefined]) {
      const { m } = await send(CHAT, {
        type: "voice",
        media: media(bytes, "audio/ogg"),
        ...(seconds !== undefined ? { seconds } : {}),
      });
      expect(m.audioMessage).toMatchObject({ ptt: true, seconds: 3 });
      const wave = [...(m.audioMessage?.waveform ?? [])];
      expect(wave).toHaveLength(64);
      expect(Math.max(...wave)).toBe(100);
      expect(Math.min(...wave)).toBeGreaterThanOrEqual(0);
      // the tone rises from silence: the end of the waveform is louder than its start
      expect(total(wave.slice(-8))).toBeGreaterThan(total(wave.slice(0, 8)) * 2);
    }
  });

  it("an audio file (ptt false) has none", async () => {
    const { m } = await send(CHAT, { type: "audio", media: media(voiceNote(1), "audio/ogg") });
    expect(m.audioMessage?.ptt).toBe(false);
    expect(m.audioMessage?.waveform ?? undefined).toBeUndefined();
  });
});

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

// ── errors as Baileys builds them ───────────────────────────────────────────

describe("network errors", () => {
  const serverError = (code: string, text: string): unknown => {
    const node: BinaryNode = {
      tag: "iq",
      attrs: { type: "error" },
      content: [{ tag: "error", attrs: { code, text } }],
    };
    try {
      assertNodeErrorFree(node);
    } catch (err) {
      return err;
    }
    throw new Error("no error thrown");
  };

  it("server <error> nodes (Boom with the code in data): 4xx rejected, 429 transient, 5xx network_error", () => {
    const forbidden = mapNetworkError(serverError("403", "forbidden"));
    expect(forbidden.code).toBe("network_rejected");
    expect(forbidden.message).toMatch(/forbidden/);
    expect(mapNetworkError(serverError("401", "not-authorized")).code).toBe("network_rejected");
    expect(mapNetworkError(serverError("404", "item-not-found")).code).toBe("network_rejected");
    expect(mapNetworkError(serverError("406", "not-acceptable")).code).toBe("network_rejected");
    const limited = mapNetworkError(serverError("429", "rate-overlimit"));
    expect(limited.code).toBe("network_error");
    expect(limited.retryAfter).toBe(5);
    expect(mapNetworkError(serverError("500", "internal-server-error")).code).toBe("network_error");
  });

  it("Baileys' own Booms: timeouts, closed connections (503, was 422), 4xx statuses, others", async () => {
    const timeout = await promiseTimeout(5, () => {}).catch((e: unknown) => e);
    expect(mapNetworkError(timeout).code).toBe("network_timeout");
    expect(mapNetworkError(new Boom("Timed Out", { statusCode: DisconnectReason.timedOut })).code).toBe(
      "network_timeout",
    );
    for (const closed of [
      new Boom("Connection Closed", { statusCode: DisconnectReason.connectionClosed }),
      new Boom("Connection was lost", { statusCode: DisconnectReason.connectionLost }),
      new Boom("Connection Terminated by Server", { statusCode: DisconnectReason.connectionClosed }),
    ]) {
      // Nothing reached the network and the instance reconnects: transient (503, Retry-After), not final.
      expect(mapNetworkError(closed)).toMatchObject({ code: "network_unavailable", status: 503, retryAfter: 2 });
    }
    expect(mapNetworkError(new Boom("Invalid media type", { statusCode: 400 })).code).toBe("network_rejected");
    expect(mapNetworkError(new Boom("Media upload failed on all hosts", { statusCode: 500 })).code).toBe(
      "network_error",
    );
    // an unanswered group query: the parser finds no response node
    expect(
      mapNetworkError(new Boom("Invalid group metadata response: missing <group> node", { data: undefined })).code,
    ).toBe("network_timeout");
    expect(mapNetworkError(new Error("boom")).code).toBe("network_error");
    const own = new ApiError("validation_error", "x", { a: "b" });
    expect(mapNetworkError(own)).toBe(own);
  });
});
