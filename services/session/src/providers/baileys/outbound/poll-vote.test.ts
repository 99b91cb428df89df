import { createHash, randomBytes } from "node:crypto";
import { decryptPollVote, type proto, type WAMessage } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { buildPollVote } from "./poll-vote.ts";

/** Our poll votes (poll-vote.ts), checked by decrypting them the way the receiving client does: Baileys' own `decryptPollVote`. */

const secret = randomBytes(32);
const poll = (fromMe: boolean, remoteJid = "5511999990001@s.whatsapp.net", participant?: string): WAMessage =>
  ({
    key: { id: "3EB0POLL0001", remoteJid, fromMe, ...(participant ? { participant } : {}) },
    message: {
      messageContextInfo: { messageSecret: secret },
      pollCreationMessageV3: {
        name: "Pizza?",
        options: [{ optionName: "sim" }, { optionName: "não" }, { optionName: "talvez" }],
        selectableOptionsCount: 0,
      },
    },
  }) as unknown as WAMessage;
const me = { id: "5511999990000:3@s.whatsapp.net", lid: "123456789:3@lid" };
const hash = (s: string) => createHash("sha256").update(s).digest();

describe("buildPollVote (inverse of Baileys' decryptPollVote)", () => {
  it("a vote on someone else's poll decrypts to the chosen options' hashes", () => {
    const msg = buildPollVote(poll(false), ["sim", "talvez"], me);
    const u = msg.pollUpdateMessage!;
    expect(u.pollCreationMessageKey).toMatchObject({ id: "3EB0POLL0001", fromMe: false });
    const vote = decryptPollVote(u.vote as proto.Message.IPollEncValue, {
      pollCreatorJid: "5511999990001@s.whatsapp.net",
      pollMsgId: "3EB0POLL0001",
      pollEncKey: secret,
      voterJid: "5511999990000@s.whatsapp.net",
    });
    expect(vote.selectedOptions.map((b) => Buffer.from(b))).toEqual([hash("sim"), hash("talvez")]);
  });

  it("our own poll in a LID-addressed group: creator and voter are our lid", () => {
    const msg = buildPollVote(poll(true, "120363000000000001@g.us", "123456789@lid"), ["não"], me);
    const vote = decryptPollVote(msg.pollUpdateMessage!.vote as proto.Message.IPollEncValue, {
      pollCreatorJid: "123456789@lid",
      pollMsgId: "3EB0POLL0001",
      pollEncKey: secret,
      voterJid: "123456789@lid",
    });
    expect(vote.selectedOptions.map((b) => Buffer.from(b))).toEqual([hash("não")]);
  });

  it("refuses options the poll lacks, several answers on a one-answer poll, and unknown polls", () => {
    expect(() => buildPollVote(poll(false), ["pizza"], me)).toThrow(
      expect.objectContaining({ code: "validation_error" }),
    );
    const single = poll(false);
    (single.message!.pollCreationMessageV3 as { selectableOptionsCount: number }).selectableOptionsCount = 1;
    expect(() => buildPollVote(single, ["sim", "não"], me)).toThrow(
      expect.objectContaining({ details: { votes: "esta enquete aceita uma resposta" } }),
    );
    expect(() =>
      buildPollVote({ key: { id: "x", remoteJid: "1@s.whatsapp.net" }, message: {} } as WAMessage, ["sim"], me),
    ).toThrow(expect.objectContaining({ details: expect.objectContaining({ pollMessageId: expect.any(String) }) }));
  });
});
