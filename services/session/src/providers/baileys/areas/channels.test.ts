import { ApiError, channelsCapabilities } from "@gw/contracts";
import {
  type BinaryNode,
  decodeBinaryNode,
  encodeBinaryNode,
  getBinaryNodeChild,
  proto,
  S_WHATSAPP_NET,
} from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { storedForm } from "../inbound/inbound.ts";
import { type AreaHarness, areaHarness } from "../test/area-rig.ts";

/**
 * The channel operations at Baileys' boundary: a real socket whose frames reach a local endpoint
 * that never completes the handshake, so they travel unencrypted and are decoded here into the
 * stanzas Baileys built; the network's answers are handed to the socket as the responses it waits
 * for (`TAG:<id>` on its connection). Notifications are emitted on the socket's own emitter.
 */

const CHANNEL = "120363111111111111@newsletter";
const QUERY = { METADATA: "6563316087068696", CREATE: "8823471724422422", UPDATE: "24250201037901610" };

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

const openRig = () => h.open();
const answer: AreaHarness["answer"] = (sock, match, reply) => h.answer(sock, match, reply);

/** A `w:mex` GraphQL query of `queryId`, with its variables. */
const isMex = (queryId: string) => (n: BinaryNode) =>
  n.attrs.xmlns === "w:mex" && getBinaryNodeChild(n, "query")?.attrs.query_id === queryId;
const variablesOf = (n: BinaryNode) =>
  (
    JSON.parse(Buffer.from(getBinaryNodeChild(n, "query")!.content as Uint8Array).toString()) as {
      variables: Record<string, unknown>;
    }
  ).variables;
const mexResult = (path: string, data: unknown): BinaryNode[] => [
  { tag: "result", attrs: {}, content: Buffer.from(JSON.stringify({ data: { [path]: data } })) },
];

/** Answer nodes as Baileys' decoder yields them from a frame (bytes as Buffers, JIDs as strings). */
const overTheWire = async (content: BinaryNode[]): Promise<BinaryNode[]> =>
  (await decodeBinaryNode(encodeBinaryNode({ tag: "iq", attrs: {}, content }))).content as BinaryNode[];

/** The network's metadata of a channel as `xwa2_newsletter` answers it. */
const metadata = (role = "SUBSCRIBER", mute = "OFF") => ({
  id: CHANNEL,
  state: { type: "ACTIVE" },
  thread_metadata: {
    creation_time: "1700000000",
    name: { id: "1", text: "Loja", update_time: "1" },
    description: { id: "2", text: "Ofertas", update_time: "1" },
    invite: "0029VaAbCdEfGhIjKlMnOp12",
    picture: { id: "3", type: "IMAGE", direct_path: "/v/t61.24694-24/abc?ccb=11" },
    preview: { id: "4", type: "PREVIEW", direct_path: "/v/t61.24694-24/xyz?ccb=11" },
    subscribers_count: "1234",
    verification: "VERIFIED",
  },
  viewer_metadata: { mute, role },
});

