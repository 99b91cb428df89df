import { randomBytes } from "node:crypto";
import { proto, type WAMessage } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { CONTACT_LID, CONTACT_PN, dmKey, GROUP, groupKey, lookups, map, T, wa } from "../test/inbound-messages.ts";
import { parseStoredMessage, storedForm, toInboundMessage } from "./inbound.ts";

/**
 * What inbound.ts itself decides: content it does not know is `unknown`, what is not a message
 * is skipped, and the stored form (`storedForm` / `parseStoredMessage`) keeps a message whole.
 * The addressing, the content kinds and the add-ons have tests of their own (inbound-*.test.ts).
 */

describe("Baileys inbound mapping: content", () => {
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
