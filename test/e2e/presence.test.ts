// Presence (spec 4.9, 2.10, event presence.update) end to end on simnet, through real HTTP, Redis and
// Temporal: the account's presence and chat indicators as the network records them; subscriptions
// to contacts and groups, the presence.update events they bring in order, and GET answering from
// what was heard; subscriptions and the account's own presence applied again after a reconnection;
// `offline` withholding read receipts; the send queue working while presence is set; every
// validation rule, the 404s, instance_not_connected and the official-kind 501s. A first read of
// a chat not subscribed to subscribes to it (as WAHA).
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531975550xxx; the ninth-digit contact is registered without it.
const a = { id: "", token: "", phone: "5531975550001" };
const CAIO = "5531975550101"; // a virtual contact followed
const DORA = "5531975550102"; // a virtual contact not followed
const FABI = "5531975550103"; // a virtual contact first read, never subscribed to
const EDU = "553187655010"; // registered without the ninth digit
const EDU_TYPED = "5531987655010";

type Obj = Record<string, any>;
type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
let asA: Api;
let group = "";

const sim = async (method: string, path: string, json?: unknown, status = 200) =>
  expectJson<Obj>(await c.sim(method, path, json), status);
/** A virtual contact's presence: online/offline, or an indicator in a chat (`to`). */
const contactPresence = (phone: string, state: string, to?: string) =>
  sim("POST", `/simnet/phones/${phone}/presence`, { state, ...(to ? { to } : {}) });
const setPresence = async (json: Obj) =>
  expect(await expectJson(await asA("/presence", { method: "POST", json }))).toEqual({ success: true });
const subscribe = async (chatId: string) =>
  expect(await expectJson(await asA(`/presence/${chatId}/subscribe`, { method: "POST" }))).toEqual({ success: true });
const presenceLog = async () => (await sim("GET", `/simnet/phones/${a.phone}/presence-log`)).presences as Obj[];
const updates = async () => (await c.events(a.id, "presence.update")).map((e) => e.payload as Obj);
/** The presence.update events after the first `from`, once `n` of them arrived. */
const updatesAfter = (from: number, n: number) =>
  until(async () => {
    const all = (await updates()).slice(from);
    return all.length >= n ? all : null;
  }, `${n} presence.update after #${from}`);

beforeAll(async () => {
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [100] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  Object.assign(a, await c.createInstance({ billingStatus: "active" }));
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  for (const phone of [CAIO, DORA, EDU, FABI]) await sim("POST", "/simnet/phones", { phone }, 201);
  group = (await sim("POST", "/simnet/groups", { subject: "Equipe", participants: [a.phone, CAIO, DORA] }, 201)).id;
  asA = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
}, 60_000);
afterAll(() => c?.close());

