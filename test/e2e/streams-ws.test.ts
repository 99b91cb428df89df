// The WebSocket at /v1/instances/{instanceId}/ws (docs/streams.md): the SSE stream's semantics —
// cursor and events in the query, one JSON frame per event ({id, event, …envelope}), ping/pong.
// Node's own WebSocket client (the browser's API); raw sockets where a status must be seen.
import type { EventEnvelope } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { publish, StalledClient, until, wsFramesOf } from "./streams-client.ts";

let gw: TestGateway;
let inst: { id: string; token: string };
const sockets: WebSocket[] = [];

interface WsClient {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  closed?: { code: number; reason: string };
}

/** Opens the socket and collects its frames; `headers` are not a browser's (Node's client may send them). */
async function connect(query: string): Promise<WsClient> {
  const ws = new WebSocket(`${gw.url.replace(/^http/, "ws")}/v1/instances/${inst.id}/ws${query}`);
  sockets.push(ws);
  const client: WsClient = { ws, frames: [] };
  ws.addEventListener("message", (m) => client.frames.push(JSON.parse(String(m.data)) as Record<string, unknown>));
  ws.addEventListener("close", (e) => {
    client.closed = { code: e.code, reason: e.reason };
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("websocket refused")));
  });
  return client;
}

async function ticket(): Promise<string> {
  const res = await fetch(`${gw.url}/v1/instances/${inst.id}/stream-ticket`, {
    method: "POST",
    headers: { "x-instance-token": inst.token },
  });
  return encodeURIComponent(((await res.json()) as { ticket: string }).ticket);
}

const envelopes = (c: WsClient) => c.frames.filter((f) => typeof f.id === "string") as unknown as EventEnvelope[];

beforeAll(async () => {
  gw = await startGateway();
  inst = await gw.createInstance();
});
afterAll(async () => {
  for (const ws of sockets) ws.close();
  await gw.close();
});

describe("WebSocket", () => {
  it("sends each event as a JSON frame: the envelope, its id and event first", async () => {
    const client = await connect(`?ticket=${await ticket()}`);
    const e = await publish(gw.platform, inst.id, "message", { text: "oi" });
    await until(() => client.frames.length >= 1, "a frame");
    expect(client.frames).toEqual([e]);
    expect(Object.keys(client.frames[0]!).slice(0, 2)).toEqual(["id", "event"]);
  });

  it("filters with ?events= and resumes after ?cursor= with nothing missed or repeated", async () => {
    const first = await publish(gw.platform, inst.id, "message.ack", { n: 0 });
    const later = [];
    for (let i = 1; i <= 5; i++)
      later.push(await publish(gw.platform, inst.id, i % 2 ? "message.ack" : "message", { n: i }));
    const client = await connect(`?ticket=${await ticket()}&cursor=${first.id}&events=message.ack`);
    const live = await publish(gw.platform, inst.id, "message.ack", { n: 6 });
    const want = [...later.filter((e) => e.event === "message.ack"), live];
    await until(() => envelopes(client).length >= want.length, "the acks");
    expect(envelopes(client)).toEqual(want);
  });

  it("answers a text ping with a pong (browsers cannot send ping frames)", async () => {
    const client = await connect(`?ticket=${await ticket()}`);
    client.ws.send(JSON.stringify({ type: "ping" }));
    await until(() => client.frames.some((f) => f.type === "pong"), "the pong");
  });

  it("closes with 1001 and the resume id when the gateway shuts down", async () => {
    const other = await startGateway({ KEY_PREFIX: gw.config.KEY_PREFIX });
    const ws = new WebSocket(`${other.url.replace(/^http/, "ws")}/v1/instances/${inst.id}/ws?ticket=${await ticket()}`);
    const client: WsClient = { ws, frames: [] };
    ws.addEventListener("message", (m) => client.frames.push(JSON.parse(String(m.data)) as Record<string, unknown>));
    ws.addEventListener("close", (e) => {
      client.closed = { code: e.code, reason: e.reason };
    });
    await new Promise((r) => ws.addEventListener("open", r));
    const e = await publish(gw.platform, inst.id, "message", { n: "last" });
    await until(() => client.frames.length === 1, "the frame");
    await other.close();
    await until(() => client.closed !== undefined, "the close");
    expect(client.closed).toEqual({ code: 1001, reason: e.id });
  });
});

describe("refusals", () => {
  const wsPath = (query: string) => `/v1/instances/${inst.id}/ws${query}`;

  it("a refused upgrade is a plain HTTP error: 401 without credentials, 422 for a bad query", async () => {
    const none = await StalledClient.open(gw.url, wsPath(""), {}, true);
    const refused = wsFramesOf(await none.readAll());
    expect(refused.status).toBe(401);
    const bad = await StalledClient.open(gw.url, wsPath("?events=nope"), { "x-instance-token": inst.token }, true);
    expect(wsFramesOf(await bad.readAll()).status).toBe(422);
  });

  it("takes the token as a header from clients that can send one; closes 4001 when it is revoked", async () => {
    const c = await gw.createInstance();
    const path = `/v1/instances/${c.id}/ws`;
    const raw = await StalledClient.open(gw.url, path, { "x-instance-token": c.token }, true);
    await new Promise((r) => setTimeout(r, 200)); // the upgrade and the feed in place
    const e = await publish(gw.platform, c.id, "message", { n: "header" });
    expect((await gw.admin("DELETE", `/v1/admin/instances/${c.id}`)).status).toBeLessThan(300);
    const got = wsFramesOf(await raw.readWs());
    expect(got.status).toBe(101);
    expect(got.texts.map((t) => JSON.parse(t))).toEqual([e]);
    expect(got.close?.code).toBe(4001);
  });

  it("a plain GET of the WebSocket route is 400", async () => {
    await expectError(
      await fetch(`${gw.url}${wsPath("")}`, { headers: { "x-instance-token": inst.token } }),
      400,
      "bad_request",
    );
  });
});