describe("Baileys channels: operations", () => {
  it("get by id and by invite: the METADATA query; the answer as the channel (role, muted, CDN links)", async () => {
    const r = await openRig();
    const byId = r.ops["channels.get"]!({ id: CHANNEL });
    const q = await answer(r.sock, isMex(QUERY.METADATA), () =>
      mexResult("xwa2_newsletter", metadata("SUBSCRIBER", "ON")),
    );
    expect(q.attrs).toMatchObject({ type: "get", xmlns: "w:mex", to: "@s.whatsapp.net" });
    expect(variablesOf(q)).toMatchObject({ fetch_viewer_metadata: true, input: { key: CHANNEL, type: "JID" } });
    expect(await byId).toEqual({
      id: CHANNEL,
      name: "Loja",
      description: "Ofertas",
      invite: "0029VaAbCdEfGhIjKlMnOp12",
      picture: { url: "https://mmg.whatsapp.net/v/t61.24694-24/abc?ccb=11" },
      preview: { url: "https://mmg.whatsapp.net/v/t61.24694-24/xyz?ccb=11" },
      role: "subscriber",
      subscribersCount: 1234,
      verified: true,
      muted: true,
    });

    const byInvite = r.ops["channels.get"]!({ invite: "0029VaAbCdEfGhIjKlMnOp12" });
    const qi = await answer(r.sock, isMex(QUERY.METADATA), () => mexResult("xwa2_newsletter", metadata("GUEST")));
    expect(variablesOf(qi).input).toEqual({ key: "0029VaAbCdEfGhIjKlMnOp12", type: "INVITE" });
    const guest = await byInvite;
    expect(guest.role).toBe("guest");
    expect(guest).not.toHaveProperty("muted");
  });

  it("an unknown channel is 404: a null answer, or the network's not-found error", async () => {
    const r = await openRig();
    const nothing = r.ops["channels.get"]!({ id: CHANNEL }).catch((e: unknown) => e);
    await answer(r.sock, isMex(QUERY.METADATA), () => mexResult("xwa2_newsletter", null));
    expect(await nothing).toMatchObject({ code: "not_found" });
    const refused = r.ops["channels.follow"]!({ id: CHANNEL }).catch((e: unknown) => e);
    await answer(r.sock, isMex(QUERY.METADATA), () => [
      {
        tag: "result",
        attrs: {},
        content: Buffer.from(JSON.stringify({ errors: [{ message: "Not found", extensions: { error_code: 404 } }] })),
      },
    ]);
    const err = await refused;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "not_found" });
  });

  it("follow, unfollow, mute, unmute: the channel checked, then the library's mutation with its id", async () => {
    const r = await openRig();
    const ids = {
      follow: "24404358912487870",
      unfollow: "9767147403369991",
      mute: "29766401636284406",
      unmute: "9864994326891137",
    };
    const paths = {
      follow: "xwa2_newsletter_join_v2",
      unfollow: "xwa2_newsletter_leave_v2",
      mute: "xwa2_newsletter_mute_v2",
      unmute: "xwa2_newsletter_unmute_v2",
    };
    for (const verb of ["follow", "unfollow", "mute", "unmute"] as const) {
      const done = r.ops[`channels.${verb}`]!({ id: CHANNEL });
      await answer(r.sock, isMex(QUERY.METADATA), () => mexResult("xwa2_newsletter", metadata()));
      const q = await answer(r.sock, isMex(ids[verb]), () => mexResult(paths[verb], { id: CHANNEL }));
      expect(variablesOf(q)).toEqual({ newsletter_id: CHANNEL });
      expect(await done).toEqual({});
    }
  });

  it("create: the CREATE mutation, the picture's UPDATE, then the metadata as the owner sees it", async () => {
    const r = await openRig();
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
      "base64",
    );
    const created = r.ops["channels.create"]!({
      name: "Loja",
      description: "Ofertas",
      picture: { data: png.toString("base64"), mimetype: "image/png" },
    });
    const { viewer_metadata: _v, ...thread } = metadata("OWNER");
    const q = await answer(r.sock, isMex(QUERY.CREATE), () =>
      mexResult("xwa2_newsletter_create", { ...thread, viewer_metadata: { mute: "OFF", role: "OWNER" } }),
    );
    expect(variablesOf(q)).toEqual({ input: { name: "Loja", description: "Ofertas" } });
    const up = await answer(r.sock, isMex(QUERY.UPDATE), () => mexResult("xwa2_newsletter_update", { id: CHANNEL }));
    expect(variablesOf(up)).toMatchObject({ newsletter_id: CHANNEL, updates: { picture: expect.any(String) } });
    // The picture goes as Baileys' profile-picture JPEG.
    expect(Buffer.from((variablesOf(up).updates as { picture: string }).picture, "base64").subarray(0, 2)).toEqual(
      Buffer.from([0xff, 0xd8]),
    );
    await answer(r.sock, isMex(QUERY.METADATA), () => mexResult("xwa2_newsletter", metadata("OWNER")));
    expect(await created).toMatchObject({ id: CHANNEL, name: "Loja", role: "owner", muted: false });
  });

  it("preview: the <messages> query to the server (content, not <message_updates>); posts with their text and counts, ours marked fromMe, media as CDN links", async () => {
    const r = await openRig();
    // The session keeps what it sends and receives: one post is ours, the other a received one.
    r.raw.set(
      "3EB0OURPOST00000001",
      storedForm({ key: { remoteJid: CHANNEL, id: "3EB0OURPOST00000001", fromMe: true } }),
    );
    r.raw.set(
      "3EB0THEIRPOST000002",
      storedForm({ key: { remoteJid: CHANNEL, id: "3EB0THEIRPOST000002", fromMe: false } }),
    );
    const post = (
      id: string,
      serverId: string,
      t: number,
      message: proto.IMessage,
      extra: BinaryNode[] = [],
    ): BinaryNode => ({
      tag: "message",
      attrs: { id, server_id: serverId, t: String(t), type: message.imageMessage ? "media" : "text" },
      content: [{ tag: "plaintext", attrs: {}, content: proto.Message.encode(message).finish() }, ...extra],
    });
    const preview = r.ops["channels.preview"]!({ id: CHANNEL, limit: 5, media: true });
    await answer(r.sock, isMex(QUERY.METADATA), () => mexResult("xwa2_newsletter", metadata("OWNER")));
    // The network's answer, `<iq><messages jid><message id server_id t type>…`, as whatsmeow's
    // parseNewsletterMessages reads it, through Baileys' own binary codec as a frame would arrive.
    const reply = await overTheWire([
      {
        tag: "messages",
        attrs: { jid: CHANNEL },
        content: [
          post("3EB0OURPOST00000001", "101", 1700000100, { conversation: "bom dia" }, [
            { tag: "views_count", attrs: { count: "42" } },
            {
              tag: "reactions",
              attrs: {},
              content: [
                { tag: "reaction", attrs: { code: "👍", count: "3" } },
                { tag: "reaction", attrs: { code: "❤️", count: "1" } },
              ],
            },
          ]),
          post("3EB0THEIRPOST000002", "102", 1700000200, {
            imageMessage: { mimetype: "image/jpeg", caption: "foto", directPath: "/o1/v/t24/f2/m1/abc" },
          }),
        ],
      },
    ]);
    const q = await answer(
      r.sock,
      (n) => n.attrs.xmlns === "newsletter",
      () => reply,
    );
    // WA Web's "get newsletter messages": to the server, by jid; `<message_updates>` (rc14's
    // newsletterFetchMessages, to the channel) is answered with counts only.
    expect(q.attrs).toMatchObject({ type: "get", xmlns: "newsletter", to: S_WHATSAPP_NET });
    expect(getBinaryNodeChild(q, "message_updates")).toBeUndefined();
    expect(getBinaryNodeChild(q, "messages")?.attrs).toEqual({ type: "jid", jid: CHANNEL, count: "5" });
    const posts = await preview;
    expect(posts.map((p) => p.id)).toEqual(["3EB0THEIRPOST000002", "3EB0OURPOST00000001"]);
    expect(posts[0]).toMatchObject({
      serverId: "102",
      fromMe: false,
      type: "image",
      text: "foto",
      media: { mimetype: "image/jpeg", data: null, url: "https://mmg.whatsapp.net/o1/v/t24/f2/m1/abc" },
      reactions: {},
      viewCount: 0,
    });
    expect(posts[1]).toMatchObject({
      serverId: "101",
      fromMe: true,
      timestamp: 1700000100,
      type: "text",
      text: "bom dia",
      media: null,
      reactions: { "👍": 3, "❤️": 1 },
      viewCount: 42,
    });
  });

  it("the routes Baileys cannot serve have no operation, as the capability table says (501 not_supported)", async () => {
    const r = await openRig();
    const OPS: Record<string, string> = {
      "GET /channels": "channels.list",
      "POST /channels": "channels.create",
      "POST /channels/search/by-view": "channels.searchByView",
      "POST /channels/search/by-text": "channels.searchByText",
      "GET /channels/search/views": "channels.views",
      "GET /channels/search/countries": "channels.countries",
      "GET /channels/search/categories": "channels.categories",
      "GET /channels/{channelId}": "channels.get",
      "GET /channels/{channelId}/messages/preview": "channels.preview",
      "POST /channels/{channelId}/follow": "channels.follow",
      "POST /channels/{channelId}/unfollow": "channels.unfollow",
      "POST /channels/{channelId}/mute": "channels.mute",
      "POST /channels/{channelId}/unmute": "channels.unmute",
    };
    expect(Object.keys(OPS).sort()).toEqual(Object.keys(channelsCapabilities).sort());
    for (const [route, op] of Object.entries(OPS)) {
      const gap = channelsCapabilities[route]?.gaps?.baileys;
      expect(typeof (r.ops as Record<string, unknown>)[op] === "function", route).toBe(!gap);
    }
  });
});