describe("the account's presence", () => {
  it("online and offline: the network shows the account so, offline with the time it was last seen", async () => {
    await setPresence({ presence: "online" });
    expect(await sim("GET", `/simnet/phones/${a.phone}/presence`)).toMatchObject({ online: true, lastSeen: null });
    // A chat given with online/offline is ignored: the presence is the account's.
    await setPresence({ presence: "offline", chatId: CAIO });
    const now = await sim("GET", `/simnet/phones/${a.phone}/presence`);
    expect(now).toMatchObject({ online: false });
    expect(now.lastSeen).toBeGreaterThan(1_600_000_000);
    expect((await presenceLog()).slice(-2).map((p) => [p.state, p.to])).toEqual([
      ["available", null],
      ["unavailable", null],
    ]);
    await setPresence({ presence: "online" });
  });

  it("typing, recording, paused: in the chat given (chatId or its alias phone; groups too)", async () => {
    await setPresence({ presence: "typing", chatId: CAIO });
    await setPresence({ presence: "recording", phone: `${CAIO}@c.us` });
    await setPresence({ presence: "paused", chatId: CAIO });
    await setPresence({ presence: "typing", chatId: group });
    // The ninth digit is resolved: the indicator goes to the chat as the network registered it.
    await setPresence({ presence: "typing", chatId: EDU_TYPED });
    expect((await presenceLog()).slice(-5).map((p) => [p.state, p.to])).toEqual([
      ["composing", `${CAIO}@c.us`],
      ["recording", `${CAIO}@c.us`],
      ["paused", `${CAIO}@c.us`],
      ["composing", group],
      ["composing", `${EDU}@c.us`],
    ]);
  });

  it("validation: the presence values, a chat for indicators, chat ids; unknown chats are 404", async () => {
    const post = (json: unknown) => asA("/presence", { method: "POST", json });
    for (const [body, field] of [
      [{}, "presence"],
      [{ presence: "away" }, "presence"],
      [{ presence: 1 }, "presence"],
      [{ presence: "typing" }, "chatId"],
      [{ presence: "recording", chatId: "  " }, "chatId"],
      [{ presence: "typing", chatId: "abc" }, "chatId"],
      [{ presence: "typing", chatId: "120363000000000000@newsletter" }, "chatId"],
      [{ presence: "online", chatId: "status@broadcast" }, "chatId"],
    ] as const) {
      const err = await expectError(await post(body), 422, "validation_error");
      expect(err.error.details, JSON.stringify(body)).toHaveProperty([field]);
    }
    const before = (await presenceLog()).length;
    await expectError(await post({ presence: "typing", chatId: "5531975559999" }), 404, "not_found");
    await expectError(await post({ presence: "typing", chatId: "5531975559999@c.us" }), 404, "not_found");
    await expectError(await post({ presence: "typing", chatId: "120363999999999999@g.us" }), 404, "not_found");
    expect((await presenceLog()).length).toBe(before);
  });
});

