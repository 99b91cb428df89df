import { proto, type WAMessage } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import {
  CHAT,
  CHAT_JID,
  context,
  GROUP,
  generate,
  type Lookups,
  ME,
  map,
  media,
  picture,
  send,
} from "../test/outbound-rig.ts";
import { apiError } from "../test/testing.ts";
import { toBaileysContent } from "./outbound.ts";

/**
 * The send's options and the messages a content names (outbound-options.ts), through Baileys' own
 * `generateWAMessage` (test/outbound-rig.ts): mentions, the target keys of reactions, edits and
 * revokes, quotes, forwarded.
 */

describe("outbound content through Baileys' generateWAMessage", () => {
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
});
