import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531973330xxx.
const a = { id: "", token: "", phone: "5531973330001" }; // creates and runs a channel
const f = { id: "", token: "", phone: "5531973330002" }; // follows
const FAN = "5531973330100"; // a virtual phone that reacts

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

type Obj = Record<string, any>;
type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
let asA: Api;
let asF: Api;

const sim = async (method: string, path: string, json?: unknown, status = 200) =>
  expectJson<Obj>(await c.sim(method, path, json), status);
const simChannel = (id: string) => sim("GET", `/simnet/channels/${id}`);
const enc = encodeURIComponent;
/** A signed link of the gateway, fetched from this cluster's address. */
const fetchLink = (link: string) => {
  const u = new URL(link);
  return fetch(`${c.url}${u.pathname}${u.search}`);
};

async function eventOf(instanceId: string, kind: string, pred: (p: Obj) => boolean) {
  return until(async () => (await c.events(instanceId, kind)).find((e) => pred(e.payload as Obj)), `${kind} event`);
}

beforeAll(async () => {
  c = await startCluster({ env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" } });
  for (const x of [a, f]) {
    Object.assign(x, await c.createInstance());
    await c.as(x.token)(`/v1/instances/${x.id}/start`, { method: "POST" });
    await c.pair(x.id, x.phone);
  }
  await sim("POST", "/simnet/phones", { phone: FAN }, 201);
  asA = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
  asF = (path, init) => c.as(f.token)(`/v1/instances/${f.id}${path}`, init);
}, 60_000);
afterAll(() => c?.close());

describe("a channel of the instance", () => {
  let ch: Obj;

  it("starts with no channels", async () => {
    expect(await expectJson(await asA("/channels"))).toEqual([]);
  });

  it("creates a channel with a picture: the owner's role, its invite link and a picture link", async () => {
    ch = await expectJson<Obj>(
      await asA("/channels", {
        method: "POST",
        json: {
          name: "Ofertas da Loja",
          description: "Promoções",
          picture: { data: PNG.toString("base64"), mimetype: "image/png" },
        },
      }),
      201,
    );
    expect(ch).toMatchObject({
      name: "Ofertas da Loja",
      description: "Promoções",
      role: "owner",
      subscribersCount: 0,
      verified: false,
      muted: false,
    });
    expect(ch.id).toMatch(/^\d+@newsletter$/);
    expect(ch.invite).toMatch(/^https:\/\/whatsapp\.com\/channel\/[A-Za-z0-9]+$/);
    const pic = await fetchLink(ch.picture);
    expect(pic.status).toBe(200);
    expect(Buffer.from(await pic.arrayBuffer()).equals(PNG)).toBe(true);
    expect(ch.preview).toBe(ch.picture);
    const held = await simChannel(ch.id);
    expect(held).toMatchObject({ owner: a.phone, name: "Ofertas da Loja", hasPicture: true, country: "BR" });
    expect(await expectJson(await asA("/channels"))).toEqual([ch]);
    expect(await expectJson(await asA("/channels?role=owner"))).toEqual([ch]);
    expect(await expectJson(await asA("/channels?role=subscriber"))).toEqual([]);
  });

  it("is found by id, by invite code and by invite link; a guest sees it without following", async () => {
    const code = ch.invite.split("/").at(-1);
    for (const ref of [ch.id, ch.id.split("@")[0], code, enc(ch.invite)]) {
      expect(await expectJson(await asA(`/channels/${ref}`)), ref).toMatchObject({ id: ch.id, role: "owner" });
    }
    const seen = await expectJson<Obj>(await asF(`/channels/${enc(ch.invite)}`));
    expect(seen).toMatchObject({ id: ch.id, role: "guest", subscribersCount: 0 });
    expect(seen).not.toHaveProperty("muted");
  });

  it("a follower: follow, the channel in its list, then the posts it receives", async () => {
    expect(await expectJson(await asF(`/channels/${ch.id}/follow`, { method: "POST" }))).toEqual({ success: true });
    expect((await simChannel(ch.id)).followers).toEqual([{ phone: f.phone, muted: false }]);
    const mine = await expectJson<Obj[]>(await asF("/channels"));
    expect(mine).toEqual([expect.objectContaining({ id: ch.id, role: "subscriber", muted: false })]);
    expect((await expectJson<Obj>(await asA(`/channels/${ch.id}`))).subscribersCount).toBe(1);

    // The owner posts through the send route; the follower's instance receives it.
    const sent = await expectJson<Obj>(
      await asA("/messages/text", { method: "POST", json: { chatId: ch.id, text: "Oferta do dia" } }),
      201,
    );
    expect(sent.id).toMatch(new RegExp(`^true_${ch.id}_`));
    const got = await eventOf(f.id, "message", (p) => p.chatId === ch.id && p.text === "Oferta do dia");
    expect(got.payload).toMatchObject({
      chatId: ch.id,
      isGroup: false,
      fromMe: false,
      type: "text",
      chatName: "Ofertas da Loja",
      from: { id: ch.id, pushName: "Ofertas da Loja" },
    });
    expect(got.payload.id).toBe(sent.id.replace(/^true_/, "false_"));
    const any = await eventOf(a.id, "message.any", (p) => p.id === sent.id);
    expect(any.payload).toMatchObject({ chatId: ch.id, fromMe: true, type: "text" });
  });

  it("the preview: posts newest first with reactions and view counts; the owner hears of reactions", async () => {
    const image = await sim(
      "POST",
      `/simnet/channels/${ch.id}/posts`,
      {
        message: { type: "image", media: { data: PNG.toString("base64"), mimetype: "image/png" }, caption: "vitrine" },
      },
      201,
    );
    await sim("POST", `/simnet/channels/${ch.id}/posts/${image.id}/reactions`, { emoji: "👍", count: 3 });
    await sim("POST", `/simnet/channels/${ch.id}/posts/${image.id}/reactions`, { emoji: "❤️", phone: FAN });
    await sim("POST", `/simnet/channels/${ch.id}/posts/${image.id}/views`, { count: 5 });

    const items = await expectJson<Obj[]>(
      await asF(`/channels/${ch.id}/messages/preview?downloadMedia=false&limit=10`),
    );
    expect(items.map((i) => i.message.body)).toEqual(["vitrine", "Oferta do dia"]);
    expect(items[0]).toMatchObject({
      reactions: { "👍": 3, "❤️": 1 },
      viewCount: 5,
      message: {
        id: `false_${ch.id}_${image.id}`,
        chatId: ch.id,
        from: ch.id,
        to: `${f.phone}@c.us`,
        fromMe: false,
        type: "image",
        hasMedia: true,
        serverId: image.serverId,
        media: { url: null, mimetype: "image/png", error: null },
      },
    });
    expect(items[0]!.message).not.toHaveProperty("mediaUrl");
    expect(items[1]).toMatchObject({ reactions: {}, viewCount: 0, message: { type: "text", hasMedia: false } });
    const one = await expectJson<Obj[]>(await asF(`/channels/${ch.id}/messages/preview?downloadMedia=true&limit=1`));
    expect(one).toHaveLength(1);
    const res = await fetchLink(one[0]!.message.mediaUrl);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    // The owner's own post, from its side.
    const own = await expectJson<Obj[]>(await asA(`/channels/${ch.id}/messages/preview?downloadMedia=false&limit=2`));
    expect(own[1]!.message).toMatchObject({ fromMe: true, from: `${a.phone}@c.us`, to: ch.id });

    const reaction = await eventOf(a.id, "message.reaction", (p) => p.chatId === ch.id && p.emoji === "❤️");
    expect(reaction.payload).toMatchObject({
      // The reaction's own id: the post's sequence number, the emoji, its count (the same when redelivered).
      id: `false_${ch.id}_R${image.serverId}.2764-fe0f.1`,
      chatId: ch.id,
      chatLid: null,
      chatName: "Ofertas da Loja",
      isGroup: false,
      type: "reaction",
      // The post is the owner's own (its phone posted it): `true_` from the owner's side.
      messageId: `true_${ch.id}_${image.id}`,
      serverId: image.serverId,
      emoji: "❤️",
      count: 1,
      fromMe: false,
      from: { id: ch.id, phone: "", lid: null, pushName: "Ofertas da Loja" },
    });
    // Pictures as every message's: signed links of the channel's.
    const shown = reaction.payload as Obj;
    expect(new URL(shown.chatPicture).pathname).toBe(`/v1/avatars/${a.id}/${ch.id}.jpg`);
    expect(new URL(shown.from.picture).pathname).toBe(`/v1/avatars/${a.id}/${ch.id}.jpg`);
    // The follower is not told (reaction counts reach a follower through the preview).
    expect((await c.events(f.id, "message.reaction")).length).toBe(0);
  });

  it("a follower reacts through PUT /messages/reaction: the post's count changes", async () => {
    const [latest] = await expectJson<Obj[]>(
      await asF(`/channels/${ch.id}/messages/preview?downloadMedia=false&limit=1`),
    );
    const out = await expectJson<Obj>(
      await asF("/messages/reaction", { method: "PUT", json: { messageId: latest!.message.id, reaction: "🔥" } }),
    );
    expect(out).toMatchObject({ chatId: ch.id, status: "ok" });
    const held = await simChannel(ch.id);
    expect(held.posts.at(-1).reactions).toMatchObject({ "🔥": 1 });
  });

  it("mute and unmute; unfollow; the owner cannot unfollow", async () => {
    expect(await expectJson(await asF(`/channels/${ch.id}/mute`, { method: "POST" }))).toEqual({ success: true });
    expect((await simChannel(ch.id)).followers).toEqual([{ phone: f.phone, muted: true }]);
    expect((await expectJson<Obj[]>(await asF("/channels")))[0]!.muted).toBe(true);
    // A muted follower still receives the posts.
    const post = await sim(
      "POST",
      `/simnet/channels/${ch.id}/posts`,
      { message: { type: "text", text: "silenciado" } },
      201,
    );
    await eventOf(f.id, "message", (p) => p.id === `false_${ch.id}_${post.id}`);
    await expectJson(await asF(`/channels/${ch.id}/unmute`, { method: "POST" }));
    expect((await simChannel(ch.id)).followers).toEqual([{ phone: f.phone, muted: false }]);
    await expectError(await asA(`/channels/${ch.id}/unfollow`, { method: "POST" }), 422, "network_rejected");
    await expectJson(await asF(`/channels/${ch.id}/unfollow`, { method: "POST" }));
    expect((await simChannel(ch.id)).followers).toEqual([]);
    expect(await expectJson(await asF("/channels"))).toEqual([]);
    await expectError(await asF(`/channels/${ch.id}/mute`, { method: "POST" }), 422, "network_rejected");
  });

  it("settings.ignore.channels silences a follower's channel events", async () => {
    await expectJson(await asF(`/channels/${ch.id}/follow`, { method: "POST" }));
    const patch = (on: boolean) => asF("/settings", { method: "PATCH", json: { ignore: { channels: on } } });
    expect((await patch(true)).status).toBe(200);
    await until(async () => (await c.platform.instanceCache.get(f.id))?.settings.ignore.channels, "settings");
    try {
      const hidden = await sim(
        "POST",
        `/simnet/channels/${ch.id}/posts`,
        { message: { type: "text", text: "oculto" } },
        201,
      );
      expect((await patch(false)).status).toBe(200);
      await until(
        async () => (await c.platform.instanceCache.get(f.id))?.settings.ignore.channels === false,
        "settings",
      );
      const shown = await sim(
        "POST",
        `/simnet/channels/${ch.id}/posts`,
        { message: { type: "text", text: "visível" } },
        201,
      );
      await eventOf(f.id, "message", (p) => p.id === `false_${ch.id}_${shown.id}`);
      expect((await c.events(f.id)).filter((e) => JSON.stringify(e.payload).includes(hidden.id))).toEqual([]);
    } finally {
      await patch(false);
    }
  });
});

describe("validation and 404s", () => {
  it("create", async () => {
    const bad = async (json: Obj, field: string) => {
      const err = await expectError(await asA("/channels", { method: "POST", json }), 422, "validation_error");
      expect(Object.keys(err.error.details ?? {})).toContain(field);
    };
    await bad({}, "name");
    await bad({ name: "   " }, "name");
    await bad({ name: "x".repeat(101) }, "name");
    await bad({ name: "ok", description: 5 }, "description");
    await bad(
      { name: "ok", picture: { data: Buffer.from("%PDF-1.4").toString("base64"), mimetype: "application/pdf" } },
      "picture",
    );
    await bad({ name: "ok", picture: "foto" }, "picture");
  });

  it("channel ids, invites and the preview's query", async () => {
    const badId = await expectError(await asA("/channels/nao-e-canal!"), 422, "validation_error");
    expect(badId.error.details).toHaveProperty("channelId");
    await expectError(await asA("/channels/999999999999999999@newsletter"), 404, "not_found");
    await expectError(await asA("/channels/0029VaDesconhecido123456"), 404, "not_found");
    await expectError(
      await asA(`/channels/${enc("https://whatsapp.com/channel/0029VaDesconhecido123456")}`),
      404,
      "not_found",
    );
    for (const verb of ["follow", "unfollow", "mute", "unmute"]) {
      await expectError(
        await asA(`/channels/999999999999999999@newsletter/${verb}`, { method: "POST" }),
        404,
        "not_found",
      );
    }
    await expectError(
      await asA("/channels/999999999999999999@newsletter/messages/preview?downloadMedia=false&limit=5"),
      404,
      "not_found",
    );
    const q = async (query: string, field: string) => {
      const err = await expectError(
        await asA(`/channels/999999999999999999@newsletter/messages/preview?${query}`),
        422,
        "validation_error",
      );
      expect(Object.keys(err.error.details ?? {})).toContain(field);
    };
    await q("limit=5", "downloadMedia");
    await q("downloadMedia=talvez&limit=5", "downloadMedia");
    await q("downloadMedia=true", "limit");
    await q("downloadMedia=true&limit=0", "limit");
    await q("downloadMedia=true&limit=101", "limit");
    await q("downloadMedia=true&limit=dez", "limit");
    const role = await expectError(await asA("/channels?role=chefe"), 422, "validation_error");
    expect(role.error.details).toHaveProperty("role");
  });
});

describe("instances that cannot use channels", () => {
  const ROUTES: [string, string][] = [
    ["GET", "/channels"],
    ["POST", "/channels"],
    ["POST", "/channels/search/by-view"],
    ["POST", "/channels/search/by-text"],
    ["GET", "/channels/search/views"],
    ["GET", "/channels/search/countries"],
    ["GET", "/channels/search/categories"],
    ["GET", "/channels/1203630000000000@newsletter"],
    ["GET", "/channels/1203630000000000@newsletter/messages/preview?downloadMedia=false&limit=1"],
    ["POST", "/channels/1203630000000000@newsletter/follow"],
    ["POST", "/channels/1203630000000000@newsletter/unfollow"],
    ["POST", "/channels/1203630000000000@newsletter/mute"],
    ["POST", "/channels/1203630000000000@newsletter/unmute"],
  ];

  it("official-gateway instances: every route answers 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    for (const [method, path] of ROUTES) {
      const res = await c.as(off.token)(`/v1/instances/${off.id}${path}`, {
        method,
        ...(method === "POST" ? { json: {} } : {}),
      });
      await expectError(res, 501, "not_supported_by_provider");
    }
  });

  it("not connected: 422 instance_not_connected", async () => {
    const idle = await c.createInstance();
    await expectError(await c.as(idle.token)(`/v1/instances/${idle.id}/channels`), 422, "instance_not_connected");
    const res = await c.as(idle.token)(`/v1/instances/${idle.id}/channels/1203630000000000@newsletter/follow`, {
      method: "POST",
    });
    await expectError(res, 422, "instance_not_connected");
  });

  it("Baileys instances: the routes the library has no call for answer 501 not_supported, naming what is missing", async () => {
    const b = await c.createInstance({ provider: "baileys" });
    const call = c.as(b.token);
    for (const [method, path] of ROUTES.slice(0, 7).filter(([m, p]) => !(m === "POST" && p === "/channels"))) {
      const res = await call(`/v1/instances/${b.id}${path}`, { method, ...(method === "POST" ? { json: {} } : {}) });
      const err = await expectError(res, 501, "not_supported");
      expect(err.error.message).toMatch(/Baileys/);
    }
    // What it can do needs the connection.
    await expectError(
      await call(`/v1/instances/${b.id}/channels/1203630000000000@newsletter`),
      422,
      "instance_not_connected",
    );
  });
});