describe("subscriptions and what they bring", () => {
  it("a contact: its presence now, then online, typing, recording, paused and offline, in order", async () => {
    const from = (await updates()).length;
    await subscribe(CAIO);
    expect((await sim("GET", `/simnet/phones/${CAIO}/presence`)).subscribers).toEqual([
      expect.objectContaining({ phone: a.phone, instanceId: a.id }),
    ]);
    await contactPresence(CAIO, "available");
    await contactPresence(CAIO, "composing", a.phone);
    await contactPresence(CAIO, "recording", a.phone);
    await contactPresence(CAIO, "paused", a.phone);
    await contactPresence(CAIO, "unavailable");
    const seen = await updatesAfter(from, 6);
    const caio = `${CAIO}@c.us`;
    expect(
      seen.map((p) => [p.id, p.chatId, p.presences.map((x: Obj) => [x.participant, x.lastKnownPresence])]),
    ).toEqual([
      [caio, caio, [[caio, "offline"]]], // answered by the subscription: never seen
      [caio, caio, [[caio, "online"]]],
      [caio, caio, [[caio, "typing"]]],
      [caio, caio, [[caio, "recording"]]],
      [caio, caio, [[caio, "online"]]], // a stopped indicator reads online
      [caio, caio, [[caio, "offline"]]],
    ]);
    for (const p of seen) {
      expect(Object.keys(p).sort()).toEqual(["chatId", "id", "presences", "timestamp"]);
      expect(p.timestamp).toBeGreaterThan(1_600_000_000);
      expect(Object.keys(p.presences[0]).sort()).toEqual(["lastKnownPresence", "lastSeen", "participant"]);
    }
    expect(seen[0]!.presences[0].lastSeen).toBeNull();
    expect(seen[1]!.presences[0].lastSeen).toBeNull();
    const lastSeen = seen[5]!.presences[0].lastSeen;
    expect(lastSeen).toBeGreaterThan(1_600_000_000);
    expect((await sim("GET", `/simnet/phones/${CAIO}/presence`)).lastSeen).toBe(lastSeen);

    const entry = { id: caio, presences: [{ participant: caio, lastKnownPresence: "offline", lastSeen }] };
    expect(await expectJson(await asA(`/presence/${CAIO}`))).toEqual(entry);
    expect(await expectJson(await asA(`/presence/${caio}`))).toEqual(entry);
    expect(await expectJson(await asA("/presence"))).toContainEqual(entry);
  });

  it("a contact not followed is not heard: no event, and not in the list", async () => {
    const from = (await updates()).length;
    await contactPresence(DORA, "available");
    await contactPresence(DORA, "composing", a.phone);
    // Heard: Caio's next change, after Dora's.
    await contactPresence(CAIO, "available");
    const seen = await updatesAfter(from, 1);
    expect(seen.map((p) => p.id)).toEqual([`${CAIO}@c.us`]);
    expect((await expectJson<Obj[]>(await asA("/presence"))).map((e) => e.id)).not.toContain(`${DORA}@c.us`);
  });

  it("reading a contact never subscribed to subscribes to it (as WAHA) and answers its presence now", async () => {
    const fabi = `${FABI}@c.us`;
    await contactPresence(FABI, "available");
    expect((await sim("GET", `/simnet/phones/${FABI}/presence`)).subscribers).toEqual([]);
    const from = (await updates()).length;
    // No 404: the first read subscribes, and the network's answer (online now) is the entry.
    expect(await expectJson(await asA(`/presence/${FABI}`))).toEqual({
      id: fabi,
      presences: [{ participant: fabi, lastKnownPresence: "online", lastSeen: null }],
    });
    expect((await sim("GET", `/simnet/phones/${FABI}/presence`)).subscribers).toEqual([
      expect.objectContaining({ phone: a.phone, instanceId: a.id }),
    ]);
    // Followed from now on: its changes are events.
    await contactPresence(FABI, "composing", a.phone);
    const seen = await until(async () => {
      const all = (await updates()).slice(from).filter((p) => p.id === fabi);
      return all.some((p) => p.presences[0].lastKnownPresence === "typing") ? all : null;
    }, "Fabi typing");
    expect(seen.map((p) => p.presences[0].lastKnownPresence)).toEqual(["online", "typing"]);
    expect((await expectJson<Obj>(await asA(`/presence/${FABI}`))).presences[0].lastKnownPresence).toBe("typing");
  });

  it("a group: its members typing and recording there, each a participant of the group's entry", async () => {
    await subscribe(group);
    const before = await expectJson<Obj>(await asA(`/presence/${group}`));
    expect(before).toEqual({ id: group, presences: [] }); // subscribed, nothing heard yet
    const from = (await updates()).length;
    await contactPresence(DORA, "composing", group);
    await contactPresence(CAIO, "recording", group);
    const seen = await updatesAfter(from, 2);
    expect(seen.map((p) => [p.chatId, p.presences[0].participant, p.presences[0].lastKnownPresence])).toEqual([
      [group, `${DORA}@c.us`, "typing"],
      [group, `${CAIO}@c.us`, "recording"],
    ]);
    const entry = await expectJson<Obj>(await asA(`/presence/${group}`));
    expect(entry.id).toBe(group);
    expect(entry.presences).toEqual([
      { participant: `${CAIO}@c.us`, lastKnownPresence: "recording", lastSeen: null },
      { participant: `${DORA}@c.us`, lastKnownPresence: "typing", lastSeen: null },
    ]);
    // The group is a chat of its own in the list, most recently heard first.
    expect((await expectJson<Obj[]>(await asA("/presence")))[0]).toEqual(entry);
  });

  it("a number typed with the ninth digit: followed as registered, GET answers by either form", async () => {
    await subscribe(EDU_TYPED);
    const from = (await updates()).length;
    await contactPresence(EDU, "available");
    const [first] = await updatesAfter(from, 1);
    expect(first).toMatchObject({ chatId: `${EDU}@c.us` });
    for (const id of [EDU, EDU_TYPED]) {
      expect((await expectJson<Obj>(await asA(`/presence/${id}`))).id, id).toBe(`${EDU}@c.us`);
    }
  });

  it("validation and 404s of the chat routes", async () => {
    for (const bad of ["abc", "120363000000000000@newsletter", "status@broadcast"]) {
      const err = await expectError(await asA(`/presence/${encodeURIComponent(bad)}`), 422, "validation_error");
      expect(err.error.details, bad).toHaveProperty("chatId");
      const sub = await asA(`/presence/${encodeURIComponent(bad)}/subscribe`, { method: "POST" });
      expect((await expectError(sub, 422, "validation_error")).error.details, bad).toHaveProperty("chatId");
    }
    await expectError(await asA("/presence/5531975559999/subscribe", { method: "POST" }), 404, "not_found");
    await expectError(await asA("/presence/5531975559999@c.us/subscribe", { method: "POST" }), 404, "not_found");
    await expectError(await asA("/presence/120363999999999999@g.us/subscribe", { method: "POST" }), 404, "not_found");
    // A group the account is not in.
    const other = (await sim("POST", "/simnet/groups", { subject: "Outro", participants: [CAIO, DORA] }, 201)).id;
    await expectError(await asA(`/presence/${other}/subscribe`, { method: "POST" }), 422, "network_rejected");
    // Reading subscribes first: the same answers.
    await expectError(await asA(`/presence/${other}`), 422, "network_rejected");
    await expectError(await asA("/presence/5531975559999"), 404, "not_found");
    await expectError(await asA("/presence/120363999999999999@g.us"), 404, "not_found");
  });
});

