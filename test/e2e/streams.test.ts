// GET /v1/instances/{instanceId}/events/stream (docs/streams.md): Server-Sent Events of the
// instance's events, live, filtered, and resumed by id from the 7-day history. Real Redis, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { publish, SseClient } from "./streams-client.ts";

let gw: TestGateway;
let inst: { id: string; token: string };
const open: SseClient[] = [];

const streamUrl = (id: string, query = "") => `${gw.url}/v1/instances/${id}/events/stream${query}`;
async function sse(query = "", headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(streamUrl(inst.id, query), { "x-instance-token": inst.token, ...headers });
  open.push(client);
  return client;
}

beforeAll(async () => {
  gw = await startGateway();
  inst = await gw.createInstance();
});
afterAll(async () => {
  for (const c of open) c.close();
  await gw.close();
});

describe("live", () => {
  it("sends each event as it is published: id the event id, event its kind, data the envelope", async () => {
    const client = await sse();
    expect(client.status).toBe(200);
    expect(client.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(client.headers["x-request-id"]).toBeTruthy();
    const a = await publish(gw.platform, inst.id, "message", { chatId: "5511999990000@c.us", text: "oi" });
    const b = await publish(gw.platform, inst.id, "message.ack", { id: "m1", status: "read" });
    const got = await client.waitFor(2);
    expect(got).toEqual([a, b]);
    expect(client.events.map((e) => [e.id, e.event])).toEqual([
      [a.id, "message"],
      [b.id, "message.ack"],
    ]);
    // The same envelope as GET /events, byte for byte as published.
    const listed = await gw.request(`/v1/instances/${inst.id}/events?limit=2`, {
      headers: { "x-instance-token": inst.token },
    });
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([b, a]);
  });

  it("from now on: a client without a cursor gets nothing published before it connected", async () => {
    await publish(gw.platform, inst.id, "message", { text: "before" });
    const client = await sse();
    const after = await publish(gw.platform, inst.id, "message", { text: "after" });
    expect(await client.waitFor(1)).toEqual([after]);
  });

  it("accepts the token as Authorization: Bearer", async () => {
    const client = await SseClient.open(streamUrl(inst.id), { authorization: `Bearer ${inst.token}` });
    open.push(client);
    expect(client.status).toBe(200);
  });

  it("filters like a webhook's events: ?events=a,b, `*` for all", async () => {
    const acks = await sse("?events=message.ack,message.revoked");
    const all = await sse("?events=*");
    const m = await publish(gw.platform, inst.id, "message", { text: "x" });
    const ack = await publish(gw.platform, inst.id, "message.ack", { status: "sent" });
    const rev = await publish(gw.platform, inst.id, "message.revoked", { id: "m" });
    expect(await acks.waitFor(2)).toEqual([ack, rev]);
    expect(await all.waitFor(3)).toEqual([m, ack, rev]);
  });
});

describe("resume", () => {
  it("Last-Event-ID resumes after that event: nothing missed, nothing repeated", async () => {
    const first = await sse();
    const before = [];
    for (let i = 0; i < 3; i++) before.push(await publish(gw.platform, inst.id, "message", { n: i }));
    expect(await first.waitFor(3)).toEqual(before);
    first.close();
    // Published while no client is connected.
    const missed = [];
    for (let i = 3; i < 6; i++) missed.push(await publish(gw.platform, inst.id, "message", { n: i }));
    const again = await sse("", { "last-event-id": before[2]!.id });
    const live = await publish(gw.platform, inst.id, "message", { n: 6 });
    expect(await again.waitFor(4)).toEqual([...missed, live]);
  });

  it("?cursor= resumes the same way, and Last-Event-ID wins over it (EventSource keeps the URL)", async () => {
    const a = await publish(gw.platform, inst.id, "message", { n: "a" });
    const b = await publish(gw.platform, inst.id, "message", { n: "b" });
    const c = await publish(gw.platform, inst.id, "message", { n: "c" });
    const byCursor = await sse(`?cursor=${a.id}`);
    expect(await byCursor.waitFor(2)).toEqual([b, c]);
    const both = await sse(`?cursor=${a.id}`, { "last-event-id": b.id });
    expect(await both.waitFor(1)).toEqual([c]);
  });

  it("hands over from history to live without a gap or a repeat while events keep coming", async () => {
    const start = await publish(gw.platform, inst.id, "message", { n: "start" });
    const published = [];
    for (let i = 0; i < 600; i++) published.push(await publish(gw.platform, inst.id, "message", { n: i }));
    // More arrive while the client reads the history (more than a page of it) and turns live.
    const flowing = (async () => {
      for (let i = 600; i < 900; i++) published.push(await publish(gw.platform, inst.id, "message", { n: i }));
    })();
    const client = await sse("?events=message", { "last-event-id": start.id });
    await flowing;
    const got = await client.waitFor(900, 20_000);
    expect(got.map((e) => e.payload.n)).toEqual(published.map((e) => e.payload.n));
  });

  it("filters while catching up too; a cursor of a filtered-out kind still places the client", async () => {
    const ack = await publish(gw.platform, inst.id, "message.ack", { n: 1 });
    const msg = await publish(gw.platform, inst.id, "message", { n: 2 });
    const ack2 = await publish(gw.platform, inst.id, "message.ack", { n: 3 });
    const client = await sse("?events=message.ack", { "last-event-id": ack.id });
    expect(await client.waitFor(1)).toEqual([ack2]);
    expect(client.envelopes().some((e) => e.id === msg.id)).toBe(false);
  });

  it("an id not in the history resumes after its time", async () => {
    const old = "evt_00000000000000000000000000"; // 1970: older than anything kept
    const client = await sse(`?cursor=${old}&events=queue.sent`);
    const e = await publish(gw.platform, inst.id, "queue.sent", { n: 1 });
    const got = await client.waitFor(1);
    expect(got.at(-1)).toEqual(e);
  });
});

describe("refusals (plain JSON errors, before any stream)", () => {
  it("no token 401, a wrong one 401, another instance's 401", async () => {
    await expectError(await fetch(streamUrl(inst.id)), 401, "missing_token");
    await expectError(
      await fetch(streamUrl(inst.id), { headers: { "x-instance-token": "nope" } }),
      401,
      "invalid_token",
    );
    const other = await gw.createInstance();
    await expectError(
      await fetch(streamUrl(other.id), { headers: { "x-instance-token": inst.token } }),
      401,
      "invalid_token",
    );
  });

  it("the token never goes in the URL: unknown parameters are refused", async () => {
    const res = await fetch(streamUrl(inst.id, `?token=${inst.token}`), {
      headers: { "x-instance-token": inst.token },
    });
    const body = await expectError(res, 422, "validation_error");
    expect(Object.keys(body.error.details ?? {})).toContain("token");
  });

  it("a malformed cursor, Last-Event-ID or event kind is 422", async () => {
    const h = { "x-instance-token": inst.token };
    await expectError(await fetch(streamUrl(inst.id, "?cursor=42"), { headers: h }), 422, "validation_error");
    await expectError(
      await fetch(streamUrl(inst.id), { headers: { ...h, "last-event-id": "x" } }),
      422,
      "validation_error",
    );
    await expectError(await fetch(streamUrl(inst.id, "?events=nope"), { headers: h }), 422, "validation_error");
    await expectError(await fetch(streamUrl(inst.id, "?events="), { headers: h }), 422, "validation_error");
  });

  it("HEAD answers the stream's headers and ends", async () => {
    const res = await fetch(streamUrl(inst.id), { method: "HEAD", headers: { "x-instance-token": inst.token } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  });

  it("a malformed instance id is 404", async () => {
    await expectError(
      await fetch(`${gw.url}/v1/instances/x/events/stream`, { headers: { "x-instance-token": inst.token } }),
      404,
      "not_found",
    );
  });
});
