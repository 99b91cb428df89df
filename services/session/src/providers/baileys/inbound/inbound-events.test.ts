import { randomBytes } from "node:crypto";
import type { InboundMessage } from "@gw/contracts";
import {
  generateWAMessageContent,
  generateWAMessageFromContent,
  proto,
  type WAMessageKey,
} from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import {
  CONTACT_LID,
  CONTACT_PN,
  dmKey,
  encryptVote,
  GROUP,
  groupKey,
  ME,
  MEMBER_LID,
  POLL_OPTIONS,
  STRANGER_LID,
  T,
  wa,
} from "../test/inbound-messages.ts";
import { openPaired, type Paired, silentSuite } from "../test/paired-rig.ts";
import { parseStoredMessage } from "./inbound.ts";

/**
 * The inbound side wired in the session (inbound-events.ts): a paired session on a real Baileys
 * socket (towards a silent local endpoint) whose event emitter plays the network; messages,
 * derived events, acks and chat names as the session reports them.
 */

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
