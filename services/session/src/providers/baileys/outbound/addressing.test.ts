import { createHash } from "node:crypto";
import { addressForm, oneToOneVerdict, type RecipientRules, statusVerdict } from "@gw/simnet/addressing-rules";
import {
  type AnyMessageContent,
  decodeMessageNode,
  decryptPollVote,
  type GroupMetadata,
  jidNormalizedUser,
  type MiscMessageGenerationOptions,
  type proto,
  type WAMessage,
  type WASocket,
} from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import type { ProviderEvent } from "../../contract.ts";
import { parseStoredMessage } from "../inbound/inbound.ts";
import { openPaired, type Paired, silentSuite } from "../test/paired-rig.ts";
import { PAIRED_ME } from "../test/testing.ts";

/**
 * Sends that follow the network's addressing (providers/addressing.ts, address-fallback.ts) on a
 * real Baileys socket. The network is played by simnet's own rules (addressing-rules.ts): every
 * message the session hands Baileys gets the network's answer those rules give — a bad ack
 * (`<ack class="message" error="463">`, handled by Baileys' own handleBadAck) or a delivery
 * receipt — so the provider and simnet are held to the same behaviour. Received messages are
 * built by Baileys' own `decodeMessageNode` from the stanza the network sends.
 */

const ME_LID = jidNormalizedUser(PAIRED_ME.lid);
const PHONE = "5511988887777";
const PN = `${PHONE}@s.whatsapp.net`;
const CHAT = `${PHONE}@c.us`;
const LID = "222233334444555@lid";
const GROUP = "120363000000000077@g.us";

const suite = silentSuite();

interface Rig extends Paired {
  /** Every JID a message went to (sendMessage or relayMessage), in order. */
  sentTo: string[];
  /** sendMessage's calls. */
  sends: { jid: string; content: AnyMessageContent; options: MiscMessageGenerationOptions }[];
  relays: { jid: string; message: proto.IMessage }[];
  acks(id: string): Extract<ProviderEvent, { type: "ack" }>[];
}

/**
 * A paired session whose socket's sends are answered by the network's rules for one contact
 * (`rules`), who wrote to us before or not (`replied`). A status post gets the status rule.
 */
async function openRig(rules: RecipientRules, opts: { replied?: boolean; meAddressing?: "lid" | "any" } = {}) {
  const p = await openPaired(suite);
  const sock = p.sock;
  const sentTo: string[] = [];
  const sends: Rig["sends"] = [];
  const relays: Rig["relays"] = [];
  const answer = (jid: string, id: string, audience: string[] = []) => {
    const code =
      jid === "status@broadcast"
        ? statusVerdict({ addressing: opts.meAddressing ?? "lid" }, audience)
        : jid.endsWith("@g.us")
          ? null
          : oneToOneVerdict(rules, addressForm(jid), opts.replied ?? false);
    // After the send's own echo (the network answers after accepting it).
    setTimeout(() => {
      if (code !== null) {
        sock.ws.emit("CB:ack,class:message", {
          tag: "ack",
          attrs: { class: "message", id, from: jid, error: String(code) },
        });
      } else {
        sock.ev.emit("messages.update", [{ key: { remoteJid: jid, fromMe: true, id }, update: { status: 3 } }]);
      }
    }, 150);
  };
  const send = sock.sendMessage.bind(sock);
  vi.spyOn(sock, "sendMessage").mockImplementation(async (jid, content, options = {}) => {
    sentTo.push(jid);
    sends.push({ jid, content, options });
    const sent = await send(jid, content, options);
    if (sent?.key.id) answer(jid, sent.key.id, (options as { statusJidList?: string[] }).statusJidList ?? []);
    return sent;
  });
  const relay = sock.relayMessage.bind(sock);
  vi.spyOn(sock, "relayMessage").mockImplementation(async (jid, message, options) => {
    sentTo.push(jid);
    relays.push({ jid, message });
    const id = await relay(jid, message, options);
    answer(jid, id);
    return id;
  });
  const acks = (id: string) =>
    p.events.filter((e): e is Extract<ProviderEvent, { type: "ack" }> => e.type === "ack" && e.id === id);
  return { ...p, sentTo, sends, relays, acks } satisfies Rig;
}

/** The pair the network told Baileys (usync, a message's alt JID), in its own LID store. */
const knowPair = (sock: WASocket) => sock.signalRepository.lidMapping.storeLIDPNMappings([{ lid: LID, pn: PN }]);

/** A one-to-one message from the contact as the network sends it, decoded by Baileys (key with its v7 fields). */
function received(id: string, attrs: Record<string, string>): WAMessage {
  const { fullMessage } = decodeMessageNode(
    { tag: "message", attrs: { id, type: "text", t: "1790000000", notify: "Bia", ...attrs }, content: [] },
    PAIRED_ME.id,
    PAIRED_ME.lid,
  );
  return { ...fullMessage, message: { conversation: "oi, tudo bem?" } };
}

const waitAck = (r: Rig, id: string, status: string) =>
  vi.waitFor(() => expect(r.acks(id).map((a) => a.status)).toContain(status), { timeout: 8_000 });

