// Every event kind a standard instance produces (spec 6.2), driven on simnet to a real receiver
// subscribed to `*`: each delivery arrives once, signed (spec 6.3), with the headers of 6.1, and its
// envelope valid against the kind's schema (contracts `EVENT_PAYLOAD_SCHEMAS`, the OpenAPI
// document's `webhooks`). The operator's kinds are in event-schemas-official.test.ts; simnet has no
// operator, and the operator mock none of the kinds here.
import type { EventKind } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectJson, until } from "../support/e2e-helpers.ts";
import { checkedDelivery, deliveryProblems, type Payload } from "../support/event-checks.ts";
import { type Received, type Receiver, startReceiver } from "../support/receiver.ts";

/** What simnet makes a standard instance announce, each driven below. */
const STANDARD_KINDS: EventKind[] = [
  "message",
  "message.any",
  "message.ack",
  "message.reaction",
  "message.edited",
  "message.revoked",
  "session.status",
  "queue.sent",
  "queue.failed",
  "message.ack.group",
  "presence.update",
  "group.join",
  "group.leave",
  "group.update",
  "group.participants",
  "group.join_request",
  "poll.vote",
  "event.response",
  "call.received",
  "call.accepted",
  "call.rejected",
  "label.upsert",
  "label.deleted",
  "label.chat.added",
  "label.chat.deleted",
  "webhook.test",
];

let c: Cluster;
let rx: Receiver;
let secret = "";
let hookId = "";
const a = { id: "", token: "", phone: "5531962270001" };
const B = "5531962270002"; // a customer who reads everything
const C = "5531962270003";
const E = "5531962270005"; // asks to join a group

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
/** A message a phone sends itself (simnet's control API acting as the phone); its network id. */
const phoneSends = async (phone: string, to: string, message: Record<string, unknown>) =>
  (await expectJson<{ id: string }>(await c.sim("POST", `/simnet/phones/${phone}/send`, { to, message }), 201)).id;
const phoneActs = async (phone: string, op: string, args: unknown) =>
  ((await expectJson(await c.sim("POST", `/simnet/phones/${phone}/groups`, { op, args }))) as { result: any }).result;

const problems = (d: Received) => deliveryProblems(d, secret);
const delivered = (kind: EventKind, match?: (p: Payload) => boolean) => checkedDelivery(rx, secret, kind, match);

