import type { InboundMessage } from "@gw/contracts";
import type { IdentityMap } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { channelReactionMessage } from "../providers/channel-reaction.ts";
import { channelReactionOf } from "../providers/sim/areas/channels.ts";
import { inboundPayload } from "./inbound.ts";

// The spec 2.11 payloads of received messages (events/inbound.ts), the one builder of every
// provider's messages: messages about another message carry their `type`, and a channel post's
// reaction (sim and Baileys alike, providers/channel-reaction.ts) is built as any reaction.

const identity = {
  learn: async () => {},
  rewrite: async (_instance: string, id: string | null | undefined) => id ?? null,
} as unknown as IdentityMap;

const opts = {
  mediaUrl: () => null,
  avatarUrl: (chatId: string) => `https://gw.example/avatar/${chatId}`,
  quotedFromMe: async () => false,
  chatName: async (chatId: string) => (chatId === CHANNEL ? "Ofertas" : null),
};

const CHAT = "5511988887777@c.us";
const CHANNEL = "120363000000000001@newsletter";

function message(over: Partial<InboundMessage>): InboundMessage {
  return {
    id: "3EB0AAAA0001",
    chatId: CHAT,
    chatLid: null,
    chatName: "Bia",
    isGroup: false,
    fromMe: false,
    from: { id: CHAT, phone: "5511988887777", lid: null, pushName: "Bia" },
    timestamp: 1_767_225_600,
    type: "text",
    text: null,
    media: null,
    raw: {},
    ...over,
  };
}

describe("messages about another message carry their type", () => {
  it.each<[string, string, Partial<InboundMessage>]>([
    ["reaction", "message.reaction", { emoji: "👍" }],
    ["edit", "message.edited", { text: "corrigido" }],
    ["revoke", "message.revoked", {}],
    ["poll_vote", "poll.vote", { selectedOptions: ["sim"] }],
    ["event_response", "event.response", { response: "going" }],
  ])("%s → %s", async (type, kind, extra) => {
    const out = await inboundPayload("i1", message({ type, targetId: "3EB0TARGET01", ...extra }), identity, opts);
    expect(out.kind).toBe(kind);
    expect(out.payload.type).toBe(type);
  });
});

describe("a channel post's reaction, as every reaction", () => {
  const reaction = (over: Partial<Parameters<typeof channelReactionMessage>[0]> = {}) =>
    channelReactionMessage({
      channelId: CHANNEL,
      serverId: "101",
      postId: null,
      emoji: "❤️",
      timestamp: 1_767_225_600,
      raw: { id: CHANNEL, server_id: "101" },
      ...over,
    });

  it("has the fields of a reaction: chat and sender pictures, the chat's name, type, a stable id", async () => {
    const out = await inboundPayload("i1", reaction(), identity, opts);
    expect(out.kind).toBe("message.reaction");
    expect(out.payload).toEqual({
      id: `false_${CHANNEL}_R101.2764-fe0f`,
      chatId: CHANNEL,
      chatLid: null,
      isGroup: false,
      chatName: "Ofertas", // the name the instance learnt (the notification has none)
      chatPicture: `https://gw.example/avatar/${CHANNEL}`,
      fromMe: false,
      from: { id: CHANNEL, phone: "", lid: null, pushName: "", picture: `https://gw.example/avatar/${CHANNEL}` },
      timestamp: 1_767_225_600,
      type: "reaction",
      messageId: null, // the post was not seen: it cannot be named
      emoji: "❤️",
      serverId: "101",
      raw: { id: CHANNEL, server_id: "101" },
    });
    // The same notification again: the same id (receivers drop it); another emoji, another id.
    expect((await inboundPayload("i1", reaction(), identity, opts)).payload.id).toBe(out.payload.id);
    expect((await inboundPayload("i1", reaction({ emoji: "👍" }), identity, opts)).payload.id).not.toBe(out.payload.id);
    expect((await inboundPayload("i1", reaction({ emoji: "" }), identity, opts)).payload).toMatchObject({
      id: `false_${CHANNEL}_R101.0`,
      emoji: "",
    });
  });

  it("names the post when known, as the account's own when the provider says so; simnet's count", async () => {
    const out = await inboundPayload(
      "i1",
      reaction({ postId: "3EB0POST0001", postFromMe: true, count: 3, channelName: "Loja" }),
      identity,
      opts,
    );
    expect(out.payload).toMatchObject({
      id: `false_${CHANNEL}_R101.2764-fe0f.3`,
      chatName: "Loja",
      from: { id: CHANNEL, pushName: "Loja" },
      messageId: `true_${CHANNEL}_3EB0POST0001`,
      count: 3,
    });
  });

  it("simnet's event of a channel reaction becomes that message; other reactions' events stay events", () => {
    const event = {
      id: `true_${CHANNEL}_3EB0POST0001`,
      chatId: CHANNEL,
      isGroup: false,
      fromMe: false,
      from: { id: CHANNEL, phone: "", lid: null, pushName: "Loja" },
      timestamp: 1_767_225_600,
      messageId: `true_${CHANNEL}_3EB0POST0001`,
      serverId: "7",
      emoji: "👍",
      count: 2,
    };
    expect(channelReactionOf(event)).toMatchObject({
      id: "R7.1f44d.2",
      chatId: CHANNEL,
      chatName: "Loja",
      type: "reaction",
      targetId: "3EB0POST0001",
      targetFromMe: true,
      serverId: "7",
      count: 2,
      raw: event,
    });
    expect(channelReactionOf({ ...event, chatId: CHAT })).toBeNull();
  });
});
