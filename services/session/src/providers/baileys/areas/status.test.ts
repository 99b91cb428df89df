import { ApiError } from "@gw/contracts";
import {
  type AnyMessageContent,
  decodeMessageNode,
  generateWAMessageContent,
  generateWAMessageFromContent,
  type MiscMessageGenerationOptions,
  proto,
  type WAMessage,
  type WASocket,
} from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import type { ProviderEvent, ProviderSession } from "../../contract.ts";
import { openPaired, silentSuite } from "../test/paired-rig.ts";
import { PAIRED_ME, ONE_PIXEL_PNG as PNG } from "../test/testing.ts";

/**
 * Status posts at Baileys' boundary (real sockets against a silent local endpoint): the send the
 * session makes for a post (README "Send Broadcast & Stories"), what Baileys builds from it, and
 * the posts of contacts arriving as `messages.upsert`.
 */

const ME = PAIRED_ME;
const STATUS = "status@broadcast";
/** Our account's LID as the status audience names it: a post reaches our own phone too. */
const OWN_LID = "123456789@lid";
const BIA = "5511988887777";

const suite = silentSuite();

interface Rig {
  session: ProviderSession;
  sock: WASocket;
  events: ProviderEvent[];
  /** What `sock.sendMessage` was asked, built by Baileys into the message it would relay (not relayed). */
  sends: { jid: string; content: AnyMessageContent; options: MiscMessageGenerationOptions; built: WAMessage }[];
}

async function openRig(): Promise<Rig> {
  const { session, sock, events } = await openPaired(suite);
  const sends: Rig["sends"] = [];
  vi.spyOn(sock, "sendMessage").mockImplementation(async (jid, content, options = {}) => {
    // Baileys' own content generation with the send's options (style included); media not uploaded.
    const generated =
      "text" in content || "delete" in content || "image" in content || "video" in content
        ? await generateWAMessageContent(content, {
            ...options,
            upload: async () => ({ mediaUrl: "", directPath: "" }),
          })
        : { audioMessage: { mimetype: "audio/ogg; codecs=opus", ptt: true } };
    const built = generateWAMessageFromContent(jid, generated, {
      userJid: ME.id,
      ...(options.messageId ? { messageId: options.messageId } : {}),
    });
    sends.push({ jid, content, options, built });
    return built;
  });
  return { session, sock, events, sends };
}

const apiError = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ApiError,
  );