beforeAll(async () => {
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [200, 500] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  rx = await startReceiver();
  await c.sim("POST", "/simnet/phones", { phone: B, pushName: "Bruno", autoRead: true });
  await c.sim("POST", "/simnet/phones", { phone: C, pushName: "Carla" });
  await c.sim("POST", "/simnet/phones", { phone: E, pushName: "Eva" });
  Object.assign(a, await c.createInstance({ billingStatus: "active" }));
  // Subscribed before the start: its session.status changes are delivered too.
  const hook = await expectJson<{ id: string; secret: string }>(
    await api("/webhooks", { method: "POST", json: { url: rx.url, events: ["*"] } }),
    201,
  );
  [hookId, secret] = [hook.id, hook.secret];
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("messages", () => {
  it("received, sent through the API and from the phone; acks, reactions, edits, revocations", async () => {
    const chat = `${B}@c.us`;
    // Received: `message` and `message.any`, a text and an image (media by signed link).
    const text = await phoneSends(B, a.phone, { type: "text", text: "Oi, tem o tênis azul?" });
    const received = await delivered("message", (p) => p.id === `false_${chat}_${text}`);
    expect(received).toMatchObject({ type: "text", fromMe: false, from: { phone: B, pushName: "Bruno" } });
    await delivered("message.any", (p) => p.id === received.id);
    const image = await phoneSends(B, a.phone, { type: "image", media: { data: PNG, mimetype: "image/png" } });
    expect(await delivered("message", (p) => p.id === `false_${chat}_${image}`)).toMatchObject({
      type: "image",
      media: { mimetype: "image/png", url: expect.stringContaining("/v1/files/") },
    });
    const located = await phoneSends(B, a.phone, { type: "location", latitude: -23.5, longitude: -46.6, name: "Loja" });
    await delivered("message", (p) => p.id === `false_${chat}_${located}`);

    // Sent through the API: `message.any` (source api, status sent) and its acks (B reads it).
    const sent = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: B, text: "Temos sim!", reply_to: received.id } }),
      201,
    );
    expect(await delivered("message.any", (p) => p.id === sent.id)).toMatchObject({ source: "api", status: "sent" });
    for (const status of ["sent", "delivered", "read"])
      await delivered("message.ack", (p) => p.id === sent.id && p.status === status);
    // From the account's own phone: `message.any`, source app.
    const own = await phoneSends(a.phone, B, { type: "text", text: "do celular" });
    expect(await delivered("message.any", (p) => p.id === `true_${chat}_${own}`)).toMatchObject({ source: "app" });

    // Reactions: ours through the API, and B's to our message.
    await expectJson(
      await api("/messages/reaction", { method: "PUT", json: { messageId: received.id, reaction: "👍" } }),
    );
    await delivered("message.reaction", (p) => p.fromMe && p.messageId === received.id);
    const sentNetId = sent.id.split("_")[2]!;
    await phoneSends(B, a.phone, { type: "reaction", targetId: sentNetId, emoji: "❤️" });
    expect(await delivered("message.reaction", (p) => !p.fromMe && p.messageId === sent.id)).toMatchObject({
      emoji: "❤️",
    });

    // Edits: B edits its text; we edit ours through the API (once the read model has it).
    await phoneSends(B, a.phone, { type: "edit", targetId: text, text: "Oi, tem o tênis azul no 38?" });
    expect(await delivered("message.edited", (p) => p.messageId === received.id)).toMatchObject({
      type: "edit",
      text: "Oi, tem o tênis azul no 38?",
    });
    const path = `/chats/${chat}/messages/${encodeURIComponent(sent.id)}`;
    await until(async () => (await api(path)).status === 200, "the sent message stored");
    await expectJson(await api(path, { method: "PUT", json: { text: "Temos sim, no 38!" } }));
    await delivered("message.edited", (p) => p.fromMe && p.messageId === sent.id);

    // Revocations: B deletes its image; we delete ours.
    await phoneSends(B, a.phone, { type: "revoke", targetId: image });
    await delivered("message.revoked", (p) => p.messageId === `false_${chat}_${image}`);
    await expectJson(await api(path, { method: "DELETE" }));
    await delivered("message.revoked", (p) => p.fromMe && p.messageId === sent.id);
  }, 90_000);

  it("polls and calendar events: votes (from a contact and through the API) and replies", async () => {
    const chat = `${B}@c.us`;
    const ours = await phoneSends(a.phone, B, {
      type: "poll",
      name: "Cor?",
      options: ["azul", "preto"],
      multipleAnswers: false,
    });
    await phoneSends(B, a.phone, { type: "poll_vote", pollId: ours, votes: ["azul"] });
    expect(await delivered("poll.vote", (p) => p.pollId === `true_${chat}_${ours}`)).toMatchObject({
      selectedOptions: ["azul"],
    });
    const theirs = await phoneSends(B, a.phone, {
      type: "poll",
      name: "Entrega?",
      options: ["sim", "não"],
      multipleAnswers: false,
    });
    const poll = `false_${chat}_${theirs}`;
    await delivered("message", (p) => p.id === poll);
    await expectJson(
      await api("/messages/poll/vote", { method: "POST", json: { pollMessageId: poll, votes: ["sim"] } }),
      201,
    );
    expect(await delivered("poll.vote", (p) => p.pollId === poll)).toMatchObject({ source: "api" });

    const event = await phoneSends(a.phone, B, { type: "event", name: "Prova do tênis", startTime: 1_900_000_000 });
    await phoneSends(B, a.phone, { type: "event_response", targetId: event, response: "going" });
    expect(await delivered("event.response", (p) => p.eventId === `true_${chat}_${event}`)).toMatchObject({
      response: "going",
    });
  }, 60_000);

  it("the queue: sent, and cancelled (queue.failed)", async () => {
    const queued = await expectJson<{ id: string }>(
      await api("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { phone: B, text: "Na fila" },
      }),
      202,
    );
    expect(await delivered("queue.sent", (p) => p.id === queued.id)).toMatchObject({ status: "sent" });
    await expectJson(await api("/queue/pause", { method: "POST" }));
    const held = await expectJson<{ id: string }>(
      await api("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { phone: B, text: "Cancelada" },
      }),
      202,
    );
    await expectJson(await api(`/queue/${held.id}`, { method: "DELETE" }));
    expect(await delivered("queue.failed", (p) => p.id === held.id)).toMatchObject({ status: "cancelled" });
    await expectJson(await api("/queue/resume", { method: "POST" }));
  }, 60_000);
});

