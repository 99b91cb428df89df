import type { OutboundContent } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { sentEvent } from "./sent.ts";

// The events of what the API sent (events/sent.ts): a reaction, edit or revocation sent through
// the API carries its `type` and its chat's fields, as the received ones do (events/inbound.ts);
// a poll vote is `poll.vote`, as one from the phone.

const CHAT = "5511988887777@c.us";
const me = { phone: "5511911112222", pushName: "Loja", kind: "standard" as const };
const result = { id: "3EB0SENT0001", chatId: CHAT, timestamp: 1_767_225_600 };
const avatar = (chatId: string) => `https://gw.example/avatar/${chatId}`;
const chat = { chatLid: "123456789@lid", chatName: "Bia" };

describe("sent reactions, edits and revocations", () => {
  it.each([
    [{ type: "reaction", targetId: "3EB0TARGET01", emoji: "👍" }, "message.reaction", "reaction"],
    [{ type: "edit", targetId: "3EB0TARGET01", text: "corrigido" }, "message.edited", "edit"],
    [{ type: "revoke", targetId: "3EB0TARGET01" }, "message.revoked", "revoke"],
  ] as const)("%o → %s with type %s", (content, kind, type) => {
    const out = sentEvent(me, CHAT, content as OutboundContent, {}, result, avatar, chat);
    expect(out?.kind).toBe(kind);
    expect(out?.payload).toMatchObject({
      type,
      chatId: CHAT,
      chatLid: "123456789@lid",
      chatName: "Bia",
      chatPicture: avatar(CHAT),
      fromMe: true,
      source: "api",
      messageId: `true_${CHAT}_3EB0TARGET01`,
    });
  });

  it("a reaction names the message it reacts to as stored: someone else's too (not always ours)", () => {
    const reaction = { type: "reaction", targetId: "3A6FRECEIVED", emoji: "👍" } as OutboundContent;
    const theirs = sentEvent(me, CHAT, reaction, {}, result, avatar, { ...chat, targetFromMe: false });
    expect(theirs?.payload.messageId).toBe(`false_${CHAT}_3A6FRECEIVED`);
    const ours = sentEvent(me, CHAT, reaction, {}, result, avatar, { ...chat, targetFromMe: true });
    expect(ours?.payload.messageId).toBe(`true_${CHAT}_3A6FRECEIVED`);
  });

  it("a poll vote is poll.vote, shaped as the phone's own vote (the poll named as ours or theirs)", () => {
    const vote = { type: "poll_vote", pollId: "3EB0POLL0001", votes: ["sim", "não"] } as OutboundContent;
    const theirs = sentEvent(me, CHAT, vote, {}, result, avatar, chat);
    expect(theirs?.kind).toBe("poll.vote");
    expect(theirs?.payload).toEqual({
      id: `true_${CHAT}_3EB0SENT0001`,
      chatId: CHAT,
      chatLid: "123456789@lid",
      isGroup: false,
      chatName: "Bia",
      chatPicture: avatar(CHAT),
      fromMe: true,
      from: {
        id: "5511911112222@c.us",
        phone: "5511911112222",
        lid: null,
        pushName: "Loja",
        picture: avatar("5511911112222@c.us"),
      },
      timestamp: 1_767_225_600,
      source: "api",
      type: "poll_vote",
      pollId: `false_${CHAT}_3EB0POLL0001`,
      selectedOptions: ["sim", "não"],
      raw: vote,
    });
    const ours = sentEvent(me, CHAT, vote, {}, result, avatar, { ...chat, targetFromMe: true });
    expect(ours?.payload.pollId).toBe(`true_${CHAT}_3EB0POLL0001`);
  });
});

describe("raw: what the event carries of the content", () => {
  // `raw` goes to the event streams and webhook deliveries (Redis): no media byte in it.
  const header = { mediaType: "image" as const, media: { data: "iVBORw0KGgo=", mimetype: "image/png" } };
  it.each([
    { type: "template", name: "pedido", language: "pt_BR", header },
    { type: "buttons", text: "Escolha", buttons: [{ id: "a", title: "A" }], header },
  ] as const)("a $type's header file is named, its bytes left out", (content) => {
    const out = sentEvent(me, CHAT, content as OutboundContent, {}, result, avatar, chat);
    expect(out?.payload.raw).toEqual({
      ...content,
      header: { mediaType: "image", media: { mimetype: "image/png" } },
    });
    expect(JSON.stringify(out?.payload)).not.toContain(header.media.data);
  });

  it("a text header is kept as it is", () => {
    const content = { type: "template", name: "pedido", language: "pt_BR", header: { text: "Olá" } } as const;
    expect(sentEvent(me, CHAT, content, {}, result, avatar, chat)?.payload.raw).toBe(content);
  });
});
