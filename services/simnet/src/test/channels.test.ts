import { describe, expect, it } from "vitest";
import type { MessageContent } from "../index.ts";
import { useSimnet } from "./testing.ts";

// Channels on the wire and through the control API: roles, following, posts reaching followers,
// reactions told to the channel's staff, the preview, the directory.
const O = "5511977790001"; // owner (an instance)
const F = "5511977790002"; // follower (an instance)
const G = "5511977790003"; // guest (an instance)
const P = "5511977790004"; // a virtual phone

const text = (t: string): MessageContent => ({ type: "text", text: t });
type Ch = Record<string, unknown>;
type Sent = { id: string; timestamp: number; chatId: string };
const err = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: Error) => e.message.split(":")[0],
  );

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: 25 });
const { pair } = net;

describe("a channel", () => {
  it("roles, following, muting; posts reach followers (muted too), not guests", async () => {
    const o = await pair(O, "io");
    const f = await pair(F, "if");
    const g = await pair(G, "ig");
    const ch = await o.client.request<Ch>("channels.create", { name: "Loja", description: "Ofertas" });
    expect(ch).toMatchObject({
      name: "Loja",
      role: "owner",
      subscribersCount: 0,
      verified: false,
      muted: false,
      picture: null,
    });
    expect(ch.id).toMatch(/^120363\d+@newsletter$/);
    expect(await g.client.request<Ch>("channels.get", { invite: ch.invite })).toMatchObject({
      id: ch.id,
      role: "guest",
    });
    expect(await g.client.request<Ch>("channels.get", { id: ch.id })).not.toHaveProperty("muted");
    expect(await err(g.client.request("channels.get", { id: "1203639999@newsletter" }))).toBe("not_found");

    await f.client.request("channels.follow", { id: ch.id });
    await f.client.request("channels.follow", { id: ch.id }); // again: no-op
    expect(await f.client.request<Ch[]>("channels.list", {})).toEqual([
      expect.objectContaining({ id: ch.id, role: "subscriber" }),
    ]);
    expect(await f.client.request<Ch[]>("channels.list", { role: "owner" })).toEqual([]);
    expect((await o.client.request<Ch>("channels.get", { id: ch.id })).subscribersCount).toBe(1);
    await f.client.request("channels.mute", { id: ch.id });
    expect((await f.client.request<Ch>("channels.get", { id: ch.id })).muted).toBe(true);

    const sent = await o.client.request<Sent>("send", { to: ch.id, message: text("novidade") });
    expect(sent.chatId).toBe(ch.id);
    const got = await f.client.next("message", (m) => m.id === sent.id);
    expect(got).toMatchObject({
      chatId: ch.id,
      chatLid: null,
      chatName: "Loja",
      isGroup: false,
      fromMe: false,
      from: { id: ch.id, phone: null, lid: null, pushName: "Loja" },
      message: text("novidade"),
    });
    // Only staff posts; the guest got nothing (a later direct message comes first).
    expect(await err(f.client.request("send", { to: ch.id, message: text("eu também") }))).toBe("network_rejected");
    await o.client.request("send", { to: G, message: text("oi") });
    expect((await g.client.next("message")).chatId).toBe(`${O}@c.us`);
    expect(g.client.take("message")).toEqual([]);

    expect(await err(o.client.request("channels.unfollow", { id: ch.id }))).toBe("network_rejected");
    expect(await err(g.client.request("channels.mute", { id: ch.id }))).toBe("network_rejected");
    await f.client.request("channels.unfollow", { id: ch.id });
    expect(await f.client.request<Ch[]>("channels.list", {})).toEqual([]);
  });

  it("reactions change the counts and reach the owner and admins; the preview; deletion", async () => {
    const o = await pair(O, "io");
    const f = await pair(F, "if");
    const made = await net.control.post<Ch>("/simnet/channels", {
      owner: O,
      name: "Notícias",
      followers: [F],
      admins: [],
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    const png = { data: Buffer.from("imagem").toString("base64"), mimetype: "image/png" };
    const first = await net.control.post<Ch>(`/simnet/channels/${id}/posts`, { message: text("um") });
    const second = await net.control.post<Ch>(`/simnet/channels/${id}/posts`, {
      message: { type: "image", media: png, caption: "dois" },
    });
    expect(second.status).toBe(201);
    expect(Number(second.body.serverId)).toBe(Number(first.body.serverId) + 1);
    // The owner's own phone posted: its instance gets `fromMe` copies.
    expect(await o.client.next("message", (m) => m.id === first.body.id)).toMatchObject({
      fromMe: true,
      origin: "phone",
    });

    await f.client.request("send", { to: id, message: { type: "reaction", targetId: second.body.id, emoji: "👍" } });
    const told = await o.client.next("event", (e) => e.kind === "message.reaction");
    expect(told.payload).toMatchObject({
      chatId: id,
      messageId: `true_${id}_${second.body.id}`,
      serverId: second.body.serverId,
      emoji: "👍",
      count: 1,
    });
    // A new reaction of the same account replaces its earlier one.
    await f.client.request("send", {
      to: id,
      message: { type: "reaction", targetId: second.body.serverId, emoji: "❤️" },
    });
    await net.control.post(`/simnet/channels/${id}/posts/${second.body.id}/reactions`, { emoji: "👍", count: 4 });
    await net.control.post(`/simnet/channels/${id}/posts/${second.body.id}/views`, { count: 7 });
    const preview = await f.client.request<Ch[]>("channels.preview", { id, limit: 5, media: false });
    expect(preview.map((p) => p.text)).toEqual(["dois", "um"]);
    expect(preview[0]).toMatchObject({
      id: second.body.id,
      serverId: second.body.serverId,
      fromMe: false,
      type: "image",
      reactions: { "👍": 4, "❤️": 1 },
      viewCount: 7,
      media: { mimetype: "image/png", data: null },
    });
    const withMedia = await f.client.request<Ch[]>("channels.preview", { id, limit: 1, media: true });
    expect(withMedia).toHaveLength(1);
    expect((withMedia[0]!.media as { data?: string }).data).toBe(png.data);
    expect((await o.client.request<Ch[]>("channels.preview", { id, limit: 1, media: false }))[0]?.fromMe).toBe(true);

    const del = await o.client.request<Sent>("send", { to: id, message: { type: "revoke", targetId: first.body.id } });
    expect(await f.client.next("message", (m) => m.id === del.id)).toMatchObject({
      message: { type: "revoke", targetId: first.body.id },
    });
    expect(
      (await f.client.request<Ch[]>("channels.preview", { id, limit: 5, media: false })).map((p) => p.text),
    ).toEqual(["dois"]);
    expect(
      await err(
        f.client.request("send", { to: id, message: { type: "reaction", targetId: first.body.id, emoji: "x" } }),
      ),
    ).toBe("invalid_target");
  });

  it("an admin posts; the control API lists followers and removes one", async () => {
    const f = await pair(F, "if");
    const made = await net.control.post<Ch>("/simnet/channels", {
      owner: O,
      name: "Equipe",
      admins: [],
      followers: [],
    });
    const id = made.body.id as string;
    await net.control.post("/simnet/phones", { phone: P });
    const follow = await net.control.post<Ch>(`/simnet/channels/${id}/followers`, { phone: P, muted: true });
    expect(follow.body.followers).toEqual([{ phone: P, muted: true }]);
    await net.control.post(`/simnet/channels/${id}/followers`, { phone: F });
    expect(await err(f.client.request("send", { to: id, message: text("x") }))).toBe("network_rejected");
    const gone = await net.control.call<Ch>("DELETE", `/simnet/channels/${id}/followers/${P}`);
    expect(gone.body.followers).toEqual([{ phone: F, muted: false }]);
    expect((await net.control.get(`/simnet/channels/1203630000@newsletter`)).status).toBe(404);
  });
});

describe("the directory", () => {
  it("views order and page; text search ignores case and accents; lookups", async () => {
    const g = await pair(G, "ig");
    const fans = ["5511977791001", "5511977791002", "5511977791003"];
    for (const phone of fans) await net.control.post("/simnet/phones", { phone });
    const make = (body: Ch) => net.control.post<Ch>("/simnet/channels", { owner: P, ...body });
    await make({ name: "Café", description: "Grãos", category: "LIFESTYLE", followers: fans.slice(0, 1) });
    await make({ name: "Esportes Já", category: "SPORTS", verified: true, followers: [] });
    await make({
      name: "Cafeteria",
      description: "café especial",
      category: "BUSINESS",
      country: "PT",
      followers: fans,
    });

    const page = (args: Ch) => g.client.request<{ channels: Ch[]; hasMore: boolean }>("channels.search-by-view", args);
    const popular = await page({ view: "POPULAR", categories: [], countries: [], offset: 0, limit: 2 });
    expect(popular.channels.map((c) => c.name)).toEqual(["Cafeteria", "Café"]);
    expect(popular.hasMore).toBe(true);
    expect(popular.channels[0]).not.toHaveProperty("role");
    const rest = await page({ view: "POPULAR", categories: [], countries: [], offset: 2, limit: 2 });
    expect(rest).toEqual({ channels: [expect.objectContaining({ name: "Esportes Já" })], hasMore: false });
    const rec = await page({ view: "RECOMMENDED", categories: [], countries: [], offset: 0, limit: 1 });
    expect(rec.channels[0]?.name).toBe("Esportes Já");
    const fresh = await page({ view: "NEW", categories: [], countries: [], offset: 0, limit: 1 });
    expect(fresh.channels[0]?.name).toBe("Cafeteria");
    const br = await page({
      view: "POPULAR",
      categories: ["LIFESTYLE", "BUSINESS"],
      countries: ["BR"],
      offset: 0,
      limit: 5,
    });
    expect(br.channels.map((c) => c.name)).toEqual(["Café"]);

    const text = await g.client.request<{ channels: Ch[] }>("channels.search-by-text", {
      text: "CAFE",
      categories: [],
      offset: 0,
      limit: 5,
    });
    expect(text.channels.map((c) => c.name)).toEqual(["Cafeteria", "Café"]);
    expect((await g.client.request<Ch[]>("channels.views", {})).map((v) => v.value)).toEqual([
      "RECOMMENDED",
      "TRENDING",
      "POPULAR",
      "NEW",
    ]);
    expect(await g.client.request<Ch[]>("channels.countries", {})).toContainEqual({ name: "Brasil", code: "BR" });
    expect(await g.client.request<Ch[]>("channels.categories", {})).toContainEqual({
      name: "Negócios",
      value: "BUSINESS",
    });
  });
});