describe("across a reconnection", () => {
  it("subscriptions and the account's presence are applied again on the new connection", async () => {
    await setPresence({ presence: "offline" });
    const logBefore = (await presenceLog()).length;
    const before = await sim("GET", "/simnet/connections");
    const oldConn = (before.connections as Obj[]).find((x) => x.instanceId === a.id)?.connectionId;
    await sim("POST", "/simnet/faults/drop", { instanceId: a.id });
    await until(async () => {
      const now = (await sim("GET", "/simnet/connections")).connections as Obj[];
      return now.some((x) => x.instanceId === a.id && x.state === "open" && x.connectionId !== oldConn);
    }, "a new connection");
    await c.waitForStatus(a.id, "WORKING");
    const subs = await until(async () => {
      const got = ((await sim("GET", `/simnet/phones/${a.phone}/presence`)).subscriptions as Obj[]).map(
        (s) => s.target,
      );
      return got.length >= 4 ? got : null;
    }, "subscriptions renewed");
    expect(subs.sort()).toEqual([`${CAIO}@c.us`, `${EDU}@c.us`, `${FABI}@c.us`, group].sort());
    // The account's offline was set again on the new connection.
    const again = await until(async () => {
      const log = (await presenceLog()).slice(logBefore);
      return log.length >= 1 ? log : null;
    }, "presence set again");
    expect(again.map((p) => [p.state, p.instanceId])).toEqual([["unavailable", a.id]]);
    // What follows is heard on the new connection (among the contacts' presence that each renewed
    // subscription brings first, in whatever order they land).
    const from = (await updates()).length;
    await contactPresence(CAIO, "composing", a.phone);
    const typing = await until(
      async () =>
        (await updates())
          .slice(from)
          .find((u) => u.chatId === `${CAIO}@c.us` && u.presences?.[0]?.lastKnownPresence === "typing"),
      "Caio typing, heard on the new connection",
    );
    expect(typing).toMatchObject({ chatId: `${CAIO}@c.us`, presences: [{ lastKnownPresence: "typing" }] });
    await setPresence({ presence: "online" });
  });
});

describe("offline and reading", () => {
  /** A message the contact sends to the account, as the API names it once received. */
  async function received(from: string, text: string): Promise<{ apiId: string; networkId: string }> {
    const sent = await sim(
      "POST",
      `/simnet/phones/${from}/send`,
      { to: a.phone, message: { type: "text", text } },
      201,
    );
    const ev = await until(
      async () => (await c.events(a.id, "message")).find((e) => (e.payload as Obj).text === text),
      `message ${text}`,
    );
    return { apiId: (ev.payload as Obj).id, networkId: sent.id };
  }
  const statusAtContact = async (from: string, networkId: string) =>
    ((await sim("GET", `/simnet/phones/${from}/sent`)).messages as Obj[]).find((m) => m.id === networkId)?.status;

  it("offline: /messages/seen and /chats/{chatId}/messages/read send no receipt; online marks again", async () => {
    await setPresence({ presence: "offline" });
    const one = await received(CAIO, "você viu?");
    const two = await received(CAIO, "e agora?");
    await until(async () => (await statusAtContact(CAIO, two.networkId)) === "delivered", "delivered");
    expect(await expectJson(await asA("/messages/seen", { method: "POST", json: { messageId: one.apiId } }))).toEqual(
      {},
    );
    expect(await expectJson(await asA(`/chats/${CAIO}/messages/read`, { method: "POST" }))).toEqual({ ids: [] });
    // Give a receipt every chance to arrive: the ack clock moves every 20 ms.
    await sleep(300);
    expect(await statusAtContact(CAIO, one.networkId)).toBe("delivered");
    expect(await statusAtContact(CAIO, two.networkId)).toBe("delivered");
    const chat = (await expectJson<Obj[]>(await asA("/chats/overview"))).find((x) => x.id === `${CAIO}@c.us`);
    expect(chat?.unreadCount).toBe(2); // the gateway's own view did not mark them read either

    await setPresence({ presence: "online" });
    expect(await expectJson(await asA("/messages/seen", { method: "POST", json: { messageId: one.apiId } }))).toEqual(
      {},
    );
    await until(async () => (await statusAtContact(CAIO, one.networkId)) === "read", "read after online");
    const read = await expectJson<Obj>(await asA(`/chats/${CAIO}/messages/read`, { method: "POST" }));
    expect(read.ids).toContain(two.apiId);
    await until(async () => (await statusAtContact(CAIO, two.networkId)) === "read", "chat read after online");
  });
});