describe("groups, calls, labels, presence", () => {
  it("a group: joined, acks per participant, updated, a request to join, participants, left", async () => {
    const created = await expectJson<{ group: { id: string } }>(
      await api("/groups", { method: "POST", json: { subject: "Clientes VIP", participants: [B, C] } }),
      201,
    );
    const group = created.group.id;
    await delivered("group.join", (p) => p.chatId === group);
    await delivered("group.participants", (p) => p.chatId === group && p.action === "add");
    const sent = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { chatId: group, text: "Bem-vindos!" } }),
      201,
    );
    expect(await delivered("message.ack.group", (p) => p.id === sent.id)).toMatchObject({ participant: { phone: B } });
    await expectJson(await api(`/groups/${group}/subject`, { method: "PUT", json: { subject: "Clientes Ouro" } }));
    await delivered("group.update", (p) => p.chatId === group && p.changed === "subject");
    await expectJson(await api(`/groups/${group}/settings`, { method: "PATCH", json: { joinApproval: true } }));
    await delivered("group.update", (p) => p.chatId === group && p.changed === "settings");
    const invite = await expectJson<{ code: string }>(await api(`/groups/${group}/invite`));
    expect((await phoneActs(E, "groups.join", { code: invite.code })).status).toBe("pending_approval");
    expect(await delivered("group.join_request", (p) => p.chatId === group)).toMatchObject({ requester: { phone: E } });
    await expectJson(
      await api(`/groups/${group}/participants/remove`, { method: "POST", json: { participants: [C] } }),
    );
    await delivered("group.participants", (p) => p.chatId === group && p.action === "remove");
    await expectJson(await api(`/groups/${group}/leave`, { method: "POST" }));
    expect(await delivered("group.leave", (p) => p.chatId === group)).toMatchObject({ reason: "left" });
  }, 60_000);

  it("calls: received, answered on the phone, rejected here and by the caller", async () => {
    const call = async () =>
      (await expectJson<{ id: string }>(await c.sim("POST", `/simnet/phones/${B}/call`, { to: a.phone }), 201)).id;
    const answered = await call();
    await delivered("call.received", (p) => p.id === answered);
    await expectJson(await c.sim("POST", `/simnet/calls/${answered}/accept`));
    await delivered("call.accepted", (p) => p.id === answered);
    const rejected = await call();
    await delivered("call.received", (p) => p.id === rejected);
    await expectJson(await api(`/calls/${rejected}/reject`, { method: "POST" }));
    expect(await delivered("call.rejected", (p) => p.id === rejected)).toMatchObject({ by: "me" });
    const cancelled = await call();
    await delivered("call.received", (p) => p.id === cancelled);
    await expectJson(await c.sim("POST", `/simnet/calls/${cancelled}/cancel`));
    expect(await delivered("call.rejected", (p) => p.id === cancelled)).toMatchObject({ by: "caller" });
  }, 60_000);

  it("labels: created, put on a chat, deleted (its chat untagged first)", async () => {
    const label = await expectJson<{ id: string }>(
      await api("/labels", { method: "POST", json: { name: "Pagou" } }),
      201,
    );
    await delivered("label.upsert", (p) => p.id === label.id);
    await expectJson(await api(`/labels/chats/${B}`, { method: "PUT", json: { labels: [{ id: label.id }] } }));
    await delivered("label.chat.added", (p) => p.labelId === label.id);
    await expectJson(await api(`/labels/${label.id}`, { method: "DELETE" }));
    await delivered("label.chat.deleted", (p) => p.labelId === label.id);
    await delivered("label.deleted", (p) => p.id === label.id);
  }, 60_000);

  it("presence: a subscribed contact typing", async () => {
    await expectJson(await api(`/presence/${B}/subscribe`, { method: "POST" }));
    await c.sim("POST", `/simnet/phones/${B}/presence`, { state: "composing", to: a.phone });
    await delivered("presence.update", (p) => p.presences.some((x: Payload) => x.lastKnownPresence === "typing"));
  }, 30_000);
});

describe("every delivery", () => {
  it("webhook.test, then: each event of the instance arrived once, signed and valid; every kind above seen", async () => {
    await expectJson(await api(`/webhooks/${hookId}/test`, { method: "POST" }));
    await delivered("webhook.test");
    expect((await delivered("session.status", (p) => p.status === "WORKING")).previousStatus).toBe("SCAN_QR_CODE");

    const history = await c.events(a.id);
    await rx.waitFor((all) => history.every((e) => all.some((r) => r.envelope.id === e.id)), 20_000);
    // The 7-day history (kept smaller: services/platform/src/events/history-codec.ts) gives back
    // each event byte for byte as it was delivered, read as the live streams read it.
    const key = c.platform.events.streamKey(a.id);
    const kept = new Map((await c.platform.events.after(key, "0-0", 10_000, a.id)).map((e) => [e.id, e.envelope]));
    expect(kept.size).toBe(history.length);
    const inHistory = rx.received.filter((r) => kept.has(r.envelope.id));
    expect(inHistory).toHaveLength(kept.size);
    expect(inHistory.filter((r) => kept.get(r.envelope.id) !== r.rawBody).map((r) => r.envelope.event)).toEqual([]);
    const failures = rx.received.flatMap((r) => problems(r).map((p) => `${r.envelope.event} ${r.envelope.id}: ${p}`));
    expect(failures).toEqual([]);
    const counts = new Map<string, number>();
    for (const r of rx.received) counts.set(r.envelope.id, (counts.get(r.envelope.id) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(rx.received.every((r) => r.envelope.instanceId === a.id)).toBe(true);
    const seen = new Set(rx.received.map((r) => r.envelope.event));
    expect(STANDARD_KINDS.filter((k) => !seen.has(k))).toEqual([]);
    // The check fails what it should: a body changed after it was signed, a field no schema has.
    const sample = rx.received.find((r) => r.envelope.event === "message")!;
    const tampered = { ...sample.envelope, payload: { ...sample.envelope.payload, extra: true } };
    expect(problems({ ...sample, rawBody: JSON.stringify(tampered), envelope: tampered })).toEqual(
      expect.arrayContaining(["signature: bad_signature", expect.stringMatching(/^payload: .*"extra"/)]),
    );
  }, 60_000);
});
