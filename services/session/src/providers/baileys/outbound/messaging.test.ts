import { ApiError } from "@gw/contracts";
import { DisconnectReason, type WAMessage, type WAMessageKey } from "@whiskeysockets/baileys";
import { describe, expect, it, vi } from "vitest";
import type { ProviderSession } from "../../contract.ts";
import { silentSuite } from "../test/paired-rig.ts";
import { ready, type SessionRigOptions, sessionRig } from "../test/session-rig.ts";
import { apiError, Boom, storePairedCreds, waitFor } from "../test/testing.ts";

/**
 * The session's messaging operations (messaging.ts: send, checkExists, markRead, presence) on a
 * paired session whose real Baileys socket is open towards a silent local endpoint
 * (test/session-rig.ts): the calls Baileys gets, the answers, and calls without a connection.
 */

const suite = silentSuite();
const rig = (opts: SessionRigOptions = {}) => sessionRig(suite, opts);

/**
 * Bound for "answered at once, without waiting for the network": far below the 30 s timeouts
 * the rigs of those tests give Baileys, far above a slow machine's GC pauses and scheduling.
 */
const NO_WAIT_MS = 5_000;

describe("Baileys session: messaging", () => {
  const CONTACT = "5511988887777";
  const CHAT = `${CONTACT}@c.us`;
  const CHAT_JID = `${CONTACT}@s.whatsapp.net`;
  const GROUP = "120363012345678901@g.us";
  const text = { type: "text", text: "oi" } as const;

  /** A paired session whose real socket is open towards our silent endpoint. */
  async function openRig(opts: Parameters<typeof rig>[0] = {}) {
    const store = await suite.h.storeFor(suite.h.newInstanceId());
    await storePairedCreds(store);
    const r = await rig({ store, ...opts });
    await r.session.start();
    await ready(r);
    r.sock().ev.emit("connection.update", { connection: "open" });
    return r;
  }

  const allCalls = (s: ProviderSession) => [
    () => s.send(CHAT, text),
    () => s.checkExists(CONTACT),
    () => s.markRead(CHAT, ["3A1B2C3D4E5F60718293"]),
    () => s.presence("composing", CHAT),
  ];

  it("every call needs an open connection: answered at once, never a hang (422 stopped, 503 while connecting)", async () => {
    // Baileys' timeouts far above the bound below: a call that waited for the network (a query,
    // the handshake) instead of answering at once would take 30 s, not a few.
    const r = await rig({ queryTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
    const check = async (code: string) => {
      for (const call of allCalls(r.session)) {
        const t = Date.now();
        expect((await apiError(call())).code).toBe(code);
        expect(Date.now() - t).toBeLessThan(NO_WAIT_MS);
      }
    };
    await check("instance_not_connected"); // never started
    await r.session.start();
    await ready(r);
    await check("network_unavailable"); // a real socket that never opened: connecting, transient
    await r.session.stop();
    await check("instance_not_connected"); // stopped
  });

  it("send: the call Baileys gets, and the answer (network id, @c.us chat, seconds)", async () => {
    const r = await openRig();
    const sock = r.sock();
    const sendMessage = vi.spyOn(sock, "sendMessage");
    const before = suite.net.framesReceived();
    const t0 = Math.floor(Date.now() / 1000);
    const result = await r.session.send(
      CHAT,
      { type: "text", text: "oi @5511977776666" },
      { id: "3EB0AAAABBBBCCCCDDDD01", mentions: ["5511977776666@c.us"] },
    );
    expect(sendMessage).toHaveBeenCalledWith(
      CHAT_JID,
      { text: "oi @5511977776666", mentions: ["5511977776666@s.whatsapp.net"] },
      { messageId: "3EB0AAAABBBBCCCCDDDD01" },
    );
    // Baileys' device queries go unanswered here; it still relays the stanza to our endpoint.
    expect(result).toEqual({ id: "3EB0AAAABBBBCCCCDDDD01", chatId: CHAT, timestamp: expect.any(Number) });
    expect(result.timestamp).toBeGreaterThanOrEqual(t0);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before));

    // nothing reaches Baileys for what cannot be sent faithfully
    sendMessage.mockClear();
    const quote = await apiError(r.session.send(CHAT, text, { quotedId: `false_${CHAT}_3A00` }));
    expect(quote.details).toEqual({ reply_to: "mensagem não encontrada" });
    const vote = await apiError(
      r.session.send(CHAT, { type: "poll_vote", pollId: `false_${CHAT}_3A00`, votes: ["a"] }),
    );
    // A vote needs the poll as stored (its secret): unknown here.
    expect(vote.code).toBe("validation_error");
    expect(vote.details).toHaveProperty("pollMessageId");
    expect((await apiError(r.session.send("bogus", text))).details).toHaveProperty("chatId");
    expect(sendMessage).not.toHaveBeenCalled();
  });

  it("send: the sent message is kept for Baileys' retries (getMessage), quotes by bare id and votes on our poll", async () => {
    const r = await openRig(); // the session's own store of raw messages, no lookup of the test's
    const sock = r.sock();
    const sent = await r.session.send(CHAT, { type: "text", text: "guardada" });
    // Baileys asks getMessage when the recipient's device requests a retry: the content is there.
    const retry = await r.configs[0]!.getMessage?.({ remoteJid: CHAT_JID, fromMe: true, id: sent.id });
    expect(JSON.stringify(retry)).toContain("guardada");

    const sendMessage = vi.spyOn(sock, "sendMessage");
    await r.session.send(CHAT, { type: "text", text: "citando" }, { quotedId: sent.id });
    const quoted = (sendMessage.mock.calls[0]?.[2] as { quoted?: WAMessage } | undefined)?.quoted;
    expect(quoted?.key).toMatchObject({ id: sent.id, fromMe: true });

    // A vote on our own poll is encrypted with the poll's secret, which only the kept message has.
    const poll = await r.session.send(CHAT, {
      type: "poll",
      name: "Sim?",
      options: ["sim", "não"],
      multipleAnswers: false,
    });
    const relay = vi.spyOn(sock, "relayMessage");
    const vote = await r.session.send(CHAT, { type: "poll_vote", pollId: poll.id, votes: ["sim"] });
    expect(vote.chatId).toBe(CHAT);
    expect(relay).toHaveBeenCalledTimes(1);
    const relayed = relay.mock.calls[0]![1] as { pollUpdateMessage?: { pollCreationMessageKey?: { id?: string } } };
    expect(relayed.pollUpdateMessage?.pollCreationMessageKey?.id).toBe(poll.id);
  });

  it("send: a quote comes from the session's message lookup (also Baileys' getMessage)", async () => {
    const stored: WAMessage = {
      key: { remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" },
      message: { conversation: "pergunta" },
    };
    const asked: WAMessageKey[] = [];
    const r = await openRig({
      loadMessage: async (key) => {
        asked.push(key);
        return key.id === stored.key.id ? stored : undefined;
      },
    });
    expect(await r.configs[0]!.getMessage?.(stored.key)).toEqual({ conversation: "pergunta" });
    const sendMessage = vi.spyOn(r.sock(), "sendMessage");
    await r.session.send(CHAT, { type: "text", text: "resposta" }, { quotedId: `false_${CHAT}_3A0000000000000000AB` });
    expect(sendMessage.mock.calls[0]?.[2]).toEqual({ quoted: stored });
    expect(asked.at(-1)).toEqual({ remoteJid: CHAT_JID, fromMe: false, id: "3A0000000000000000AB" });
  });

  it("send with mentions 'all': participants read once and cached; dropped when the group changes", async () => {
    const r = await openRig();
    const sock = r.sock();
    const groupMetadata = vi.spyOn(sock, "groupMetadata");
    // The real query goes unanswered here: a timeout.
    expect((await apiError(r.session.send(GROUP, text, { mentions: ["all"] }))).code).toBe("network_timeout");
    expect(groupMetadata).toHaveBeenCalledWith(GROUP);

    // The network's answer, for the caching: us (PN and LID) and two others.
    groupMetadata.mockResolvedValue({
      id: GROUP,
      subject: "Equipe",
      owner: undefined,
      participants: [
        { id: "5511999999999@s.whatsapp.net" },
        { id: "123456789@lid" },
        { id: "222233334444555@lid" },
        { id: CHAT_JID },
      ],
    });
    groupMetadata.mockClear();
    const sendMessage = vi.spyOn(sock, "sendMessage");
    for (let i = 0; i < 2; i++) {
      // Baileys' relay takes the same metadata (cachedGroupMetadata): no query of its own.
      expect((await r.session.send(GROUP, text, { mentions: ["all"] })).chatId).toBe(GROUP);
    }
    expect(groupMetadata).toHaveBeenCalledTimes(1);
    expect(sendMessage.mock.calls[0]?.[1]).toEqual({ text: "oi", mentions: ["222233334444555@lid", CHAT_JID] });
    sock.ev.emit("group-participants.update", {
      id: GROUP,
      author: "5511999999999@s.whatsapp.net",
      participants: [],
      action: "add",
    });
    // The event itself asks for the group's name once (the groups area names the group in its event).
    await vi.waitFor(() => expect(groupMetadata).toHaveBeenCalledTimes(2));
    await r.session.send(GROUP, text, { mentions: ["all"] });
    // The group's metadata was dropped with the change: the send reads it again.
    expect(groupMetadata).toHaveBeenCalledTimes(3);
  });

  it("checkExists: onWhatsApp with the number, then its ninth-digit form; LID from the mapping store", async () => {
    const r = await openRig();
    const sock = r.sock();
    const onWhatsApp = vi.spyOn(sock, "onWhatsApp");
    // unanswered query: a timeout, not "does not exist"
    expect((await apiError(r.session.checkExists("+55 11 98888-7777"))).code).toBe("network_timeout");
    expect(onWhatsApp).toHaveBeenCalledWith("5511988887777");

    // The network's answers: registered in the old 8-digit form only.
    onWhatsApp.mockReset();
    onWhatsApp.mockImplementation(async (n) =>
      n === "551188887777" ? [{ jid: `${n}@s.whatsapp.net`, exists: true }] : [],
    );
    // a real mapping in the session's own key store (Baileys' LID mapping store over our Redis)
    await sock.signalRepository.lidMapping.storeLIDPNMappings([
      { lid: "222233334444555@lid", pn: "551188887777@s.whatsapp.net" },
    ]);
    expect(await r.session.checkExists("5511988887777")).toEqual({
      exists: true,
      chatId: "551188887777@c.us",
      lid: "222233334444555@lid",
    });
    expect(onWhatsApp.mock.calls).toEqual([["5511988887777"], ["551188887777"]]);

    onWhatsApp.mockClear();
    expect(await r.session.checkExists("5511933334444")).toEqual({ exists: false, chatId: null, lid: null });
    expect(onWhatsApp.mock.calls).toEqual([["5511933334444"]]); // no ninth-digit form for it
    expect((await apiError(r.session.checkExists("12"))).details).toHaveProperty("phone");
    expect((await apiError(r.session.checkExists("123456789012345@lid"))).code).toBe("validation_error");
  });

  it("markRead: read receipts for others' messages, keys from chat and ids; unanswered = timeout", async () => {
    const r = await openRig();
    const readMessages = vi.spyOn(r.sock(), "readMessages");
    const err = await apiError(
      r.session.markRead(CHAT, ["3A1B2C3D4E5F60718293", `true_${CHAT}_3EB0AB`, `false_${CHAT}_3A99`]),
    );
    // readMessages asks for our privacy settings first; nobody answers here
    expect(err.code).toBe("network_timeout");
    expect(readMessages).toHaveBeenCalledWith([
      { remoteJid: CHAT_JID, id: "3A1B2C3D4E5F60718293", fromMe: false },
      { remoteJid: CHAT_JID, fromMe: false, id: "3A99" },
    ]);
    readMessages.mockClear();
    await expect(
      r.session.markRead(GROUP, [`false_${GROUP}_3A77_5511977776666@c.us`]).catch((e: ApiError) => e.code),
    ).resolves.toBe("network_timeout");
    expect(readMessages).toHaveBeenCalledWith([
      { remoteJid: GROUP, fromMe: false, id: "3A77", participant: "5511977776666@s.whatsapp.net" },
    ]);
    // a bare id in a group does not say whose it was; own messages alone: nothing to send
    readMessages.mockClear();
    expect((await apiError(r.session.markRead(GROUP, ["3A77"]))).details).toHaveProperty("messageIds");
    await r.session.markRead(CHAT, [`true_${CHAT}_3EB0AB`]);
    expect(readMessages).not.toHaveBeenCalled();
  });

  it("presence: chat states to the chat, online/offline for the account (needs the push name)", async () => {
    const r = await openRig();
    const sock = r.sock();
    const sendPresenceUpdate = vi.spyOn(sock, "sendPresenceUpdate");
    const before = suite.net.framesReceived();
    await r.session.presence("composing", CHAT);
    await r.session.presence("recording", GROUP);
    await r.session.presence("paused", CHAT);
    await r.session.presence("available");
    await r.session.presence("unavailable", CHAT);
    expect(sendPresenceUpdate.mock.calls).toEqual([
      ["composing", CHAT_JID],
      ["recording", GROUP],
      ["paused", CHAT_JID],
      ["available", undefined],
      ["unavailable", undefined],
    ]);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThanOrEqual(before + 5));
    expect((await apiError(r.session.presence("composing"))).details).toHaveProperty("chatId");
    sock.authState.creds.me = { ...sock.authState.creds.me!, name: "" };
    expect((await apiError(r.session.presence("available"))).code).toBe("bad_request");
  });

  it("a call in flight answers 503 network_unavailable as soon as the connection drops (was 422)", async () => {
    // The query would otherwise wait out its 30 s timeout (Baileys' end() drops its listeners).
    const r = await openRig({ queryTimeoutMs: 30_000 });
    const before = suite.net.framesReceived();
    const pending = r.session.checkExists(CONTACT).catch((e: unknown) => e);
    await waitFor(() => expect(suite.net.framesReceived()).toBeGreaterThan(before)); // the query went out
    const t = Date.now();
    await r.sock().end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    const err = await pending;
    expect(err).toBeInstanceOf(ApiError);
    // Nothing reached the network: transient, repeat after Retry-After (contracts failures.ts).
    expect(err).toMatchObject({ code: "network_unavailable", status: 503, retryAfter: 2 });
    expect(Date.now() - t).toBeLessThan(NO_WAIT_MS);
  });

  it("a send in flight when the connection drops answers network_timeout: it may have left (not 'not sent')", async () => {
    const r = await openRig({ queryTimeoutMs: 30_000 });
    const sock = r.sock();
    let started = false;
    // The stanza is on its way; the network's answer never comes back on this socket.
    vi.spyOn(sock, "sendMessage").mockImplementation(() => {
      started = true;
      return new Promise(() => {});
    });
    const pending = r.session.send(CHAT, { type: "text", text: "no ar" }).catch((e: unknown) => e);
    await waitFor(() => expect(started).toBe(true));
    await sock.end(new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed }));
    const err = await pending;
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("network_timeout");
  });
});
