import { describe, expect, it } from "vitest";
import type { MessageContent } from "../index.ts";
import { useSimnet } from "./testing.ts";

// Presence and profile on simnet, through the wire and the control API (docs/simnet.md "Presence",
// "Profile"): nothing is heard without a subscription; a subscription answers the contact's current
// presence and lasts as long as the connection; profile changes reach the account's devices.

const A = "5511977780001";
const B = "5511977780002";
const C = "5511977780003";

const text = (t: string): MessageContent => ({ type: "text", text: t });
const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: 25 });
const { pair } = net;

describe("presence", () => {
  it("records typing before a send in the sender's log, and shows it only to a subscribed other side", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    // Not subscribed: nothing reaches B.
    expect(await a.client.request("presence", { to: B, state: "composing" })).toEqual({});
    expect(await b.client.request("presence-subscribe", { to: A })).toEqual({});
    // The subscription answers A's presence now: typing made it online.
    expect(await b.client.next("presence")).toMatchObject({ chatId: `${A}@c.us`, state: "available" });
    await a.client.request("presence", { to: B, state: "composing" });
    expect(await b.client.next("presence")).toMatchObject({
      chatId: `${A}@c.us`,
      state: "composing",
      from: { phone: A },
    });
    expect(b.client.take("presence")).toEqual([]); // the first composing was never delivered
    await a.client.request("send", { to: B, message: text("digitei") });
    await a.client.request("presence", { to: B, state: "paused" });
    await a.client.request("presence", { state: "available" });
    expect(await b.client.next("presence", (f) => f.state === "paused")).toMatchObject({ chatId: `${A}@c.us` });
    expect(await b.client.next("presence", (f) => f.state === "available")).toMatchObject({ chatId: `${A}@c.us` });

    const log = await net.control.get<{
      presences: { seq: number; state: string; to: string | null; instanceId: string }[];
    }>(`/simnet/phones/${A}/presence-log`);
    expect(log.body.presences.map((p) => [p.state, p.to])).toEqual([
      ["composing", `${B}@c.us`],
      ["composing", `${B}@c.us`],
      ["paused", `${B}@c.us`],
      ["available", null],
    ]);
    expect(log.body.presences[0]?.instanceId).toBe("ia");
    const sent = await net.control.get<{ messages: { seq: number }[] }>(`/simnet/phones/${A}/sent`);
    const sentSeq = sent.body.messages[0]?.seq ?? 0;
    expect(log.body.presences[1]?.seq).toBeLessThan(sentSeq);
    expect(log.body.presences[2]?.seq).toBeGreaterThan(sentSeq);
    await expect(a.client.request("presence", { to: B, state: "dancing" })).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(a.client.request("presence", { state: "composing" })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("a virtual contact goes online, types, records and goes offline with a last seen, heard by subscribers", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: C });
    await a.client.request("presence-subscribe", { to: C });
    await a.client.next("presence", (f) => f.state === "unavailable");
    for (const state of ["available", "composing", "recording", "paused"]) {
      const to = state === "available" ? {} : { to: A };
      expect((await net.control.post(`/simnet/phones/${C}/presence`, { ...to, state })).status).toBe(200);
      expect(await a.client.next("presence")).toMatchObject({ chatId: `${C}@c.us`, state, from: { phone: C } });
    }
    const off = await net.control.post(`/simnet/phones/${C}/presence`, { state: "unavailable" });
    expect(off.status).toBe(200);
    const gone = await a.client.next("presence");
    expect(gone).toMatchObject({ state: "unavailable" });
    expect(gone.lastSeen).toBeGreaterThan(1_600_000_000);
    const view = await net.control.get<Record<string, unknown>>(`/simnet/phones/${C}/presence`);
    expect(view.body).toMatchObject({
      phone: C,
      online: false,
      lastSeen: gone.lastSeen,
      subscribers: [{ phone: A, instanceId: "ia" }],
    });
    expect((await net.control.get(`/simnet/phones/${A}/presence`)).body).toMatchObject({
      subscriptions: [{ target: `${C}@c.us`, instanceId: "ia" }],
    });
    // A new subscription hears the current state at once, last seen included.
    const again = await pair(A, "ia2");
    await again.client.request("presence-subscribe", { to: C });
    expect(await again.client.next("presence")).toMatchObject({ state: "unavailable", lastSeen: gone.lastSeen });
  });

  it("subscriptions last as long as the connection; group members are heard in the group when subscribed", async () => {
    await net.control.post("/simnet/phones", { phone: C });
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B });
    const g = await net.control.post<{ id: string }>("/simnet/groups", { subject: "G", participants: [A, B, C] });
    await a.client.request("presence-subscribe", { to: g.body.id });
    await net.control.post(`/simnet/phones/${C}/presence`, { to: g.body.id, state: "composing" });
    expect(await a.client.next("presence")).toMatchObject({
      chatId: g.body.id,
      state: "composing",
      from: { phone: C },
    });
    await a.client.close();
    const b2 = await pair(A, "ia3");
    await net.control.post(`/simnet/phones/${C}/presence`, { to: g.body.id, state: "recording" });
    await net.control.post(`/simnet/phones/${C}/presence`, { state: "available" });
    // The new connection subscribed to nothing: it hears nothing.
    await b2.client.request("me");
    expect(b2.client.take("presence")).toEqual([]);
    // Outsiders cannot subscribe to a group; unknown chats are refused.
    const d = "5511977780009";
    await net.control.post("/simnet/phones", { phone: d });
    const g2 = await net.control.post<{ id: string }>("/simnet/groups", { subject: "H", participants: [B, C] });
    await expect(b2.client.request("presence-subscribe", { to: g2.body.id })).rejects.toMatchObject({
      code: "network_rejected",
    });
    await expect(b2.client.request("presence-subscribe", { to: "5511900000000" })).rejects.toMatchObject({
      code: "not_on_network",
    });
  });
});

