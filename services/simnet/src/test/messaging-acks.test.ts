// simnet's ack clock: sent → delivered → read (→ played for voice), one step per ackDelayMs as the
// recipients' receipts move; reading on the phone, by autoRead and by the read op.
import { describe, expect, it, vi } from "vitest";
import { acks, type SendResult, sleep, text, useSimnet } from "./testing.ts";

const STEP = 25; // ack clock in these tests

const A = "5511977770001";
const B = "5511977770002";
const C = "5511977770003";

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: STEP });
const { pair } = net;

describe("acks", () => {
  it("progress sent → delivered → read on the clock; read when the phone reads", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B });
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("leia") });
    const accepted = await net.control.get<{ messages: { status: string; acks: { status: string }[] }[] }>(
      `/simnet/phones/${A}/sent`,
    );
    expect(accepted.body.messages[0]).toMatchObject({ status: "sent", acks: [{ status: "sent" }] });
    const first = await a.client.next("ack", (f) => f.id === sent.id);
    expect(first).toEqual({
      type: "ack",
      id: sent.id,
      chatId: `${B}@c.us`,
      status: "delivered",
      timestamp: expect.any(Number),
    });
    await sleep(STEP * 3);
    expect(a.client.take("ack")).toEqual([]); // no autoRead: stays delivered
    expect((await net.control.post(`/simnet/phones/${B}/read`)).body).toEqual({ read: 1 });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);
    const log = await net.control.get<{ messages: { status: string; acks: { status: string; at: number }[] }[] }>(
      `/simnet/phones/${A}/sent`,
    );
    const msg = log.body.messages[0];
    expect(msg?.status).toBe("read");
    expect(msg?.acks.map((x) => x.status)).toEqual(["sent", "delivered", "read"]);
  });

  it("reads on their own with autoRead, and voice is played too", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B, autoRead: true });
    const voice = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "voice", media: { data: "T2dnUw==", mimetype: "audio/ogg; codecs=opus" }, seconds: 3 },
    });
    expect(await acks(a.client, voice.id, 3)).toEqual(["delivered", "read", "played"]);
    const plain = await a.client.request<SendResult>("send", { to: B, message: text("auto") });
    expect(await acks(a.client, plain.id, 2)).toEqual(["delivered", "read"]);
    await sleep(STEP * 3);
    expect(a.client.take("ack").filter((f) => f.id === plain.id)).toEqual([]);
  });

  it("reads a voice message without playing it when asked", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: B });
    const voice = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "voice", media: { data: "T2dnUw==", mimetype: "audio/ogg" } },
    });
    expect(await acks(a.client, voice.id, 1)).toEqual(["delivered"]);
    await net.control.post(`/simnet/phones/${B}/read`, { ids: [voice.id], played: false });
    expect(await acks(a.client, voice.id, 1)).toEqual(["read"]);
    await net.control.post(`/simnet/phones/${B}/read`, { ids: [voice.id] });
    expect(await acks(a.client, voice.id, 1)).toEqual(["played"]);
  });

  it("an instance marks what it received as read (read op)", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const sent = await a.client.request<SendResult>("send", { to: B, message: text("veja") });
    await b.client.next("message");
    expect(await acks(a.client, sent.id, 1)).toEqual(["delivered"]);
    expect(await b.client.request("read", { ids: [sent.id] })).toEqual({ read: 1 });
    expect(await acks(a.client, sent.id, 1)).toEqual(["read"]);
    expect(await b.client.request("read", { ids: [sent.id, "unknown"] })).toEqual({ read: 0 });
  });

  it("reaches a virtual phone's sent list when the phone is the sender", async () => {
    const a = await pair(A, "ia");
    await net.control.post("/simnet/phones", { phone: C });
    const res = await net.control.post<SendResult>(`/simnet/phones/${C}/send`, { to: A, message: text("oi") });
    expect(res.status).toBe(201);
    await a.client.next("message");
    await a.client.request("read", { ids: [res.body.id] });
    // `read` comes a few ack-clock steps later: polled, with room for a slow machine.
    await vi.waitFor(
      async () => {
        const sent = await net.control.get<{ messages: { status: string; origin: string }[] }>(
          `/simnet/phones/${C}/sent`,
        );
        expect(sent.body.messages).toEqual([expect.objectContaining({ status: "read", origin: "phone" })]);
      },
      { timeout: 10_000, interval: STEP },
    );
  });
});
