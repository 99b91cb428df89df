// Sends that follow the network's addressing (docs/sending.md "Which address a message goes to"),
// end to end on simnet's rules (services/simnet/src/addressing-rules.ts): a LID-migrated contact, a
// contact still on its number, a first contact refused, a LID account's status post. Never a
// silent success: what the network refuses reaches the client as `message.ack` `failed`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { waitForEvent } from "../support/official.ts";

let c: Cluster;
const inst = { id: "", token: "", phone: "5531977770001" };
let seq = 0;
/** A contact of its own per test (simnet remembers conversations). */
const newContact = () => `55319777710${String(++seq).padStart(2, "0")}`;

beforeAll(async () => {
  c = await startCluster({ simnet: { ackDelayMs: 20 } });
  Object.assign(inst, await c.createInstance());
  await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
  await c.pair(inst.id, inst.phone);
});
afterAll(() => c?.close());

const call = (path: string, init?: RequestInit & { json?: unknown }) =>
  c.as(inst.token)(`/v1/instances/${inst.id}${path}`, init);

async function sendText(phone: string, text: string): Promise<{ id: string; chatId: string }> {
  const res = await call("/messages/text", { method: "POST", json: { phone, text } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; chatId: string };
}

async function contact(phone: string, body: Record<string, unknown>): Promise<{ lid: string }> {
  return (await (await c.sim("POST", "/simnet/phones", { phone, ...body })).json()) as { lid: string };
}

const sentBy = async (phone: string) =>
  (
    (await (await c.sim("GET", `/simnet/phones/${phone}/sent`)).json()) as {
      messages: { id: string; to: string; status: string; error: { code: number } | null }[];
    }
  ).messages;

const acksOf = async (id: string) =>
  (await c.events(inst.id, "message.ack")).filter((e) => e.payload.id === id).map((e) => e.payload);

describe("one-to-one sends", () => {
  it("a LID-migrated contact: refused on the number (463), sent again once to its LID under the same id, delivered", async () => {
    const phone = newContact();
    const { lid } = await contact(phone, {});
    // The pair is known (the contact wrote once, before its conversations moved to LID); the move is news.
    await c.sim("POST", `/simnet/phones/${phone}/send`, { to: inst.phone, message: { type: "text", text: "oi" } });
    await waitForEvent(c, inst.id, "message", (p) => p.chatId === `${phone}@c.us`);
    await contact(phone, { addressing: "lid" });

    const out = await sendText(phone, "seu pedido saiu");
    expect(out.chatId).toBe(`${phone}@c.us`);
    await waitForEvent(c, inst.id, "message.ack", (p) => p.id === out.id && p.status === "delivered");
    const tries = (await sentBy(inst.phone)).filter((m) => out.id.endsWith(m.id));
    expect(tries.map((m) => [m.to, m.status])).toEqual([
      [`${phone}@c.us`, "failed"],
      [lid, "delivered"],
    ]);
    // No failed ack reached the client: the retry was the gateway's.
    expect((await acksOf(out.id)).map((p) => p.status)).not.toContain("failed");

    // The next message goes to the LID at once.
    const next = await sendText(phone, "chega amanhã");
    await waitForEvent(c, inst.id, "message.ack", (p) => p.id === next.id && p.status === "delivered");
    expect((await sentBy(inst.phone)).filter((m) => next.id.endsWith(m.id)).map((m) => m.to)).toEqual([lid]);
  });

  it("a conversation on the LID is answered on the LID from the first reply", async () => {
    const phone = newContact();
    const { lid } = await contact(phone, { addressing: "lid" });
    await c.sim("POST", `/simnet/phones/${phone}/send`, { to: inst.phone, message: { type: "text", text: "olá" } });
    const [msg] = await waitForEvent(c, inst.id, "message", (p) => p.chatId === `${phone}@c.us`);
    expect(msg!.payload.chatLid).toBe(lid);
    const out = await sendText(phone, "resposta");
    await waitForEvent(c, inst.id, "message.ack", (p) => p.id === out.id && p.status === "delivered");
    const tries = (await sentBy(inst.phone)).filter((m) => out.id.endsWith(m.id));
    expect(tries.map((m) => m.to)).toEqual([lid]);
  });

  it("a first contact refused on both addresses reaches the client as failed, network_rejected with the code", async () => {
    const phone = newContact();
    const { lid } = await contact(phone, { refusesFirstContact: true });
    // The pair known from the directory, so the other address is tried too.
    await call(`/contacts/check-exists?phone=${phone}`);
    const out = await sendText(phone, "promoção");
    const [failed] = await waitForEvent(c, inst.id, "message.ack", (p) => p.id === out.id && p.status === "failed");
    expect(failed!.payload.chatId).toBe(`${phone}@c.us`);
    expect(failed!.payload.error).toMatchObject({
      code: "network_rejected",
      networkCode: 463,
      message: expect.stringMatching(/463.*primeiro contato.*outro endereço do contato também foi tentado/),
    });
    const tries = (await sentBy(inst.phone)).filter((m) => out.id.endsWith(m.id));
    expect(tries.map((m) => [m.to, m.status])).toEqual([
      [`${phone}@c.us`, "failed"],
      [lid, "failed"],
    ]);
    const read = await call(`/chats/${phone}@c.us/messages?limit=5`);
    const [stored] = (await read.json()) as { id: string; ackName: string }[];
    expect(stored).toMatchObject({ id: out.id, ackName: "ERROR" });
  });
});

describe("status posts", () => {
  it("a LID-migrated account's post goes to its audience by LID: delivered, not refused", async () => {
    const phone = newContact();
    await contact(phone, {});
    await c.sim("POST", `/simnet/phones/${phone}/send`, { to: inst.phone, message: { type: "text", text: "oi" } });
    await waitForEvent(c, inst.id, "message", (p) => p.chatId === `${phone}@c.us`);
    await c.sim("POST", "/simnet/phones", { phone: inst.phone, addressing: "lid" });
    const res = await call("/status/text", {
      method: "POST",
      json: { text: "novidades", contacts: [phone], backgroundColor: "#112233", font: 1 },
    });
    expect(res.status).toBe(201);
    const post = (await res.json()) as { id: string };
    const feed = (await (await c.sim("GET", `/simnet/phones/${phone}/status-feed`)).json()) as {
      statuses: { id: string }[];
    };
    expect(feed.statuses.map((s) => s.id).filter((id) => post.id.endsWith(id))).toHaveLength(1);
    const statuses = (await (await c.sim("GET", `/simnet/phones/${inst.phone}/statuses`)).json()) as {
      statuses: { id: string; refused?: unknown }[];
    };
    expect(statuses.statuses.find((s) => post.id.endsWith(s.id))?.refused).toBeUndefined();
  });
});