describe("profile", () => {
  it("name, about and picture: every device of the account is told its new name; contacts see all three", async () => {
    const a = await pair(A, "ia", "Ana");
    const a2 = await pair(A, "ia2");
    await net.control.post("/simnet/phones", { phone: B });
    expect(await a.client.request("profile.get")).toEqual({ phone: A, lid: a.me.lid, name: "Ana", about: null });
    expect(await a.client.request("profile.set-name", { name: "Ana Loja" })).toEqual({});
    expect(await a.client.next("profile")).toEqual({
      type: "profile",
      me: { phone: A, lid: a.me.lid, pushName: "Ana Loja" },
    });
    expect((await a2.client.next("profile")).me.pushName).toBe("Ana Loja");
    await a.client.request("profile.set-status", { status: "Atendimento 8h-18h" });
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    await a.client.request("profile.set-picture", { picture: { data: png, mimetype: "image/png" } });
    const seen = await net.control.get(`/simnet/phones/${B}/contacts/${A}`);
    expect(seen.body).toEqual({
      id: `${A}@c.us`,
      phone: A,
      lid: a.me.lid,
      pushName: "Ana Loja",
      about: "Atendimento 8h-18h",
      picture: { data: png, mimetype: "image/png" },
    });
    // What A sends now carries the new name.
    await a.client.request("send", { to: B, message: text("oi") });
    const inbox = await net.control.get<{ messages: { from: { pushName: string } }[] }>(`/simnet/phones/${B}/inbox`);
    expect(inbox.body.messages.at(-1)?.from.pushName).toBe("Ana Loja");
    await a.client.request("profile.remove-picture");
    expect((await net.control.get(`/simnet/phones/${B}/contacts/${A}`)).body).toMatchObject({ picture: null });
    // The network's limits.
    await expect(a.client.request("profile.set-name", { name: "x".repeat(26) })).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(
      a.client.request("profile.set-picture", { picture: { data: png, mimetype: "image/gif" } }),
    ).rejects.toMatchObject({ code: "bad_request" });
    // The phone renames itself: its devices hear it too.
    const put = await net.control.put(`/simnet/phones/${A}/profile`, { pushName: "Ana do Celular" });
    expect(put.body).toMatchObject({ pushName: "Ana do Celular", about: "Atendimento 8h-18h" });
    expect((await a2.client.next("profile", (f) => f.me.pushName === "Ana do Celular")).me.phone).toBe(A);
  });
});