describe("Baileys channels: notifications", () => {
  it("newsletter.reaction becomes a reaction message of the channel, with a stable id, naming the post once it was seen; views, participants and settings are no event", async () => {
    const r = await openRig();
    const before = r.events.length;
    r.sock.ev.emit("newsletter.reaction", { id: CHANNEL, server_id: "101", reaction: { code: "👍", count: 1 } });
    // A post of a followed channel: the session's inbound way makes it a message of the channel.
    r.sock.ev.emit("messages.upsert", {
      type: "notify",
      messages: [
        {
          key: { remoteJid: CHANNEL, id: "3EB0POST0000000001", fromMe: false, server_id: "102" },
          message: { conversation: "oi" },
        },
      ],
    });
    await vi.waitFor(() =>
      expect(r.events.find((e) => e.type === "message" && e.message.type === "text")).toMatchObject({
        message: { chatId: CHANNEL, id: "3EB0POST0000000001", isGroup: false, from: { id: CHANNEL } },
      }),
    );
    r.sock.ev.emit("newsletter.reaction", {
      id: CHANNEL,
      server_id: "102",
      reaction: { code: "❤️", count: 1, removed: true },
    });
    r.sock.ev.emit("newsletter.view", { id: CHANNEL, server_id: "102", count: 10 });
    r.sock.ev.emit("newsletter-participants.update", {
      id: CHANNEL,
      author: "x",
      user: "y",
      new_role: "ADMIN",
      action: "promote",
    });
    r.sock.ev.emit("newsletter-settings.update", { id: CHANNEL, update: { name: "Nova" } });
    r.sock.ev.emit("newsletter.reaction", { id: CHANNEL, server_id: "101", reaction: { code: "👍", count: 1 } });
    const reactions = await vi.waitFor(() => {
      const got = r.events
        .slice(before)
        .flatMap((e) => (e.type === "message" && e.message.type === "reaction" ? [e.message] : []));
      expect(got).toHaveLength(3);
      return got;
    });
    expect(r.events.slice(before).filter((e) => e.type === "event")).toEqual([]);
    // Built as every reaction (events/inbound.ts gives it the chat's fields): the post not seen
    // since the process started is not named, yet the reaction has its id, the same when repeated.
    expect(reactions[0]).toMatchObject({
      id: "R101.1f44d",
      chatId: CHANNEL,
      isGroup: false,
      fromMe: false,
      from: { id: CHANNEL },
      targetId: null,
      serverId: "101",
      emoji: "👍",
    });
    expect(reactions[2]!.id).toBe(reactions[0]!.id);
    expect(reactions[1]).toMatchObject({
      id: "R102.0",
      chatId: CHANNEL,
      targetId: "3EB0POST0000000001",
      targetFromMe: false,
      serverId: "102",
      emoji: "",
    });
  });
});