describe("Baileys status posts: sending", () => {
  it("a text post: statusJidList from the audience, the style as Baileys takes it (hex color, font)", async () => {
    const r = await openRig();
    const out = await r.session.send(
      STATUS,
      { type: "text", text: "bom dia" },
      {
        id: "3EB0AAAABBBBCCCCDDDD01",
        status: { audience: [`${BIA}@c.us`, "222233334444555@lid"], backgroundColor: "#FF0080", font: 2 },
      },
    );
    expect(out).toEqual({ id: "3EB0AAAABBBBCCCCDDDD01", chatId: STATUS, timestamp: expect.any(Number) });
    expect(r.sends).toHaveLength(1);
    const [s] = r.sends;
    expect(s!.jid).toBe(STATUS);
    expect(s!.content).toEqual({ text: "bom dia" });
    expect(s!.options).toEqual({
      messageId: "3EB0AAAABBBBCCCCDDDD01",
      statusJidList: [`${BIA}@s.whatsapp.net`, "222233334444555@lid", OWN_LID],
      broadcast: true,
      backgroundColor: "#FF0080",
      font: 2,
    });
    // What Baileys builds from it: the color as ARGB, the font on the extended text.
    expect(s!.built.message?.extendedTextMessage).toMatchObject({
      text: "bom dia",
      backgroundArgb: 0xffff0080,
      font: 2,
    });
  });

  it("a voice post carries its background color; a post without an audience never reaches Baileys", async () => {
    const r = await openRig();
    await r.session.send(
      STATUS,
      {
        type: "voice",
        media: { data: Buffer.from("OggS-opus").toString("base64"), mimetype: "audio/ogg" },
        seconds: 3,
      },
      { status: { audience: [BIA], backgroundColor: "#00AA00" } },
    );
    expect(r.sends[0]?.content).toMatchObject({ ptt: true, mimetype: "audio/ogg; codecs=opus", seconds: 3 });
    expect(r.sends[0]?.options).toMatchObject({
      statusJidList: [`${BIA}@s.whatsapp.net`, OWN_LID],
      backgroundColor: "#00AA00",
    });
    for (const options of [{}, { status: { audience: [] } }, { status: { audience: ["não"] } }]) {
      const err = await apiError(r.session.send(STATUS, { type: "text", text: "x" }, options));
      expect(err).toBeInstanceOf(ApiError);
      expect(err?.details).toHaveProperty("contacts");
    }
    expect(r.sends).toHaveLength(1);
  });

  it("an image post: the picture with its caption to the audience; Baileys builds an imageMessage", async () => {
    const r = await openRig();
    const out = await r.session.send(
      STATUS,
      { type: "image", media: { data: PNG.toString("base64"), mimetype: "image/png" }, caption: "vitrine nova" },
      { id: "3EB0AAAABBBBCCCCDDDD02", status: { audience: [BIA, "222233334444555@lid"] } },
    );
    expect(out).toEqual({ id: "3EB0AAAABBBBCCCCDDDD02", chatId: STATUS, timestamp: expect.any(Number) });
    const [s] = r.sends;
    expect(s!.jid).toBe(STATUS);
    expect(s!.content).toEqual({ image: PNG, mimetype: "image/png", caption: "vitrine nova" });
    expect(s!.options).toEqual({
      messageId: "3EB0AAAABBBBCCCCDDDD02",
      statusJidList: [`${BIA}@s.whatsapp.net`, "222233334444555@lid", OWN_LID],
      broadcast: true,
    });
    expect(s!.built.message?.imageMessage).toMatchObject({ mimetype: "image/png", caption: "vitrine nova" });
    expect(Number(s!.built.message?.imageMessage?.fileLength)).toBe(PNG.length);
  });

  it("a video post: the video with its caption, no round note; Baileys builds a videoMessage", async () => {
    const r = await openRig();
    const video = Buffer.from("00000018667479706d703432", "hex");
    await r.session.send(
      STATUS,
      { type: "video", media: { data: video.toString("base64"), mimetype: "video/mp4" }, caption: "bastidores" },
      { status: { audience: [BIA] } },
    );
    const [s] = r.sends;
    expect(s!.content).toEqual({ video, mimetype: "video/mp4", caption: "bastidores" });
    expect(s!.options).toMatchObject({ statusJidList: [`${BIA}@s.whatsapp.net`, OWN_LID], broadcast: true });
    expect(s!.built.message?.videoMessage).toMatchObject({ mimetype: "video/mp4", caption: "bastidores" });
    expect(s!.built.message?.ptvMessage).toBeFalsy();
  });

  it("a deletion: {delete: key} of our kept post, sent to the audience again", async () => {
    const r = await openRig();
    const post = await r.session.send(STATUS, { type: "text", text: "apagar" }, { status: { audience: [BIA] } });
    await r.session.send(STATUS, { type: "revoke", targetId: post.id }, { status: { audience: [BIA] } });
    const del = r.sends[1]!;
    expect(del.jid).toBe(STATUS);
    expect(del.content).toEqual({ delete: expect.objectContaining({ remoteJid: STATUS, fromMe: true, id: post.id }) });
    expect(del.options).toMatchObject({ statusJidList: [`${BIA}@s.whatsapp.net`, OWN_LID] });
    expect(del.built.message?.protocolMessage?.type).toBe(proto.Message.ProtocolMessage.Type.REVOKE);
  });
});