describe("Baileys addressing: where one-to-one sends go", () => {
  it("a LID-migrated contact: refused on the number (463), relayed once to its LID under the same id, delivered; the next send goes to the LID", async () => {
    const r = await openRig({ addressing: "lid", refusesFirstContact: false });
    await knowPair(r.sock);
    const out = await r.session.send(CHAT, { type: "text", text: "seu pedido saiu" });
    expect(out.chatId).toBe(CHAT);
    await waitAck(r, out.id, "delivered");
    expect(r.sentTo).toEqual([PN, LID]);
    expect(r.relays[0]?.message.extendedTextMessage?.text ?? r.relays[0]?.message.conversation).toBe("seu pedido saiu");
    // No failed ack: the retry was ours; the delivery names the number (spec 1 rule 3).
    expect(r.acks(out.id).map((a) => [a.status, a.chatId])).toEqual([["delivered", CHAT]]);
    // The stored message now names the LID (quotes and reactions of it go there).
    expect(parseStoredMessage(r.raw.get(out.id) ?? "{}").key.remoteJid).toBe(LID);

    const next = await r.session.send(CHAT, { type: "text", text: "chega amanhã" });
    await waitAck(r, next.id, "delivered");
    expect(r.sentTo.slice(2)).toEqual([LID]);
  });

  it("a conversation that arrives on the LID is answered on the LID: text, quote, reaction, typing and receipts", async () => {
    const r = await openRig({ addressing: "lid", refusesFirstContact: false });
    const msg = received("3A0000000000000000C1", { from: LID, sender_pn: PN });
    expect(msg.key).toMatchObject({ remoteJid: LID, remoteJidAlt: PN, addressingMode: "lid" });
    r.sock.ev.emit("messages.upsert", { type: "notify", messages: [msg] });
    await vi.waitFor(() => expect(r.events.some((e) => e.type === "message")).toBe(true));
    const inbound = r.events.find((e) => e.type === "message");
    const quotedId = inbound?.type === "message" ? `false_${inbound.message.chatId}_${inbound.message.id}` : "";
    expect(quotedId).toBe(`false_${CHAT}_3A0000000000000000C1`);

    const reply = await r.session.send(CHAT, { type: "text", text: "tudo sim" }, { quotedId });
    expect(r.sends[0]?.jid).toBe(LID);
    // The quote names this chat: Baileys sets contextInfo.remoteJid only for a quote from another chat.
    expect(r.sends[0]?.options.quoted?.key.remoteJid).toBe(LID);
    await r.session.send(CHAT, { type: "reaction", targetId: quotedId, emoji: "👍" });
    expect(r.sends[1]).toMatchObject({
      jid: LID,
      content: { react: { key: { remoteJid: LID, id: "3A0000000000000000C1" } } },
    });
    await waitAck(r, reply.id, "delivered");
    expect(r.acks(reply.id).some((a) => a.status === "failed")).toBe(false);

    const presence = vi.spyOn(r.sock, "sendPresenceUpdate").mockResolvedValue();
    await r.session.presence("composing", CHAT);
    expect(presence).toHaveBeenCalledWith("composing", LID);
    const read = vi.spyOn(r.sock, "readMessages").mockResolvedValue();
    await r.session.markRead(CHAT, [quotedId]);
    expect(read).toHaveBeenCalledWith([{ remoteJid: LID, fromMe: false, id: "3A0000000000000000C1" }]);
  });

  it("a contact still on its number: a send to its LID goes to the number", async () => {
    const r = await openRig({ addressing: "pn", refusesFirstContact: false });
    const msg = received("3A0000000000000000C2", { from: PN, sender_lid: LID });
    expect(msg.key).toMatchObject({ remoteJid: PN, remoteJidAlt: LID, addressingMode: "pn" });
    r.sock.ev.emit("messages.upsert", { type: "notify", messages: [msg] });
    await vi.waitFor(() => expect(r.events.some((e) => e.type === "message")).toBe(true));
    const out = await r.session.send(LID, { type: "text", text: "pelo lid?" });
    expect(r.sentTo).toEqual([PN]);
    expect(out.chatId).toBe(CHAT);
    await waitAck(r, out.id, "delivered");
  });

  it("a first contact refused on both addresses: failed, network_rejected with the network's code and its cause", async () => {
    const r = await openRig({ addressing: "any", refusesFirstContact: true });
    await knowPair(r.sock);
    const out = await r.session.send(CHAT, { type: "text", text: "promoção" });
    await waitAck(r, out.id, "failed");
    expect(r.sentTo).toEqual([PN, LID]);
    const [failed] = r.acks(out.id);
    expect(failed).toMatchObject({
      status: "failed",
      error: {
        code: "network_rejected",
        networkCode: 463,
        message: expect.stringMatching(/erro 463.*primeiro contato.*outro endereço do contato também foi tentado/),
      },
    });
  });

  it("a refusal with no other address known: failed at once, saying so", async () => {
    const r = await openRig({ addressing: "lid", refusesFirstContact: false });
    vi.spyOn(r.sock.signalRepository.lidMapping, "getLIDForPN").mockResolvedValue(null);
    const out = await r.session.send(CHAT, { type: "text", text: "oi" });
    await waitAck(r, out.id, "failed");
    expect(r.sentTo).toEqual([PN]);
    expect(r.acks(out.id)[0]?.error).toMatchObject({
      networkCode: 463,
      message: expect.stringMatching(/Não há outro endereço/),
    });
  });
});

