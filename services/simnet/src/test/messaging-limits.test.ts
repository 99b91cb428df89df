// simnet's limits on sending: the new-conversation quota and the restrictions (timelock,
// capping), and the bound on the messages kept per phone.
import { describe, expect, it } from "vitest";
import { createSimnet, type MessageContent } from "../index.ts";
import { controlClient, useSimnet } from "./testing.ts";

const A = "5511977770001";
const B = "5511977770002";
const C = "5511977770003";
const D = "5511977770004";

const text = (t: string): MessageContent => ({ type: "text", text: t });

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: 25 });
const { pair } = net;

describe("quota and restrictions", () => {
  it("counts new conversations and refuses them while restricted", async () => {
    const a = await pair(A, "ia");
    const b = await pair(B, "ib");
    await net.control.post("/simnet/phones", { phone: C });
    await net.control.post("/simnet/phones", { phone: D });
    await a.client.request("send", { to: B, message: text("1") });
    await a.client.request("send", { to: C, message: text("2") });
    await a.client.request("send", { to: B, message: text("3") });
    await b.client.request("send", { to: A, message: text("reply") });
    expect(await a.client.request("capping")).toMatchObject({ usedQuota: 2 });
    expect(await b.client.request("capping")).toMatchObject({ usedQuota: 0 });

    await net.control.put(`/simnet/phones/${A}/restrictions`, { timelock: { isActive: true, enforcementType: "X" } });
    await expect(a.client.request("send", { to: D, message: text("novo") })).rejects.toMatchObject({
      code: "restricted",
    });
    await a.client.request("send", { to: B, message: text("conhecido") }); // an existing conversation is fine
    await net.control.put(`/simnet/phones/${A}/restrictions`, {
      timelock: null,
      capping: { cappingStatus: "CAPPED", totalQuota: 2 },
    });
    await expect(a.client.request("send", { to: D, message: text("novo") })).rejects.toMatchObject({
      code: "restricted",
    });
    await net.control.put(`/simnet/phones/${A}/restrictions`, { capping: null });
    await a.client.request("send", { to: D, message: text("novo") });
    expect(await a.client.request("capping")).toMatchObject({ usedQuota: 3 });
  });
});

describe("bounds", () => {
  it("keeps at most messageLimit messages per phone", async () => {
    const small = createSimnet({ port: 0, adminToken: net.token, messageLimit: 5, ackDelayMs: 0, logLevel: "silent" });
    const smallUrl = await small.listen();
    const ctl = controlClient(smallUrl, net.token);
    try {
      await ctl.post("/simnet/phones", { phone: B });
      for (let i = 0; i < 8; i++) await ctl.post(`/simnet/phones/${A}/send`, { to: B, message: text(`m${i}`) });
      const sent = await ctl.get<{ messages: { message: { text: string } }[] }>(`/simnet/phones/${A}/sent`);
      expect(sent.body.messages.map((m) => m.message.text)).toEqual(["m3", "m4", "m5", "m6", "m7"]);
      const inbox = await ctl.get<{ messages: unknown[] }>(`/simnet/phones/${B}/inbox?limit=2`);
      expect(inbox.body.messages).toHaveLength(2);
      expect(small.state.messagesById.size).toBe(5);
      expect((await ctl.get("/simnet/stats")).body).toMatchObject({ messagesSent: 8 });
    } finally {
      await small.close();
    }
  });
});
