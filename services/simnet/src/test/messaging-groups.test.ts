// simnet's group messages: the fan-out to a group's participants, outsiders refused, announce mode
// (only admins send), and a group's metadata as its participants and the control API see it.
import { describe, expect, it } from "vitest";
import { acks, type SendResult, sleep, text, useSimnet } from "./testing.ts";

const STEP = 25; // ack clock in these tests

const A = "5511977770001";
const B = "5511977770002";
const C = "5511977770003";
const D = "5511977770004";

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: STEP });
const { pair } = net;

describe("groups", () => {
  it("fans out to participants, refuses outsiders, and honours announce mode", async () => {
    const a = await pair(A, "ia", "Ana");
    const b = await pair(B, "ib", "Bruno");
    await net.control.post("/simnet/phones", { phone: C });
    await net.control.post("/simnet/phones", { phone: D });
    const created = await net.control.post<{ id: string; admins: string[] }>("/simnet/groups", {
      subject: "Equipe",
      participants: [A, B, C],
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^\d+@g\.us$/);
    expect(created.body.admins).toEqual([A]);
    const gid = created.body.id;

    const sent = await a.client.request<SendResult>("send", { to: gid, message: text("bom dia") });
    expect(sent.chatId).toBe(gid);
    const got = await b.client.next("message");
    expect(got).toMatchObject({
      id: sent.id,
      chatId: gid,
      chatLid: null,
      chatName: "Equipe",
      isGroup: true,
      fromMe: false,
      from: { id: `${A}@c.us`, phone: A, pushName: "Ana" },
    });
    const inboxC = await net.control.get<{ messages: { id: string; chatId: string }[] }>(`/simnet/phones/${C}/inbox`);
    expect(inboxC.body.messages).toEqual([expect.objectContaining({ id: sent.id, chatId: gid, isGroup: true })]);
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);
    // Read only once every participant read.
    await net.control.post(`/simnet/phones/${C}/read`);
    await sleep(STEP * 3);
    expect(a.client.take("ack")).toEqual([]);
    await b.client.request("read", { ids: [sent.id] });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);

    const outsider = await net.control.post(`/simnet/phones/${D}/send`, { to: gid, message: text("entrei?") });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toMatchObject({ error: { code: "network_rejected" } });

    const patched = await net.control.patch(`/simnet/groups/${gid}`, { onlyAdminsCanSend: true });
    expect(patched.body).toMatchObject({ onlyAdminsCanSend: true });
    await expect(b.client.request("send", { to: gid, message: text("posso?") })).rejects.toMatchObject({
      code: "network_rejected",
    });
    await a.client.request("send", { to: gid, message: text("só admins") });
    expect((await b.client.next("message")).message).toEqual({ type: "text", text: "só admins" });
  });

  it("answers group metadata to participants", async () => {
    const a = await pair(A, "ia", "Ana");
    await net.control.post("/simnet/phones", { phone: B, pushName: "Bia" });
    const d = await pair(D, "id");
    const { body } = await net.control.post<{ id: string }>("/simnet/groups", {
      subject: "Família",
      participants: [A, B],
      admins: [B],
    });
    const meta = await a.client.request<Record<string, unknown>>("group-metadata", { groupId: body.id });
    expect(meta).toMatchObject({ id: body.id, subject: "Família", onlyAdminsCanSend: false });
    expect(meta.participants).toEqual([
      expect.objectContaining({ id: `${A}@c.us`, phone: A, admin: false }),
      expect.objectContaining({ id: `${B}@c.us`, phone: B, pushName: "Bia", admin: true }),
    ]);
    expect(await a.client.request("groups")).toEqual({ groups: [meta] });
    await expect(d.client.request("group-metadata", { groupId: body.id })).rejects.toMatchObject({
      code: "network_rejected",
    });
    await expect(a.client.request("group-metadata", { groupId: "1@g.us" })).rejects.toMatchObject({
      code: "not_found",
    });
    const bad = await net.control.post("/simnet/groups", { subject: "x", participants: [A, "5511900000009"] });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ error: { code: "not_on_network", details: { missing: ["5511900000009"] } } });
    const read = await net.control.get(`/simnet/groups/${body.id}`);
    expect(read.body).toMatchObject({ subject: "Família", participants: [A, B], admins: [B] });
    const all = await net.control.get<{ groups: { id: string }[] }>("/simnet/groups");
    expect(all.body.groups.map((g) => g.id)).toEqual([body.id]);
    const renamed = await net.control.patch(`/simnet/groups/${body.id}`, {
      subject: "Família 2",
      participants: [A, B, D],
    });
    expect(renamed.body).toMatchObject({ subject: "Família 2", participants: [A, B, D], admins: [B] });
    expect(await d.client.request("group-metadata", { groupId: body.id })).toMatchObject({ subject: "Família 2" });
    expect((await net.control.get("/simnet/groups/1@g.us")).status).toBe(404);
  });
});
