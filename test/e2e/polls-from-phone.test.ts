// Polls and calendar events created on the account's own phone (not through the API): simnet
// shows them to the linked device as `fromMe` messages, and the votes and answers of contacts
// become `poll.vote` (with `selectedOptions`) and `event.response` naming our message — real
// HTTP, Redis, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962250001" };
const B = "5531962250002";
const C = "5531962250003";

type Payload = Record<string, any>;

async function eventOf(kind: string, match: (p: Payload) => boolean, timeoutMs = 10_000): Promise<Payload> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = (await c.events(a.id, kind)).map((e) => e.payload as Payload).find(match);
    if (found) return found;
    if (Date.now() > end) throw new Error(`no ${kind} matched`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A message sent from a phone (the control API acts as the phone itself). */
async function phoneSends(phone: string, to: string, message: Record<string, unknown>): Promise<string> {
  return (await expectJson<{ id: string }>(await c.sim("POST", `/simnet/phones/${phone}/send`, { to, message }), 201))
    .id;
}

beforeAll(async () => {
  c = await startCluster();
  await c.sim("POST", "/simnet/phones", { phone: B, pushName: "Bruno" });
  await c.sim("POST", "/simnet/phones", { phone: C, pushName: "Carla" });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

describe("made on the phone, answered by contacts", () => {
  it("a poll: seen as our message (source app); a vote names it, with the options chosen", async () => {
    const poll = await phoneSends(a.phone, B, {
      type: "poll",
      name: "Almoço?",
      options: ["pizza", "sushi", "salada"],
      multipleAnswers: true,
    });
    const ours = `true_${B}@c.us_${poll}`;
    const shown = await eventOf("message.any", (p) => p.id === ours);
    expect(shown).toMatchObject({ fromMe: true, source: "app", type: "poll", chatId: `${B}@c.us` });
    await phoneSends(B, a.phone, { type: "poll_vote", pollId: poll, votes: ["sushi", "salada"] });
    const vote = await eventOf("poll.vote", (p) => p.pollId === ours);
    expect(vote).toMatchObject({
      chatId: `${B}@c.us`,
      fromMe: false,
      from: { id: `${B}@c.us`, phone: B, pushName: "Bruno" },
      selectedOptions: ["sushi", "salada"],
    });
  });

  it("a calendar event: an answer names it, with the response", async () => {
    const event = await phoneSends(a.phone, B, { type: "event", name: "Reunião", startTime: 1_900_000_000 });
    const ours = `true_${B}@c.us_${event}`;
    await eventOf("message.any", (p) => p.id === ours);
    await phoneSends(B, a.phone, { type: "event_response", targetId: event, response: "maybe" });
    const reply = await eventOf("event.response", (p) => p.eventId === ours);
    expect(reply).toMatchObject({ chatId: `${B}@c.us`, response: "maybe", from: { id: `${B}@c.us` } });
  });

  it("in a group: each member's vote and answer, from that member", async () => {
    const group = (
      await expectJson<{ id: string }>(
        await c.sim("POST", "/simnet/groups", { subject: "Time", participants: [a.phone, B, C] }),
        201,
      )
    ).id;
    const poll = await phoneSends(a.phone, group, {
      type: "poll",
      name: "Sexta?",
      options: ["sim", "não"],
      multipleAnswers: false,
    });
    const ours = `true_${group}_${poll}`;
    await eventOf("message.any", (p) => p.id === ours);
    await phoneSends(B, group, { type: "poll_vote", pollId: poll, votes: ["sim"] });
    await phoneSends(C, group, { type: "poll_vote", pollId: poll, votes: ["não"] });
    const byB = await eventOf("poll.vote", (p) => p.pollId === ours && p.from?.phone === B);
    const byC = await eventOf("poll.vote", (p) => p.pollId === ours && p.from?.phone === C);
    expect(byB).toMatchObject({ chatId: group, isGroup: true, selectedOptions: ["sim"] });
    expect(byC).toMatchObject({ chatId: group, isGroup: true, selectedOptions: ["não"] });

    const event = await phoneSends(a.phone, group, { type: "event", name: "Churrasco", startTime: 1_900_000_000 });
    const ev = `true_${group}_${event}`;
    await eventOf("message.any", (p) => p.id === ev);
    await phoneSends(C, group, { type: "event_response", targetId: event, response: "going" });
    expect(await eventOf("event.response", (p) => p.eventId === ev)).toMatchObject({
      chatId: group,
      response: "going",
      from: { phone: C, pushName: "Carla" },
    });
  });
});