describe("Baileys status posts: receiving", () => {
  it("a contact's post is a message of status@broadcast from the contact; its deletion a revoke; ours and the backlog are not repeated", async () => {
    const r = await openRig();
    const key = { remoteJid: STATUS, participant: `${BIA}@s.whatsapp.net`, fromMe: false };
    r.sock.ev.emit("messages.upsert", {
      type: "notify",
      messages: [
        {
          key: { ...key, id: "3A00STATUS0000000001" },
          pushName: "Bia",
          message: { conversation: "meu status" },
          messageTimestamp: 1700000000,
        },
        { key: { remoteJid: STATUS, fromMe: true, id: "3EB0OURS000000000001" }, message: { conversation: "nosso" } },
      ],
    });
    r.sock.ev.emit("messages.upsert", {
      type: "append",
      messages: [{ key: { ...key, id: "3A00STATUS0000000002" }, message: { conversation: "antigo" } }],
    });
    r.sock.ev.emit("messages.upsert", {
      type: "notify",
      messages: [
        {
          key: { ...key, id: "3A00STATUS0000000003" },
          message: {
            protocolMessage: {
              type: proto.Message.ProtocolMessage.Type.REVOKE,
              key: { ...key, id: "3A00STATUS0000000001" },
            },
          },
        },
      ],
    });
    const got = await vi.waitFor(() => {
      const messages = r.events.flatMap((e) => (e.type === "message" ? [e.message] : []));
      expect(messages).toHaveLength(2);
      return messages;
    });
    expect(got[0]).toMatchObject({
      id: "3A00STATUS0000000001",
      chatId: STATUS,
      chatLid: null,
      chatName: "",
      isGroup: false,
      fromMe: false,
      from: { id: `${BIA}@c.us`, phone: BIA, pushName: "Bia" },
      type: "text",
      text: "meu status",
      timestamp: 1700000000,
    });
    expect(got[1]).toMatchObject({ chatId: STATUS, type: "revoke", targetId: "3A00STATUS0000000001" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.events.filter((e) => e.type === "message")).toHaveLength(2);
  });

  it("a contact posting by LID or by number: its other id is taken from the key's remoteJidAlt, where Baileys puts it for status@broadcast", async () => {
    const r = await openRig();
    const BIA_LID = "111122223333444@lid";
    const CAIO = "5521977776666";
    const CAIO_LID = "555566667777888@lid";
    // The stanzas as the network sends a status post (`<message from="status@broadcast" participant>`
    // with the sender's other id as participant_pn / participant_lid), keyed by Baileys' own decoder:
    // status@broadcast is no group, so the other id lands in remoteJidAlt, participantAlt stays empty.
    const received = (id: string, attrs: Record<string, string>, text: string): WAMessage => {
      const { fullMessage } = decodeMessageNode(
        { tag: "message", attrs: { from: STATUS, id, t: "1700000000", type: "text", ...attrs } },
        ME.id,
        ME.lid,
      );
      return { ...fullMessage, message: { conversation: text } };
    };
    const byLid = received(
      "3A00STATUS0000000011",
      { participant: BIA_LID, participant_pn: `${BIA}@s.whatsapp.net`, addressing_mode: "lid", notify: "Bia" },
      "por lid",
    );
    expect(byLid.key).toMatchObject({ remoteJid: STATUS, remoteJidAlt: `${BIA}@s.whatsapp.net`, participant: BIA_LID });
    expect(byLid.key.participantAlt).toBeUndefined();
    const byNumber = received(
      "3A00STATUS0000000012",
      { participant: `${CAIO}@s.whatsapp.net`, participant_lid: CAIO_LID, addressing_mode: "pn", notify: "Caio" },
      "por número",
    );
    expect(byNumber.key).toMatchObject({ remoteJidAlt: CAIO_LID, participant: `${CAIO}@s.whatsapp.net` });
    // No LID mapping is stored: the number can only come from the key.
    expect(await r.sock.signalRepository.lidMapping.getPNForLID(BIA_LID)).toBeFalsy();

    r.sock.ev.emit("messages.upsert", { type: "notify", messages: [byLid, byNumber] });
    const got = await vi.waitFor(() => {
      const messages = r.events.flatMap((e) => (e.type === "message" ? [e.message] : []));
      expect(messages).toHaveLength(2);
      return messages;
    });
    expect(got[0]).toMatchObject({
      id: "3A00STATUS0000000011",
      chatId: STATUS,
      from: { id: `${BIA}@c.us`, phone: BIA, lid: BIA_LID, pushName: "Bia" },
      text: "por lid",
    });
    expect(got[1]).toMatchObject({
      id: "3A00STATUS0000000012",
      chatId: STATUS,
      from: { id: `${CAIO}@c.us`, phone: CAIO, lid: CAIO_LID, pushName: "Caio" },
      text: "por número",
    });
  });
});
