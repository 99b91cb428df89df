// simnet's message content: every kind of message a device sends, and the references (quotes,
// reactions, edits, polls, events) checked against what the network stored.
import { describe, expect, it } from "vitest";
import type { MessageContent } from "../index.ts";
import { type SendResult, useSimnet } from "./testing.ts";

const A = "5511977770001";
const B = "5511977770002";

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: 25 });
const { pair } = net;

describe("message content", () => {
  it("carries every message type intact and keeps what the instance sent", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const media = { data: Buffer.from("fake-bytes").toString("base64"), mimetype: "image/jpeg" };
    const poll = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "poll", name: "Qual?", options: ["a", "b"], multipleAnswers: false },
    });
    const samples: MessageContent[] = [
      { type: "text", text: "t", linkPreview: false },
      { type: "image", media, caption: "foto" },
      { type: "video", media: { ...media, mimetype: "video/mp4" }, asNote: true },
      { type: "audio", media: { ...media, mimetype: "audio/mpeg" } },
      { type: "voice", media: { ...media, mimetype: "audio/ogg" }, seconds: 2 },
      { type: "document", media: { ...media, mimetype: "application/pdf", filename: "a.pdf" }, caption: "doc" },
      { type: "sticker", media: { ...media, mimetype: "image/webp" } },
      { type: "location", latitude: 1, longitude: 2, name: "x", address: "y" },
      { type: "contacts", contacts: [{ fullName: "Zé", phoneNumber: "5511999999999" }] },
      { type: "poll_vote", pollId: poll.id, votes: ["a"] },
      { type: "reaction", targetId: poll.id, emoji: "👍" },
      { type: "edit", targetId: poll.id, text: "Qual mesmo?" },
      { type: "event", name: "Festa", startTime: 1_900_000_000, location: { name: "Casa" } },
      {
        type: "list",
        title: "Menu",
        button: "Ver",
        sections: [{ title: "S", rows: [{ title: "R", rowId: "r1", description: "d" }] }],
      },
      { type: "link_preview", text: "veja https://x.y", preview: { title: "X", description: "Y", url: "https://x.y" } },
      { type: "revoke", targetId: poll.id },
    ];
    await b.client.next("message", (m) => m.id === poll.id);
    for (const message of samples) {
      const sent = await a.client.request<SendResult>("send", { to: B, message });
      const got = await b.client.next("message", (m) => m.id === sent.id);
      expect(got.message).toEqual(message);
    }
    const sent = await net.control.get<{ messages: Record<string, unknown>[] }>(`/simnet/phones/${A}/sent`);
    expect(sent.body.messages).toHaveLength(samples.length + 1);
    expect(sent.body.messages[2]).toMatchObject({
      message: { type: "image", media: { data: media.data, mimetype: "image/jpeg" }, caption: "foto" },
      origin: "device",
      instanceId: "ia",
      deviceId: a.creds.deviceId,
      to: B,
      chatId: `${B}@c.us`,
    });
  });

  it("checks references of votes, reactions, edits and revokes", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    const poll = await a.client.request<SendResult>("send", {
      to: B,
      message: { type: "poll", name: "P", options: ["x", "y"], multipleAnswers: false },
    });
    await expect(
      b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["z"] } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    await expect(
      b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["x", "y"] } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    await b.client.request("send", { to: A, message: { type: "poll_vote", pollId: poll.id, votes: ["y"] } });
    await expect(
      b.client.request("send", { to: A, message: { type: "reaction", targetId: "NOPE", emoji: "x" } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    await expect(
      b.client.request("send", { to: A, message: { type: "edit", targetId: poll.id, text: "mine now" } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    await expect(
      b.client.request("send", { to: A, message: { type: "revoke", targetId: poll.id } }),
    ).rejects.toMatchObject({ code: "invalid_target" });
    expect(
      await b.client.request("send", { to: A, message: { type: "reaction", targetId: poll.id, emoji: "❤️" } }),
    ).toHaveProperty("id");
    await expect(
      a.client.request("send", { to: B, message: { type: "image", media: { data: "***", mimetype: "image/png" } } }),
    ).rejects.toMatchObject({ code: "bad_request" });
  });
});