describe("Baileys addressing: status posts", () => {
  it("the audience by LID where the pair is known, and our own LID: delivered; named by number: 479 reported", async () => {
    const r = await openRig({ addressing: "any", refusesFirstContact: false });
    await knowPair(r.sock);
    const other = "5511977776666@c.us";
    vi.spyOn(r.sock.signalRepository.lidMapping, "getLIDForPN").mockImplementation(async (pn) =>
      jidNormalizedUser(pn) === PN ? LID : null,
    );
    const ok = await r.session.send(
      "status@broadcast",
      { type: "text", text: "novidades" },
      { status: { audience: [CHAT] } },
    );
    expect(r.sends[0]?.options.statusJidList).toEqual([LID, ME_LID]);
    await waitAck(r, ok.id, "delivered");

    const refused = await r.session.send(
      "status@broadcast",
      { type: "text", text: "promo" },
      { status: { audience: [other] } },
    );
    expect(r.sends[1]?.options.statusJidList).toEqual(["5511977776666@s.whatsapp.net", ME_LID]);
    await waitAck(r, refused.id, "failed");
    expect(r.acks(refused.id)[0]).toMatchObject({
      chatId: "status@broadcast",
      error: { code: "network_rejected", networkCode: 479, message: expect.stringMatching(/erro 479/) },
    });
  });
});

describe("Baileys addressing: poll votes", () => {
  const hash = (s: string) => createHash("sha256").update(s).digest();

  it("a vote on our own poll in a LID-addressed group is signed as our LID, as Baileys sends group messages", async () => {
    const r = await openRig({ addressing: "any", refusesFirstContact: false });
    const metadata: GroupMetadata = {
      id: GROUP,
      subject: "Equipe",
      addressingMode: "lid" as GroupMetadata["addressingMode"],
      participants: [
        { id: ME_LID, admin: null },
        { id: LID, admin: null },
      ],
    } as GroupMetadata;
    r.sock.ev.emit("groups.upsert", [metadata]);
    r.sock.ev.flush();
    const poll = await r.session.send(GROUP, {
      type: "poll",
      name: "Pizza?",
      options: ["sim", "não"],
      multipleAnswers: false,
    });
    // As Baileys keeps our own group sends: no key.participant, our number at the top (messages.js).
    const stored = parseStoredMessage(r.raw.get(poll.id) ?? "{}");
    expect(stored.key.participant).toBeUndefined();
    await r.session.send(GROUP, { type: "poll_vote", pollId: poll.id, votes: ["sim"] });
    const vote = r.relays.at(-1)?.message.pollUpdateMessage;
    expect(vote?.pollCreationMessageKey?.id).toBe(poll.id);
    const secret = stored.message?.messageContextInfo?.messageSecret as Uint8Array;
    // What another member decrypts with: the poll's and the vote's sender as the group shows them, our LID.
    const decrypted = decryptPollVote(vote!.vote as proto.Message.IPollEncValue, {
      pollCreatorJid: ME_LID,
      pollMsgId: poll.id,
      pollEncKey: secret,
      voterJid: ME_LID,
    });
    expect(decrypted.selectedOptions.map((b) => Buffer.from(b))).toEqual([hash("sim")]);
  });

  it("a vote in a one-to-one chat on the LID is signed as our LID and goes to the LID", async () => {
    const r = await openRig({ addressing: "lid", refusesFirstContact: false });
    const msg = received("3A0000000000000000C3", { from: LID, sender_pn: PN });
    r.sock.ev.emit("messages.upsert", { type: "notify", messages: [msg] });
    await vi.waitFor(() => expect(r.events.some((e) => e.type === "message")).toBe(true));
    const poll = await r.session.send(CHAT, {
      type: "poll",
      name: "Entrega?",
      options: ["manhã", "tarde"],
      multipleAnswers: false,
    });
    expect(r.sentTo[0]).toBe(LID);
    await r.session.send(CHAT, { type: "poll_vote", pollId: poll.id, votes: ["tarde"] });
    expect(r.relays.at(-1)?.jid).toBe(LID);
    const stored = parseStoredMessage(r.raw.get(poll.id) ?? "{}");
    const decrypted = decryptPollVote(r.relays.at(-1)!.message.pollUpdateMessage!.vote as proto.Message.IPollEncValue, {
      pollCreatorJid: ME_LID,
      pollMsgId: poll.id,
      pollEncKey: stored.message?.messageContextInfo?.messageSecret as Uint8Array,
      voterJid: ME_LID,
    });
    expect(decrypted.selectedOptions.map((b) => Buffer.from(b))).toEqual([hash("tarde")]);
  });
});