describe("the send queue while presence is set", () => {
  const waitQueued = (id: string) =>
    until(async () => {
      const item = await expectJson<Obj>(await asA(`/queue/${id}`));
      return item.status !== "queued" && item.status !== "sending" ? item : null;
    }, `queue item ${id}`);

  it("offline, or typing in the same chat: queued sends go out with their typing indicator", async () => {
    await setPresence({ presence: "offline" });
    const logFrom = (await presenceLog()).length;
    const q1 = await expectJson<Obj>(
      await asA("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { chatId: DORA, text: "na fila, offline", delayTyping: 1 },
      }),
      202,
    );
    expect(await waitQueued(q1.id)).toMatchObject({ status: "sent" });
    await setPresence({ presence: "typing", chatId: DORA });
    const q2 = await expectJson<Obj>(
      await asA("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { chatId: DORA, text: "na fila, digitando", delayTyping: 1 },
      }),
      202,
    );
    expect(await waitQueued(q2.id)).toMatchObject({ status: "sent" });
    const inbox = ((await sim("GET", `/simnet/phones/${DORA}/inbox`)).messages as Obj[]).map((m) => m.message.text);
    expect(inbox).toEqual(expect.arrayContaining(["na fila, offline", "na fila, digitando"]));
    const sentEvents = (await c.events(a.id, "queue.sent")).map((e) => (e.payload as Obj).id);
    expect(sentEvents).toEqual(expect.arrayContaining([q1.id, q2.id]));
    // The queue's own indicator came before each send; the account stayed offline for reading.
    expect(
      (await presenceLog()).slice(logFrom).filter((p) => p.to === `${DORA}@c.us` && p.state === "composing").length,
    ).toBeGreaterThanOrEqual(3);
    await setPresence({ presence: "online" });
  });
});

describe("other instances", () => {
  const ROUTES: [string, string, unknown?][] = [
    ["POST", "/presence", { presence: "online" }],
    ["GET", "/presence"],
    ["GET", `/presence/${CAIO}`],
    ["POST", `/presence/${CAIO}/subscribe`],
  ];

  it("not connected: every route answers 422 instance_not_connected (issue 17's rule; what was heard would be stale)", async () => {
    const idle = await c.createInstance();
    const call = c.as(idle.token);
    await expectError(
      await call(`/v1/instances/${idle.id}/presence`, { method: "POST", json: { presence: "online" } }),
      422,
      "instance_not_connected",
    );
    await expectError(
      await call(`/v1/instances/${idle.id}/presence/${CAIO}/subscribe`, { method: "POST" }),
      422,
      "instance_not_connected",
    );
    await expectError(await call(`/v1/instances/${idle.id}/presence`), 422, "instance_not_connected");
    await expectError(await call(`/v1/instances/${idle.id}/presence/${CAIO}`), 422, "instance_not_connected");
  });

  it("official-gateway instances: every route answers 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    for (const [method, path, json] of ROUTES) {
      const res = await c.as(off.token)(`/v1/instances/${off.id}${path}`, { method, ...(json ? { json } : {}) });
      await expectError(res, 501, "not_supported_by_provider");
    }
  });
});
