import { describe, expect, it } from "vitest";
import { oneToOneVerdict, statusVerdict } from "../addressing-rules.ts";
import type { MessageContent } from "../index.ts";
import { useSimnet } from "./testing.ts";

// The network's addressing behaviour from the field (addressing-rules.ts, docs/simnet.md
// "Addressing"): LID-migrated contacts, contacts still on their number, first contact refused,
// status posts of a LID account with an audience by number.

const STEP = 25;
const A = "5511966660001"; // the instance's account
const B = "5511966660002"; // the contact
const text = (t: string): MessageContent => ({ type: "text", text: t });
type Sent = { id: string; chatId: string };

const net = useSimnet({ qrIntervalMs: 10_000, ackDelayMs: STEP });

async function contact(body: Record<string, unknown>) {
  const res = await net.control.post<{ lid: string; addressing: string }>("/simnet/phones", { phone: B, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

describe("the rules", () => {
  it("463 for the address a conversation does not use, and for a first contact refused", () => {
    const any = { addressing: "any", refusesFirstContact: false } as const;
    expect(oneToOneVerdict(any, "pn", false)).toBeNull();
    expect(oneToOneVerdict(any, "lid", false)).toBeNull();
    expect(oneToOneVerdict({ ...any, addressing: "lid" }, "pn", true)).toBe(463);
    expect(oneToOneVerdict({ ...any, addressing: "lid" }, "lid", false)).toBeNull();
    expect(oneToOneVerdict({ ...any, addressing: "pn" }, "lid", true)).toBe(463);
    expect(oneToOneVerdict({ ...any, refusesFirstContact: true }, "pn", false)).toBe(463);
    expect(oneToOneVerdict({ ...any, refusesFirstContact: true }, "pn", true)).toBeNull();
    expect(statusVerdict({ addressing: "lid" }, ["1@lid", "5511@s.whatsapp.net"])).toBe(479);
    expect(statusVerdict({ addressing: "lid" }, ["1@lid"])).toBeNull();
    expect(statusVerdict({ addressing: "any" }, ["5511@c.us"])).toBeNull();
  });
});

describe("simnet applies them", () => {
  it("a LID-migrated contact: its number accepts the send, then acks failed 463; its LID delivers", async () => {
    const a = await net.pair(A, "ia");
    const b = await contact({ addressing: "lid" });
    const toPn = await a.client.request<Sent>("send", { to: B, message: text("pelo número") });
    const failed = await a.client.next("ack", (f) => f.id === toPn.id);
    expect(failed).toMatchObject({ status: "failed", chatId: `${B}@c.us`, error: { code: 463 } });
    const inbox = await net.control.get<{ messages: unknown[] }>(`/simnet/phones/${B}/inbox`);
    expect(inbox.body.messages).toEqual([]);

    // The same message again, to the LID, under the same id: a new try, delivered.
    const toLid = await a.client.request<Sent>("send", { to: b.lid, message: text("pelo número"), id: toPn.id });
    expect(toLid.id).toBe(toPn.id);
    expect((await a.client.next("ack", (f) => f.id === toPn.id)).status).toBe("delivered");
    const sent = await net.control.get<{ messages: { id: string; status: string; error: unknown }[] }>(
      `/simnet/phones/${A}/sent`,
    );
    expect(sent.body.messages.map((m) => m.status)).toEqual(["failed", "delivered"]);
  });

  it("a contact still on its number refuses its LID; messages from it say how it is addressed", async () => {
    const a = await net.pair(A, "ia");
    const b = await contact({ addressing: "pn" });
    const toLid = await a.client.request<Sent>("send", { to: b.lid, message: text("pelo lid") });
    expect(await a.client.next("ack", (f) => f.id === toLid.id)).toMatchObject({
      status: "failed",
      error: { code: 463 },
    });
    await net.control.post(`/simnet/phones/${B}/send`, { to: A, message: text("oi") });
    const got = await a.client.next("message");
    expect(got).toMatchObject({ chatId: `${B}@c.us`, chatLid: b.lid, addressingMode: "pn" });
  });

  it("first contact refused until the contact writes", async () => {
    const a = await net.pair(A, "ia");
    await contact({ refusesFirstContact: true });
    const first = await a.client.request<Sent>("send", { to: B, message: text("olá, somos a loja") });
    expect(await a.client.next("ack", (f) => f.id === first.id)).toMatchObject({
      status: "failed",
      error: { code: 463 },
    });
    await net.control.post(`/simnet/phones/${B}/send`, { to: A, message: text("quero saber do pedido") });
    await a.client.next("message");
    const reply = await a.client.request<Sent>("send", { to: B, message: text("saiu para entrega") });
    expect((await a.client.next("ack", (f) => f.id === reply.id)).status).toBe("delivered");
  });

  it("a LID-migrated account's status post to an audience by number: 479, shown to nobody; by LID: shown", async () => {
    await net.control.post("/simnet/phones", { phone: A, addressing: "lid" });
    const a = await net.pair(A, "ia");
    const b = await contact({});
    const status = (audience: string[]) => ({
      to: "status@broadcast",
      message: text("promoção"),
      status: { audience },
    });
    const byNumber = await a.client.request<Sent>("send", status([B]));
    expect(await a.client.next("ack", (f) => f.id === byNumber.id)).toMatchObject({
      status: "failed",
      chatId: "status@broadcast",
      error: { code: 479 },
    });
    const byLid = await a.client.request<Sent>("send", status([b.lid]));
    const feed = await net.control.get<{ statuses: { id: string }[] }>(`/simnet/phones/${B}/status-feed`);
    expect(feed.body.statuses.map((p) => p.id)).toEqual([byLid.id]);
    const posted = await net.control.get<{ statuses: { id: string; refused?: { code: number } }[] }>(
      `/simnet/phones/${A}/statuses`,
    );
    expect(posted.body.statuses.map((p) => p.refused?.code ?? null)).toEqual([479, null]);
  });
});
