import type { InboundMessage } from "@gw/contracts";
import { proto } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import {
  CONTACT_LID,
  CONTACT_PARTY,
  CONTACT_PN,
  dmKey,
  GROUP,
  groupKey,
  lookups,
  ME_LID,
  ME_PARTY,
  ME_PN,
  MEMBER_LID,
  MEMBER_PARTY,
  MEMBER_PN,
  map,
  STRANGER_LID,
  T,
  wa,
} from "../test/inbound-messages.ts";

/**
 * The mapping's addressing (inbound-ids.ts, through inbound.ts' `toInboundMessage`): which ids
 * name the chat and the sender (number, LID, group, channel, our own copies) and their names.
 * Messages are built as Baileys hands them over (test/inbound-messages.ts).
 */

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
