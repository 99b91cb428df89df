// A poll vote sent through the API (`POST /messages/poll/vote`) is announced as `poll.vote` with
// `fromMe: true`, the same payload as the account's own vote from its phone (source `app` there,
// `api` here): once per vote, a queued vote when it is actually sent — at a real, signed webhook
// receiver (HTTP, Redis, Temporal, simnet).
import { verify } from "@gw/webhook-verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson } from "../support/e2e-helpers.ts";
import { type Received, type Receiver, startReceiver } from "../support/receiver.ts";

let c: Cluster;
let rx: Receiver;
let secret = "";
const a = { id: "", token: "", phone: "5531962260001" };
const B = "5531962260002";
const C = "5531962260003";

type Payload = Record<string, any>;
type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
let api: Api;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `poll.vote` deliveries naming `pollId` (webhook receiver, signature checked). */
function votesAt(all: Received[], pollId: string): Payload[] {
  return all
    .filter((r) => r.envelope.event === "poll.vote" && (r.envelope.payload as Payload).pollId === pollId)
    .map((r) => {
      expect(verify({ secret, header: String(r.headers["x-service-signature"]), rawBody: r.rawBody })).toMatchObject({
        ok: true,
      });
      return r.envelope.payload as Payload;
    });
}

async function voteOf(pollId: string, match: (p: Payload) => boolean = () => true): Promise<Payload> {
  const all = await rx.waitFor((got) => votesAt(got, pollId).some(match), 15_000);
  return votesAt(all, pollId).find(match)!;
}

/** A message sent from a phone (the control API acts as the phone itself). */
async function phoneSends(phone: string, to: string, message: Record<string, unknown>): Promise<string> {
  return (await expectJson<{ id: string }>(await c.sim("POST", `/simnet/phones/${phone}/send`, { to, message }), 201))
    .id;
}

const vote = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api(`/v1/instances/${a.id}/messages/poll/vote`, { method: "POST", headers, json: body });

beforeAll(async () => {
  // The worker delivers webhooks and runs the queue.
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [200] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  rx = await startReceiver();
  await c.sim("POST", "/simnet/phones", { phone: B, pushName: "Bruno" });
  await c.sim("POST", "/simnet/phones", { phone: C, pushName: "Carla" });
  Object.assign(a, await c.createInstance({ billingStatus: "active" }));
  api = c.as(a.token);
  await api(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  const hook = await api(`/v1/instances/${a.id}/webhooks`, {
    method: "POST",
    json: { url: rx.url, events: ["poll.vote", "queue.sent"] },
  });
  secret = ((await hook.json()) as { secret: string }).secret;
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
});

describe("a vote sent through the API", () => {
  it("on a contact's poll: poll.vote fromMe, shaped as the phone's own vote, exactly once", async () => {
    const poll = await phoneSends(B, a.phone, {
      type: "poll",
      name: "Almoço?",
      options: ["pizza", "sushi", "salada"],
      multipleAnswers: true,
    });
    const theirs = `false_${B}@c.us_${poll}`;

    // The account's own vote from its phone: the reference shape.
    await phoneSends(a.phone, B, { type: "poll_vote", pollId: poll, votes: ["pizza"] });
    const fromPhone = await voteOf(theirs, (p) => p.source === "app");
    expect(fromPhone).toMatchObject({ fromMe: true, selectedOptions: ["pizza"] });

    const res = await expectJson<{ id: string; chatId: string }>(
      await vote({ pollMessageId: theirs, votes: ["sushi", "salada"] }),
      201,
    );
    const fromApi = await voteOf(theirs, (p) => p.source === "api");
    expect(fromApi).toMatchObject({
      id: res.id,
      chatId: `${B}@c.us`,
      isGroup: false,
      fromMe: true,
      from: { id: `${a.phone}@c.us`, phone: a.phone },
      type: "poll_vote",
      pollId: theirs,
      selectedOptions: ["sushi", "salada"],
    });
    expect(typeof fromApi.timestamp).toBe("number");
    expect(fromApi.timestamp).toBeLessThan(10_000_000_000); // seconds
    // The same fields as the phone's own vote, with the same values where they do not depend on the vote.
    expect(Object.keys(fromApi).sort()).toEqual(Object.keys(fromPhone).sort());
    for (const k of ["chatId", "chatLid", "isGroup", "chatName", "chatPicture", "fromMe", "type", "pollId"]) {
      expect(fromApi[k], k).toEqual(fromPhone[k]);
    }
    // `from` is the account in both (its lid is left out of every API send's event, as before).
    expect(Object.keys(fromApi.from).sort()).toEqual(Object.keys(fromPhone.from).sort());
    expect(fromApi.from).toMatchObject({
      id: fromPhone.from.id,
      phone: fromPhone.from.phone,
      picture: fromPhone.from.picture,
    });

    await sleep(1_000);
    expect(votesAt(rx.received, theirs).filter((p) => p.source === "api")).toHaveLength(1);
  }, 60_000);

  it("on our own poll in a group: pollId names it as ours", async () => {
    const group = (
      await expectJson<{ id: string }>(
        await c.sim("POST", "/simnet/groups", { subject: "Time", participants: [a.phone, B, C] }),
        201,
      )
    ).id;
    const poll = await expectJson<{ id: string }>(
      await api(`/v1/instances/${a.id}/messages/poll`, {
        method: "POST",
        json: { chatId: group, poll: { name: "Sexta?", options: ["sim", "não"], multipleAnswers: false } },
      }),
      201,
    );
    expect(poll.id).toBe(`true_${group}_${poll.id.split("_").pop()}`);
    await expectJson(await vote({ pollMessageId: poll.id, votes: ["não"] }), 201);
    expect(await voteOf(poll.id)).toMatchObject({
      chatId: group,
      isGroup: true,
      fromMe: true,
      source: "api",
      pollId: poll.id,
      selectedOptions: ["não"],
    });
    await sleep(1_000);
    expect(votesAt(rx.received, poll.id)).toHaveLength(1);
  }, 60_000);

  it("queued (X-Queue: true): poll.vote once, when the vote is actually sent", async () => {
    await expectJson(await api(`/v1/instances/${a.id}/queue/pause`, { method: "POST" }));
    const poll = await phoneSends(B, a.phone, {
      type: "poll",
      name: "Cor?",
      options: ["azul", "verde"],
      multipleAnswers: false,
    });
    const theirs = `false_${B}@c.us_${poll}`;
    const item = await expectJson<{ id: string }>(
      await vote({ pollMessageId: theirs, votes: ["verde"], delayMessage: 0, delayTyping: 0 }, { "x-queue": "true" }),
      202,
    );
    await sleep(1_500);
    expect(votesAt(rx.received, theirs)).toEqual([]); // not sent yet: nothing announced
    await expectJson(await api(`/v1/instances/${a.id}/queue/resume`, { method: "POST" }));
    const all = await rx.waitFor(
      (got) => got.some((r) => r.envelope.event === "queue.sent" && r.envelope.payload.id === item.id),
      20_000,
    );
    const sent = all.find((r) => r.envelope.event === "queue.sent" && r.envelope.payload.id === item.id)!;
    const messageId = String(sent.envelope.payload.messageId);
    expect(await voteOf(theirs)).toMatchObject({
      id: messageId,
      fromMe: true,
      source: "api",
      pollId: theirs,
      selectedOptions: ["verde"],
    });
    await sleep(1_000);
    expect(votesAt(rx.received, theirs)).toHaveLength(1);
  }, 60_000);
});
