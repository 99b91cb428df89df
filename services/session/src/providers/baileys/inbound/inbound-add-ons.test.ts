import { randomBytes } from "node:crypto";
import {
  aesEncryptGCM,
  generateWAMessageContent,
  generateWAMessageFromContent,
  hmacSign,
  proto,
  type WAMessage,
} from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import {
  CONTACT_PN,
  dmKey,
  encryptVote,
  GROUP,
  groupKey,
  lookups,
  ME,
  ME_LID,
  ME_PN,
  MEMBER_LID,
  MEMBER_PARTY,
  MEMBER_PN,
  map,
  POLL_OPTIONS,
  T,
  wa,
} from "../test/inbound-messages.ts";
import { parseStoredMessage, storedForm } from "./inbound.ts";

/**
 * The add-ons decrypted here (inbound-add-ons.ts, through inbound.ts' `toInboundMessage`): poll
 * votes and calendar event responses, encrypted as the voter's or responder's client would, with
 * the poll or event as the session keeps it.
 */

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
