import { describe, expect, it } from "vitest";
import type { MessageContent } from "../index.ts";
import { useSimnet } from "./testing.ts";

// Status posts on the wire: only the audience's devices get them; a deletion reaches the same people.
const A = "5511977780001";
const B = "5511977780002";
const C = "5511977780003";
const D = "5511977780004";
const STATUS = "status@broadcast";

const text = (t: string): MessageContent => ({ type: "text", text: t });
type Sent = { id: string; timestamp: number; chatId: string };
type Listed = { statuses: Record<string, unknown>[] };

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: 25 });
const { pair } = net;

describe("status posts", () => {
  it("reach the audience's devices only, with their style; the sender's other devices get a copy", async () => {
    const a = await pair(A, "ia", "Ana");
    const a2 = await pair(A, "ia2");
    const b = await pair(B, "ib");
    const d = await pair(D, "id");
    await net.control.post("/simnet/phones", { phone: C });
    const sent = await a.client.request<Sent>("send", {
      to: STATUS,
      message: text("bom dia"),
      status: { audience: [B, `${C}@c.us`, "5511900000000"], backgroundColor: "#FF0000", font: 2 },
    });
    expect(sent.chatId).toBe(STATUS);

    const got = await b.client.next("message");
    expect(got).toMatchObject({
      id: sent.id,
      chatId: STATUS,
      chatLid: null,
      chatName: "",
      isGroup: false,
      fromMe: false,
      from: { id: `${A}@c.us`, phone: A },
      message: { type: "text", text: "bom dia", backgroundColor: "#FF0000", font: 2 },
    });
    expect(await a2.client.next("message")).toMatchObject({
      id: sent.id,
      chatId: STATUS,
      fromMe: true,
      origin: "device",
    });

    // Unknown numbers are skipped, as the network skips them; D was not in the audience.
    const posted = await net.control.get<Listed>(`/simnet/phones/${A}/statuses`);
    expect(posted.body.statuses).toEqual([
      expect.objectContaining({ id: sent.id, audience: [B, C], backgroundColor: "#FF0000", font: 2, deleted: false }),
    ]);
    expect((await net.control.get<Listed>(`/simnet/phones/${C}/status-feed`)).body.statuses).toEqual([
      expect.objectContaining({ id: sent.id, from: expect.objectContaining({ phone: A }) }),
    ]);
    expect((await net.control.get<Listed>(`/simnet/phones/${D}/status-feed`)).body.statuses).toEqual([]);
    // A later message to D arrives first in D's frames: nothing of the status came before it.
    await a.client.request("send", { to: D, message: text("oi") });
    expect((await d.client.next("message")).chatId).toBe(`${A}@c.us`);
    expect(d.client.take("message")).toEqual([]);
  });

  it("without an audience: refused from a device; from the phone, its one-to-one conversations", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    await net.control.post("/simnet/phones", { phone: C });
    await a.client.request("send", { to: C, message: text("oi") });
    const refused = await a.client
      .request("send", { to: STATUS, message: text("para quem?") })
      .catch((e: Error) => e.message);
    expect(refused).toMatch(/^bad_request/);
    const sent = await net.control.post<Sent>(`/simnet/phones/${A}/send`, {
      to: STATUS,
      message: text("para contatos"),
    });
    const [post] = (await net.control.get<Listed>(`/simnet/phones/${A}/statuses`)).body.statuses;
    expect(post).toMatchObject({ id: sent.body.id, audience: [C], origin: "phone" });
    // The phone's own devices see what it posted.
    expect(await a.client.next("message", (f) => f.id === sent.body.id)).toMatchObject({
      fromMe: true,
      origin: "phone",
    });
    await a.client.request("send", { to: B, message: text("depois") });
    expect((await b.client.next("message")).message).toEqual(text("depois"));
    expect(b.client.take("message")).toEqual([]);
  });

  it("a revoke deletes the post for everyone who got it; twice, or another's post, is invalid_target", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const sent = await a.client.request<Sent>("send", { to: STATUS, message: text("x"), status: { audience: [B] } });
    await b.client.next("message", (f) => f.id === sent.id);
    // The revoke's own audience does not matter: the network knows who got the post.
    const del = await a.client.request<Sent>("send", {
      to: STATUS,
      message: { type: "revoke", targetId: sent.id },
      status: { audience: [C] },
    });
    const revoke = await b.client.next("message", (f) => f.id === del.id);
    expect(revoke).toMatchObject({ chatId: STATUS, message: { type: "revoke", targetId: sent.id } });
    expect((await net.control.get<Listed>(`/simnet/phones/${B}/status-feed`)).body.statuses[0]?.deleted).toBe(true);
    const again = await a.client
      .request("send", { to: STATUS, message: { type: "revoke", targetId: sent.id } })
      .catch((e: Error) => e.message);
    expect(again).toMatch(/^invalid_target/);
    const other = await b.client
      .request("send", { to: STATUS, message: { type: "revoke", targetId: sent.id } })
      .catch((e: Error) => e.message);
    expect(other).toMatch(/^invalid_target/);
  });

  it("a client id posts once; what is no post is refused; a phone posts through the control API", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const args = { to: STATUS, id: "status-once-0001", message: text("uma vez"), status: { audience: [B] } };
    const one = await a.client.request<Sent>("send", args);
    const two = await a.client.request<Sent>("send", args);
    expect(two).toEqual(one);
    expect((await net.control.get<Listed>(`/simnet/phones/${A}/statuses`)).body.statuses).toHaveLength(1);
    const poll = await a.client
      .request("send", {
        to: STATUS,
        message: { type: "poll", name: "?", options: ["a", "b"], multipleAnswers: false },
      })
      .catch((e: Error) => e.message);
    expect(poll).toMatch(/^bad_request/);

    const byPhone = await net.control.post<Sent>(`/simnet/phones/${C}/send`, {
      to: STATUS,
      message: text("do telefone"),
      status: { audience: [B] },
    });
    expect(byPhone.status).toBe(201);
    const got = await b.client.next("message", (f) => f.id === byPhone.body.id);
    expect(got).toMatchObject({ chatId: STATUS, from: { phone: C } });
  });
});
